package check_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"trampemu/check"
	"trampemu/harness"
	"trampemu/internal/golden"
	"trampemu/regs"
	"trampemu/trampolines"
)

var update = flag.Bool("update", false, "rewrite testdata/variants.golden (and meanings.golden)")

// TestEveryVariantGolden pins everything the check says about every
// registry variant of every arch on every workload (two calls, seed 1,
// the interrupt model on), under the default scenario, a return callback
// reading every argument (stale reads on the merged exits) and an entry
// callback reading everything: each
// finding with its kind, slot, register, count and summary, and every
// metric. testdata/variants.golden holds it (-update rewrites it); any
// change in what the analysis reports shows up here.
func TestEveryVariantGolden(t *testing.T) {
	const golden = "testdata/variants.golden"
	var want []byte
	if !*update {
		var err error
		if want, err = os.ReadFile(golden); err != nil {
			t.Fatalf("%v (go test ./check -run TestEveryVariantGolden -update writes it)", err)
		}
	}
	// b compares as it grows: the first variant whose report differs fails
	// the test at once (a mutant of the analysis is caught in the time of
	// the variants before it, not of all of them).
	b := &goldenBuilder{t: t, golden: golden, want: string(want), check: !*update}
	for _, a := range regs.Arches {
		for _, v := range harness.VariantsOf(a, "") {
			tr, err := harness.FromVariant(v)
			if err != nil {
				t.Fatal(err)
			}
			for _, sc := range []string{"default", "ret-args", "entry-args"} {
				goldenCheck(t, b, a, tr, sc, nil, false)
			}
		}
	}
	// Registry variants under the direct-call and live-patch users.
	for _, a := range regs.Arches {
		for _, v := range harness.VariantsOf(a, trampolines.Entry) {
			for _, sc := range []string{"direct", "livepatch"} {
				tr, err := harness.FromVariant(v)
				if err != nil {
					t.Fatal(err)
				}
				goldenCheck(t, b, a, tr, sc, nil, false)
			}
		}
	}
	// The broken trampolines of tests/testdata/broken (one per rule the
	// checks have: clobber, stack, control, stale-read, wrong-value,
	// backchain), default scenario.
	files, err := filepath.Glob("../tests/testdata/broken/*.S")
	if err != nil || len(files) == 0 {
		t.Fatalf("no broken files (%v)", err)
	}
	for _, f := range files {
		name := filepath.Base(f)
		var arch *regs.Arch
		for _, a := range regs.Arches {
			if strings.HasPrefix(name, strings.TrimSuffix(a.Name, "_64")+"_") {
				arch = a
			}
		}
		if arch == nil {
			t.Fatalf("%s: no arch prefix", name)
		}
		role := trampolines.Exit
		if strings.Contains(name, "_entry_") {
			role = trampolines.Entry
		}
		tr, err := harness.FromFile(arch, f, role)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		goldenCheck(t, b, arch, tr, "default", []string{"add", "fib"}, true)
	}
	got := b.String()
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b.compare(true)
}

// goldenBuilder is the golden text being built; compare fails the test at
// the first line that differs from want.
type goldenBuilder struct {
	strings.Builder
	t            *testing.T
	golden, want string
	check        bool
}

// compare fails at the first line of the text so far that differs from the
// golden (whole: also when the golden has more).
func (b *goldenBuilder) compare(whole bool) {
	b.t.Helper()
	got := b.String()
	if !b.check || (!whole && strings.HasPrefix(b.want, got)) || (whole && got == b.want) {
		return
	}
	gotLines := strings.Count(got, "\n") + 1
	for _, d := range golden.Diff(b.want, got, 0) {
		if whole || d.N <= gotLines {
			b.t.Fatalf("%s:%d differs:\n  want %s\n  got  %s", b.golden, d.N, d.Want, d.Got)
		}
	}
	b.t.Fatalf("%s: differs (%d bytes, want %d)", b.golden, len(got), len(b.want))
}

// goldenCheck checks tr under scenario sc on the workloads (nil: every
// workload of the arch) and appends what it reports to b.
func goldenCheck(t *testing.T, b *goldenBuilder, a *regs.Arch, tr harness.Tramp, sc string, workloads []string, full bool) {
	t.Helper()
	s, err := harness.FindUserSet(sc)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := check.Run(check.Config{Arch: a, Tramp: tr, Workloads: workloads, Calls: 2, Seed: 1, Scenario: s})
	if err != nil {
		t.Fatalf("%s %s: %v", a.Name, tr.Name, err)
	}
	for _, r := range rs {
		m := r.Metrics
		fmt.Fprintf(b, "%s %s %s %s: ok %v pair %s calls %d insns %g loads %g stores %g lbytes %g sbytes %g stack %d lines %g written %v boundaries %d lost %d\n",
			a.Name, tr.Name, sc, r.Workload, r.OK, r.Pair, m.Calls, m.Instructions, m.Loads, m.Stores, m.LoadBytes, m.StoreBytes, m.StackBytes,
			m.CacheLines, m.Written, m.Boundaries, m.UnrecoverableInsns)
		for _, f := range r.Findings {
			text := f.Summary
			if full {
				text = f.Message // with the first example's values
			}
			fmt.Fprintf(b, "  %s %s %s %%%s x%d: %s\n", f.Severity, f.Kind, f.Slot, f.Register, f.Count, text)
		}
	}
	b.compare(false)
}
