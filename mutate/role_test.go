package mutate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
)

// TestMutantsOfTheRole: a kernel file that defines both roles is mutated,
// for --role exit, only on the lines of its return_to_handler and, for
// --role entry, only elsewhere; both sets are not empty. Every arch.
func TestMutantsOfTheRole(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			file := filepath.Join("..", "tests", "testdata", "kernel", a.Name+"_v6.14.S")
			text, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			// return_to_handler's lines: from its SYM_*_START to its SYM_*_END.
			first, last := 0, 0
			for i, l := range strings.Split(string(text), "\n") {
				if strings.Contains(l, "_START(return_to_handler)") {
					first = i + 1
				}
				if strings.Contains(l, "_END(return_to_handler)") {
					last = i + 1
				}
			}
			if first == 0 || last <= first {
				t.Fatalf("%s: no SYM_*_START/END(return_to_handler)", file)
			}
			f, err := harness.LoadFile(a, file, harness.FileOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, role := range []trampolines.Role{trampolines.Entry, trampolines.Exit} {
				ts, err := f.Role(role)
				if err != nil {
					t.Fatal(err)
				}
				ms, err := Mutants(a, ts[0])
				if err != nil {
					t.Fatal(err)
				}
				n := 0
				for _, m := range ms {
					if m.Header != "" {
						continue
					}
					n++
					if in := m.Line > first && m.Line < last; in != (role == trampolines.Exit) {
						t.Errorf("%s mutant at %s (return_to_handler is lines %d-%d): %s", role, m.Where(), first, last, m.Mutation())
					}
				}
				if n == 0 {
					t.Errorf("%s: no mutants of the file itself", role)
				}
			}
		})
	}
}
