package check_test

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"trampemu/check"
	"trampemu/harness"
	"trampemu/regs"
)

var update = flag.Bool("update", false, "rewrite testdata/variants.golden")

// TestEveryVariantGolden pins everything the check says about every
// registry variant of every arch on every workload (two calls, seed 1,
// the interrupt model on), under the default scenario, a return callback
// reading every argument (stale reads on the merged exits) and an entry
// callback reading everything: each
// finding with its kind, slot, register, count and summary, and every
// metric. testdata/variants.golden holds it (-update rewrites it); any
// change in what the analysis reports shows up here.
func TestEveryVariantGolden(t *testing.T) {
	var b strings.Builder
	for _, a := range regs.Arches {
		for _, v := range harness.VariantsOf(a, "") {
			tr, err := harness.FromVariant(v)
			if err != nil {
				t.Fatal(err)
			}
			for _, sc := range []string{"default", "ret-args", "entry-args"} {
				s, err := harness.FindUserSet(sc)
				if err != nil {
					t.Fatal(err)
				}
				rs, err := check.Run(check.Config{Arch: a, Tramp: tr, Calls: 2, Seed: 1, Scenario: s})
				if err != nil {
					t.Fatalf("%s %s: %v", a.Name, v.Name, err)
				}
				for _, r := range rs {
					m := r.Metrics
					fmt.Fprintf(&b, "%s %s %s %s: ok %v pair %s calls %d insns %g loads %g stores %g lbytes %g sbytes %g stack %d lines %g written %v boundaries %d lost %d\n",
						a.Name, v.Name, sc, r.Workload, r.OK, r.Pair, m.Calls, m.Instructions, m.Loads, m.Stores, m.LoadBytes, m.StoreBytes, m.StackBytes,
						m.CacheLines, m.Written, m.Boundaries, m.UnrecoverableInsns)
					for _, f := range r.Findings {
						fmt.Fprintf(&b, "  %s %s %s %%%s x%d: %s\n", f.Severity, f.Kind, f.Slot, f.Register, f.Count, f.Summary)
					}
				}
			}
		}
	}
	got := b.String()
	const golden = "testdata/variants.golden"
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
		t.Fatalf("%v (go test ./check -run TestEveryVariantGolden -update writes it)", err)
	}
	if string(want) != got {
		wl, gl := strings.Split(string(want), "\n"), strings.Split(got, "\n")
		for i := 0; i < max(len(wl), len(gl)); i++ {
			var w, g string
			if i < len(wl) {
				w = wl[i]
			}
			if i < len(gl) {
				g = gl[i]
			}
			if w != g {
				t.Fatalf("%s:%d differs:\n  want %s\n  got  %s", golden, i+1, w, g)
			}
		}
	}
}
