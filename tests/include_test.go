package tests

import (
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"trampemu/check"
	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
)

// ownHeaderCases are, per arch, a registry entry file that includes a
// header of its folder and one store of that header to delete from a copy;
// entry names the file's ftrace_caller variant when it is not the one
// without defines, exit the registry exit whose folder brings the same
// header along when it is not rth-legacy.
var ownHeaderCases = map[string]struct{ file, header, store, entry, exit string }{
	"x86_64": {file: "x86_64/ftrace_caller.S", header: "mcount_regs.h", store: "movq\t%r9, R9(%rsp)"},
	"s390x":  {file: "s390x/ftrace_caller.S", header: "ftrace_regs_entry.h", store: "stg\t%r15,(__SF_GPRS+9*8)(%r15)"},
	"arm64":  {file: "arm64/ftrace_regs_v5.10.S", header: "pt_regs_entry.h", store: "stp\tx29, x30, [sp, #S_STACKFRAME]"},
	// riscv64's only ftrace_caller variant is built with
	// HAVE_FUNCTION_GRAPH_FP_TEST; its era has no rth-legacy.
	"riscv64": {file: "riscv64/ftrace_caller.S", header: "fregs_args.h", store: "REG_S\ta7, FREGS_A7(sp)", entry: "ftrace_caller", exit: "rth-fixed"},
}

// TestOwnHeaderWins: a user's file includes the header next to it, not
// the registry header of the same name that its registry partner (the
// model's return_to_handler) brings along, as cpp's #include "name"
// searches the including file's folder first. A copy of a registry file
// with one store deleted from its copied header stores one word less per
// traced call than the unchanged copy; every arch.
func TestOwnHeaderWins(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			c, ok := ownHeaderCases[a.Name]
			if !ok {
				t.Fatalf("no registry file with a header for %s in the test's table", a.Name)
			}
			stores := func(edit bool) float64 {
				dir := t.TempDir()
				for _, f := range []string{c.file, path.Join(path.Dir(c.file), c.header)} {
					b, err := fs.ReadFile(trampolines.Files, f)
					if err != nil {
						t.Fatal(err)
					}
					if edit && path.Base(f) == c.header {
						if !strings.Contains(string(b), c.store+"\n") {
							t.Fatalf("%s has no line %q", f, c.store)
						}
						b = []byte(strings.Replace(string(b), c.store+"\n", "", 1))
					}
					if err := os.WriteFile(filepath.Join(dir, path.Base(f)), b, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				f, err := harness.LoadFile(a, filepath.Join(dir, path.Base(c.file)), harness.FileOptions{})
				if err != nil {
					t.Fatal(err)
				}
				for _, tr := range f.Tramps {
					if tr.Trampoline() != "ftrace_caller" {
						continue
					}
					rs, err := check.Run(check.Config{Arch: a, Tramp: tr, Workloads: []string{"add"}, Calls: 2})
					if err != nil {
						t.Fatal(err)
					}
					return rs[0].Metrics.Stores
				}
				t.Fatalf("%s defines no ftrace_caller", c.file)
				return 0
			}
			orig, edited := stores(false), stores(true)
			if edited != orig-1 {
				t.Errorf("stores per traced call: %v with the edited header, %v with the original; want one fewer (the file's own header)", edited, orig)
			}
		})
	}
}

// TestOwnHeaderPerSource: the entry and the exit of a pairing are each
// preprocessed with their own headers (harness.Setup.BuildWith): a registry
// entry whose header is edited stores one word less per traced call even
// though its registry exit has the original header of that name, and an
// edit of the exit's copy does not reach the entry; every arch.
func TestOwnHeaderPerSource(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			c, ok := ownHeaderCases[a.Name]
			if !ok {
				t.Fatalf("no registry file with a header for %s in the test's table", a.Name)
			}
			var entry harness.Tramp
			for _, v := range harness.VariantsOf(a, trampolines.Entry) {
				if v.File == c.file && v.Symbol == "ftrace_caller" && (v.Name == c.entry || c.entry == "" && len(v.Defines) == 0) {
					entry = variant(t, a, v.Name)
					break
				}
			}
			if entry.Variant == nil {
				t.Fatalf("no %s ftrace_caller variant of %s", a.Name, c.file)
			}
			exitName := c.exit
			if exitName == "" {
				exitName = "rth-legacy"
			}
			exit := variant(t, a, exitName)
			if _, ok := exit.Headers[c.header]; !ok {
				t.Fatalf("%s's exit %s has no header %s: nothing to tell apart", a.Name, exit.Name, c.header)
			}
			edit := func(tr harness.Tramp) harness.Tramp {
				h := string(tr.Headers[c.header])
				if !strings.Contains(h, c.store+"\n") {
					t.Fatalf("%s %s has no line %q", tr.Name, c.header, c.store)
				}
				tr.Headers = maps.Clone(tr.Headers)
				tr.Headers[c.header] = []byte(strings.Replace(h, c.store+"\n", "", 1))
				return tr
			}
			stores := func(en, ex harness.Tramp) float64 {
				rs, err := check.Run(check.Config{Arch: a, Tramp: en, Partner: &ex, Workloads: []string{"add"}, Calls: 2})
				if err != nil {
					t.Fatal(err)
				}
				return rs[0].Metrics.Stores
			}
			orig := stores(entry, exit)
			if got := stores(edit(entry), exit); got != orig-1 {
				t.Errorf("entry with the edited header: %v stores per traced call, %v with the original; want one fewer (the entry's own header, not the exit's)", got, orig)
			}
			if got := stores(entry, edit(exit)); got != orig {
				t.Errorf("exit with the edited header: the entry stores %v per traced call, %v with both original; want the same (the exit's header must not reach the entry)", got, orig)
			}
		})
	}
}
