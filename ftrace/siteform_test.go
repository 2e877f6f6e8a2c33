package ftrace

import (
	"bytes"
	"testing"

	"trampemu/regs"
)

// TestSiteForms: every arch's usual form returns past MCOUNT_INSN_SIZE
// with rec->ip at the site; riscv64's v6.16 jalr-only form hands the
// callbacks the jalr (t0 - 4) and enables the site as make_call_t0 does;
// the ra-based v5.11-v6.2 site is 16 bytes (four NOP4 disabled; sd ra,
// auipc ra, jalr ra, ld ra enabled, the offset from the auipc), returns
// to the "ld ra" (12) and keeps the parent word below sp.
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
	if !o.HasForm("ra") {
		t.Fatal("the ra-based site is not modelled")
	}
	f := o.Form("ra")
	if f.Back() != 12 || f.RecIP != 0 || f.Keep != 8 || !f.LinkBelow || f.Define == "" {
		t.Errorf("ra: form %+v, want back 12, rec->ip the site, 8 bytes kept, the link below sp, a workload define", f)
	}
	if want := riscvWords(0x13, 0x13, 0x13, 0x13); !bytes.Equal(f.NopSite, want) {
		t.Errorf("ra: disabled site % x, want four NOP4 % x", f.NopSite, want)
	}
	// 0xffffffff80001000 + 4 -> 0xffffffff80000000: -0x1004 = auipc -1 page, jalr -4
	got, err := f.MakeCall(regs.RISCV64, 0xffffffff80001000, 0xffffffff80000000)
	if want := riscvWords(0xfe113c23, 0xfffff097, 0xffc080e7, 0xff813083); err != nil || !bytes.Equal(got, want) {
		t.Errorf("ra: enabled site % x (%v), want % x", got, err, want)
	}
}

// TestRISCV64DisableGraph: ftrace_disable_ftrace_graph_caller (v5.11-v6.7)
// turns the "call ftrace_stub" at ftrace_graph_call into two NOP4, and
// refuses anything that is not an ra-based call pair.
func TestRISCV64DisableGraph(t *testing.T) {
	o := MustOps(regs.RISCV64)
	w0, w1, err := RISCV64Call(0xffffffff80000040, 0xffffffff80000400, riscvRegRA)
	if err != nil {
		t.Fatal(err)
	}
	got, err := o.DisableGraph(regs.RISCV64, 0xffffffff80000040, riscvWords(w0, w1))
	if want := riscvWords(riscvNop4, riscvNop4); err != nil || !bytes.Equal(got, want) {
		t.Errorf("disabled % x (%v), want % x", got, err, want)
	}
	t0a, t0b, _ := RISCV64Call(0xffffffff80000040, 0xffffffff80000400, riscvRegT0)
	if _, err := o.DisableGraph(regs.RISCV64, 0xffffffff80000040, riscvWords(t0a, t0b)); err == nil {
		t.Error("a t0 pair was disabled, want an error")
	}
	for _, a := range regs.Arches {
		if a != regs.RISCV64 && MustOps(a).DisableGraph != nil {
			t.Errorf("%s: DisableGraph set (its graph branch is no call into another file)", a.Name)
		}
	}
}
