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
	// The top of the range: from 2^31 - 2^11 on, the low 12 bits' sign
	// would carry the high 20 bits past the top of auipc's immediate.
	const top = 1<<31 - 1<<11
	at := uint64(site)
	for _, ok := range []uint64{at + top - 4, at - 1<<31} {
		a, j, err := RISCV64Call(site, ok, riscvRegT0)
		if got, _, dok := RISCV64DecodeCall(site, a, j); err != nil || !dok || got != ok {
			t.Errorf("call to site%+d: %v, decodes to %#x %v", int64(ok-site), err, got, dok)
		}
	}
	for _, bad := range []uint64{site - 1<<32, 0x1000, site + 2, at + top, at + 1<<31} {
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

// TestRISCV64GraphFunc: ftrace_graph_func hooks fregs->ra and files the
// frame under &fregs->ra, the parent pointer it hands function_graph_enter
// (arch/riscv/kernel/ftrace.c, v6.11+): the unwinder's
// ftrace_graph_ret_addr finds the real return address there.
func TestRISCV64GraphFunc(t *testing.T) {
	a := regs.RISCV64
	dk := newDispatchKernel(t, a, DispatchMerged)
	if err := dk.k.Graph.Register(&GraphOps{Name: "all", EntryFunc: accept}); err != nil {
		t.Fatal(err)
	}
	const ip, ret, fp = 0xffffffff80001004, 0xffffffff80005678, 0xffffffd68803ff00
	f := dk.k.Frame(dk.fregs, a.Frame)
	f.Set("ra", ret)
	f.Set("s0", fp)
	dk.k.Ftrace.Dispatch(ip, ret, f)
	parent := f.Base + uint64(a.Frame.MustSlot("ra").Off)
	frames, err := dk.k.Graph.Frames()
	if err != nil || len(frames) != 1 || frames[0].Ret != ret || frames[0].Retp != parent {
		t.Fatalf("shadow stack %+v, %v; want one frame {ret %#x, retp &fregs->ra %#x}", frames, err, uint64(ret), parent)
	}
	if ra, _ := f.Get("ra"); ra != dk.k.RTH {
		t.Errorf("fregs->ra = %#x, want return_to_handler", ra)
	}
	if got := dk.k.Graph.RetAddr(new(int), dk.k.RTH, parent); got != ret {
		t.Errorf("ftrace_graph_ret_addr at &fregs->ra = %#x, want %#x", got, uint64(ret))
	}
}
