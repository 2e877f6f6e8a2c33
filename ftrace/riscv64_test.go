package ftrace

import (
	"encoding/binary"
	"testing"

	"trampemu/asm"
	"trampemu/regs"
)

// TestRISCV64CallEncoding: make_call_t0 / make_call_ra of
// arch/riscv/include/asm/ftrace.h, checked by hand-computed words and by
// the project's disassembler reading them back.
func TestRISCV64CallEncoding(t *testing.T) {
	const site = 0xffffffff80001000
	cases := []struct {
		target     uint64
		link       int
		auipc, jal uint32
	}{
		{site, riscvRegT0, 0x00000297, 0x000282e7},               // auipc t0,0; jalr t0,0(t0)
		{site + 0x7fc, riscvRegT0, 0x00000297, 0x7fc282e7},       // lo 0x7fc, no pad
		{site + 0x800, riscvRegT0, 0x00001297, 0x800282e7},       // JALR_SIGN_MASK: hi + AUIPC_PAD, lo -2048
		{site - 8, riscvRegRA, 0x00000097, 0xff8080e7},           // auipc ra,0; jalr ra,-8(ra)
		{site + 0x12345678, riscvRegRA, 0x12345097, 0x678080e7},  // hi 0x12345, lo 0x678
		{site - 0x12345678, riscvRegT0, 0xedcbb297, 0x988282e7},  // negative: hi rounded up by the pad
		{0xffffffff80f00000, riscvRegT0, 0x00eff297, 0x000282e7}, // to the stubs
	}
	dis := asm.NewDisassembler(regs.RISCV64, nil)
	for _, c := range cases {
		a, j, err := RISCV64Call(site, c.target, c.link)
		if err != nil || a != c.auipc || j != c.jal {
			t.Errorf("call %#x -> %#x link x%d = %#08x %#08x, %v; want %#08x %#08x", uint64(site), c.target, c.link, a, j, err, c.auipc, c.jal)
			continue
		}
		got, link, ok := RISCV64DecodeCall(site, a, j)
		if !ok || got != c.target || link != c.link {
			t.Errorf("decode %#08x %#08x = %#x x%d %v, want %#x x%d", a, j, got, link, ok, c.target, c.link)
		}
		b := binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, a), j)
		in0, err0 := dis.Decode(b, site)
		in1, err1 := dis.Decode(b[4:], site+4)
		if err0 != nil || err1 != nil || in0.Op != "auipc" || in1.Op != "jalr" || in1.Flow != asm.FlowIndirectCall {
			t.Errorf("disassembled as %q %q (%v %v)", in0.Text, in1.Text, err0, err1)
		}
	}
	for _, bad := range []uint64{site - 1<<32, 0x1000, site + 2} {
		if _, _, err := RISCV64Call(site, bad, riscvRegT0); err == nil {
			t.Errorf("call to %#x accepted", bad)
		}
	}
	// The enabled and disabled sites and the ftrace_call re-encode.
	nop := riscv64Ops.NopSite
	if len(nop) != regs.RISCV64.McountInsnSize || binary.LittleEndian.Uint32(nop) != riscvNop4 {
		t.Errorf("nop site % x", nop)
	}
	old := riscvWords(0x00000097, 0x000080e7)
	if _, err := riscv64Ops.ModifyCall(regs.RISCV64, site, site+64, old); err != nil {
		t.Errorf("ModifyCall on a call ra pair: %v", err)
	}
	if _, err := riscv64Ops.ModifyCall(regs.RISCV64, site, site+64, riscvWords(0x00000297, 0x000282e7)); err == nil {
		t.Error("ModifyCall accepted a t0 pair at ftrace_call")
	}
	if got := riscv64Ops.CallOpsLiteral(site); got != site-8 {
		t.Errorf("CALL_OPS literal %#x, want the function - 8", got)
	}
}

// FuzzRISCV64Call: every encodable call decodes back to its target and
// link register, and the disassembler reads auipc + jalr.
func FuzzRISCV64Call(f *testing.F) {
	f.Add(uint64(0xffffffff80001000), uint64(0xffffffff80f00000), true)
	f.Add(uint64(0xffffffff80001000), uint64(0xffffffff80000800), false)
	f.Add(uint64(0), uint64(0x7ffff000), true)
	f.Fuzz(func(t *testing.T, site, target uint64, t0 bool) {
		link := riscvRegRA
		if t0 {
			link = riscvRegT0
		}
		a, j, err := RISCV64Call(site, target, link)
		if err != nil {
			return
		}
		got, l, ok := RISCV64DecodeCall(site, a, j)
		if !ok || got != target || l != link {
			t.Fatalf("call %#x -> %#x: decoded %#x x%d %v", site, target, got, l, ok)
		}
	})
}
