package mutate

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"trampemu/harness"
	"trampemu/regs"
)

var update = flag.Bool("update", false, "rewrite testdata/merged.golden")

// mergedSubset are the merged variants TestNoUnexplainedSurvivor mutates
// whole: every merged return_to_handler of every arch and one entry per
// arch (the whole registry is `make mutate`, minutes per arch).
var mergedSubset = map[*regs.Arch][]string{
	regs.X86_64: {"rth-legacy", "rth-retval", "rth-merged", "rth-fixed", "ftrace_caller-v5.10"},
	regs.S390X:  {"rth-legacy", "rth-retval", "rth-merged", "ftrace_regs_caller"},
	regs.ARM64:  {"rth-legacy", "rth-retval", "rth-merged", "ftrace_regs_caller-v6.1"},
	// riscv64's v6.14 and fixed return_to_handler have known bugs.
	regs.RISCV64: {"rth-retval", "ftrace_caller"},
}

// TestNoUnexplainedSurvivor is the claim "no merged variant has an
// unexplained survivor" as a test, on a subset that runs in about a
// minute (add workload, two calls per check): every mutant of each
// variant of mergedSubset is killed, stillborn, equivalent or a survivor
// with a reason; the counts of each class are pinned in
// testdata/merged.golden (-update rewrites it).
func TestNoUnexplainedSurvivor(t *testing.T) {
	var lines []string
	for _, a := range regs.Arches {
		names, ok := mergedSubset[a]
		if !ok || len(names) == 0 {
			t.Fatalf("%s: no merged variants in the subset", a.Name)
		}
		var tramps []harness.Tramp
		for _, n := range names {
			v, err := harness.FindVariant(a, "", n)
			if err != nil {
				t.Fatal(err)
			}
			if !v.Kernel || v.Bug != "" {
				t.Fatalf("%s %s is not a merged variant without a known bug", a.Name, n)
			}
			tr, err := harness.FromVariant(v)
			if err != nil {
				t.Fatal(err)
			}
			tramps = append(tramps, tr)
		}
		sums, err := Run(Config{Arch: a, Tramps: tramps, Calls: 2, Workloads: []string{"add"}})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sums {
			if s.Mutants == 0 || s.Mutants != s.Killed+s.Stillborn+s.Equivalent+len(s.Survived) {
				t.Errorf("%s %s: %d mutants do not add up: %+v", a.Name, s.Variant, s.Mutants, s)
			}
			for _, v := range s.Survived {
				if v.Reason == "" {
					t.Errorf("%s %s: unexplained survivor %s %s: %v", a.Name, s.Variant, v.Line, v.Mutation, v.Differs)
				}
			}
			reasons := map[string]int{}
			for _, v := range s.Survived {
				reasons[v.Reason]++
			}
			var rs []string
			for r, n := range reasons {
				rs = append(rs, fmt.Sprintf("%s %d", r, n))
			}
			sort.Strings(rs)
			lines = append(lines, fmt.Sprintf("%s %s: %d mutants: %d killed, %d stillborn, %d equivalent, %d survived (%s), %d unexplained",
				a.Name, s.Variant, s.Mutants, s.Killed, s.Stillborn, s.Equivalent, len(s.Survived), strings.Join(rs, ", "), s.Unexplained()))
		}
	}
	got := "# mutant classes per merged variant (TestNoUnexplainedSurvivor: add workload, 2 calls; go test ./mutate -run TestNoUnexplainedSurvivor -update)\n" +
		strings.Join(lines, "\n") + "\n"
	const golden = "testdata/merged.golden"
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test ./mutate -run TestNoUnexplainedSurvivor -update writes it)", err)
	}
	if string(want) != got {
		t.Errorf("mutant counts differ from %s:\nwant:\n%s\ngot:\n%s", golden, want, got)
	}
}
