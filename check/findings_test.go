package check

import (
	"fmt"
	"testing"
)

// TestFindingsHelpers: a finding's one-line form and the result's queries.
func TestFindingsHelpers(t *testing.T) {
	for f, want := range map[Finding]string{
		{Kind: StaleRead, Slot: "R10", Message: "m"}:                   "stale-read R10: m",
		{Kind: Clobber, Register: "rbx", Message: "m"}:                 "clobber %rbx: m",
		{Kind: WrongValue, Slot: "RIP", Register: "rax", Message: "m"}: "wrong-value RIP %rax: m",
		{Kind: Control, Message: "m"}:                                  "control: m",
	} {
		if got := f.String(); got != want {
			t.Errorf("String() = %q, want %q", got, want)
		}
	}
	var col collector
	col.add(UnusedStore, "R9", "", "unused", "")
	col.add(StaleRead, "R10", "", "stale", "")
	col.add(StaleRead, "R11", "", "stale 11", "")
	col.add(Volatile, "", "", "volatile", "")
	col.add(Clobber, "", "rbx", "clobbered", "ex")
	r := Result{Findings: col.findings()}
	if r.Errors() != 3 || col.errs != 3 {
		t.Errorf("errors %d (collector %d), want 3", r.Errors(), col.errs)
	}
	for _, c := range []struct {
		k    Kind
		slot string
		want bool
	}{{StaleRead, "", true}, {StaleRead, "R11", true}, {StaleRead, "R9", false}, {UnusedStore, "R9", true}, {Fault, "", false}} {
		if got := r.Has(c.k, c.slot); got != c.want {
			t.Errorf("Has(%s, %q) = %v, want %v", c.k, c.slot, got, c.want)
		}
	}
	for sev, want := range map[string]string{"": "[clobber stale-read unused-store volatile]", Error: "[clobber stale-read]", Info: "[unused-store volatile]"} {
		if got := fmt.Sprint(r.KindSet(sev)); got != want {
			t.Errorf("KindSet(%q) = %s, want %s", sev, got, want)
		}
	}
	// Errors first, in Kinds order; the same key adds to the count.
	col.add(StaleRead, "R10", "", "stale", "another example")
	fs := col.findings()
	if fs[0].Kind != Clobber || fs[0].Message != "clobbered (first seen: ex)" || fs[1].Count != 2 || fs[1].Message != "stale" || fs[len(fs)-1].Kind != Volatile {
		t.Errorf("findings %v", fs)
	}
}
