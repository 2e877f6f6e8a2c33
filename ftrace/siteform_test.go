package ftrace

import (
	"bytes"
	"testing"

	"trampemu/regs"
)

// TestSiteForms: every arch's usual form returns past MCOUNT_INSN_SIZE
// with rec->ip at the site; riscv64's v6.16 jalr-only form hands the
// callbacks the jalr (t0 - 4) and enables the site as make_call_t0 does;
// the ra-based v5.11-v6.2 site is not modelled.
func TestSiteForms(t *testing.T) {
	for _, o := range archOps {
		f := o.Form("")
		if f.Return != uint64(o.Arch.McountInsnSize) || f.RecIP != 0 || f.Back() != uint64(o.Arch.McountInsnSize) || !bytes.Equal(f.NopSite, o.NopSite) {
			t.Errorf("%s: usual form %+v", o.Arch.Name, f)
		}
		if !o.HasForm("") || !o.HasForm(o.UsualSite) {
			t.Errorf("%s: the usual form is not modelled", o.Arch.Name)
		}
	}
	o := MustOps(regs.RISCV64)
	cases := []struct {
		name string
		back uint64
	}{{"jalr", 4}, {"jalr-draft", 8}, {"t0", 8}}
	for _, c := range cases {
		f := o.Form(c.name)
		if f.Back() != c.back {
			t.Errorf("%s: back %d, want %d", c.name, f.Back(), c.back)
		}
		want, _ := o.MakeCall(regs.RISCV64, 0xffffffff80001000, 0xffffffff80000000)
		got, err := f.MakeCall(regs.RISCV64, 0xffffffff80001000, 0xffffffff80000000)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: enabled site % x (%v), want make_call_t0's % x", c.name, got, err, want)
		}
	}
	if o.HasForm("ra") {
		t.Error("the ra-based site is modelled: give it a form test")
	}
}
