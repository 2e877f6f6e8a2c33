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

// regsCaller is each arch's entry variant that hands full pt_regs to its
// callbacks (arm64: the WITH_REGS ftrace_regs_caller of v6.0-v6.1; from
// v6.2 arm64 has no full-regs entry).
//
// riscv64: "" (none). The modelled eras are v6.11+, where
// DYNAMIC_FTRACE_WITH_ARGS replaced WITH_REGS (7caa9765465f) and
// arch_ftrace_get_regs returns NULL (arch/riscv/include/asm/ftrace.h):
// no entry hands full pt_regs over.
var regsCaller = map[string]string{"x86_64": "ftrace_regs_caller", "s390x": "ftrace_regs_caller", "arm64": "ftrace_regs_caller-v6.1", "riscv64": ""}

// partialCaller is each arch's entry variant whose callbacks get no full
// pt_regs from arch_ftrace_get_regs, with a kprobe-style user installed
// ("" on arm64: its WITH_REGS ftrace_caller sends such users through
// ftrace_regs_caller, and from v6.2 there are none; riscv64's WITH_ARGS
// ftrace_caller is its only entry, and a kprobe-style user gets NULL
// from it).
var partialCaller = map[string]string{"x86_64": "ftrace_caller", "s390x": "ftrace_caller", "arm64": "", "riscv64": "ftrace_caller"}

// directCaller is each arch's entry variant with the direct-call path
// (arm64: the v6.4+ ftrace_caller, FREGS_DIRECT_TRAMP; riscv64: the
// WITH_ARGS ftrace_caller, FREGS_T1).
var directCaller = map[string]string{"x86_64": "ftrace_regs_caller", "s390x": "ftrace_regs_caller", "arm64": "ftrace_caller", "riscv64": "ftrace_caller"}

// archVariant is the arch's entry of one of the maps above; a missing arch
// is fatal.
func archVariant(t testing.TB, m map[string]string, a *regs.Arch) string {
	t.Helper()
	v, ok := m[a.Name]
	if !ok {
		t.Fatalf("no entry variant for %s in the test's table", a.Name)
	}
	return v
}

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

// knownKinds are the kinds of the findings that are known kernel bugs.
func knownKinds(r check.Result) []check.Kind { return r.KindSet(check.Known) }

// caughtKinds are the kinds of the error and known-bug findings.
func caughtKinds(r check.Result) []check.Kind {
	return sortedKinds(append(errorKinds(r), knownKinds(r)...)...)
}

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
