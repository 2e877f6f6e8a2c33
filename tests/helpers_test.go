package tests

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"trampemu/check"
	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
)

func variant(t testing.TB, a *regs.Arch, name string) harness.Tramp {
	t.Helper()
	v, err := harness.FindVariant(a, "", name)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := harness.FromVariant(v)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func scenario(t testing.TB, name string) harness.UserSet {
	t.Helper()
	s, err := harness.FindUserSet(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// errorKinds returns the distinct error kinds of a result, sorted.
func errorKinds(r check.Result) []check.Kind { return r.KindSet(check.Error) }

func kindsText(ks []check.Kind) string {
	if len(ks) == 0 {
		return "none"
	}
	return fmt.Sprint(ks)
}

func sortedKinds(ks ...check.Kind) []check.Kind {
	out := slices.Clone(ks)
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// findings lists a result's findings for a failure message.
func findings(r check.Result) string {
	s := ""
	for _, f := range r.Findings {
		s += "\n    " + f.Severity + " " + f.String()
	}
	return s
}

// newHarness returns a checking harness for entry paired with its intended
// exit, with the scenario's users registered and tracing on.
func newHarness(t testing.TB, a *regs.Arch, entry, scen string) *harness.Harness {
	t.Helper()
	e := variant(t, a, entry)
	x, err := harness.Pair(a, e)
	if err != nil {
		t.Fatal(err)
	}
	h, err := harness.Start(harness.Setup{Arch: a, Entry: e, Exit: x}, harness.Options{Checks: true}, scenario(t, scen))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	return h
}

func runCheck(t testing.TB, cfg check.Config) []check.Result {
	t.Helper()
	rs, err := check.Run(cfg)
	if err != nil {
		t.Fatalf("%s %s: %v", cfg.Arch.Name, cfg.Tramp.Name, err)
	}
	return rs
}

func roleOf(s string) trampolines.Role { return trampolines.Role(s) }

// loadRole loads a kernel file of testdata/kernel and returns its first
// trampoline of a role.
func loadRole(a *regs.Arch, file string, o harness.FileOptions, role string) (harness.Tramp, error) {
	f, err := harness.LoadFile(a, filepath.Join("testdata/kernel", file), o)
	if err != nil {
		return harness.Tramp{}, err
	}
	ts, err := f.Role(roleOf(role))
	if err != nil {
		return harness.Tramp{}, err
	}
	return ts[0], nil
}
