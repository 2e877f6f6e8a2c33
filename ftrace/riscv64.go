package ftrace

import (
	"errors"
	"fmt"

	"trampemu/regs"
)

// riscv64Ops: arch/riscv/kernel/ftrace.c and arch/riscv/include/asm/ftrace.h
// of v6.3-v6.15 (torvalds/linux@067d47c5e5f0 ftrace.c, @0604aa87b098
// ftrace.h; jackYoung0915/anolis-cloud-kernel@12decd5f5a0f ftrace.h for
// v6.11's WITH_ARGS). A traced function starts with the 8 bytes of
// -fpatchable-function-entry=4 (2-byte NOPs; =2 without C); the record is
// the function's address (ftrace_call_adjust is the identity), and
// ftrace_make_call / ftrace_make_nop write both words with
// patch_text_nosync: "auipc t0, hi; jalr t0, lo(t0)" (make_call_t0) or two
// NOP4. The trampoline is entered with t0 = the site + 8 and ra = the
// traced function's return address, and returns with "jr t0". The ops
// callback is the ra-based "call ftrace_stub" at ftrace_call that
// ftrace_update_ftrace_func rewrites (make_call_ra). The v6.16 jalr-only
// patching (b2137c3b6d7a: boot writes "auipc t0, hi(ftrace_caller)", the
// enable rewrites the jalr alone, rec->ip = the jalr) is the "jalr"
// SiteForm below.
var riscv64Ops = &ArchOps{
	Arch: regs.RISCV64,
	// ftrace_make_nop: two NOP4 (addi x0, x0, 0: 0x00000013).
	NopSite:  riscvWords(riscvNop4, riscvNop4),
	MakeCall: riscv64MakeCallT0,
	// ftrace_update_ftrace_func: the "call ftrace_stub" (auipc ra; jalr
	// ra) at ftrace_call gets the new callback, still ra-based
	// (__ftrace_modify_call(..., true): make_call_ra).
	ModifyCall: func(a *regs.Arch, site, target uint64, old []byte) ([]byte, error) {
		if len(old) < 8 || !riscvIsCallRA(a.ByteOrder.Uint32(old), a.ByteOrder.Uint32(old[4:])) {
			return nil, errors.New("not an auipc ra + jalr ra pair (the call the kernel patches at ftrace_call)")
		}
		w0, w1, err := RISCV64Call(site, target, riscvRegRA)
		return riscvWords(w0, w1), err
	},
	OldLen: 8,
	// ftrace_enable_ftrace_graph_caller (v5.11-v6.7, the ftrace_caller
	// without WITH_REGS/ARGS): the "call ftrace_stub" at ftrace_graph_call
	// becomes "call prepare_ftrace_return" (__ftrace_modify_call(
	// &ftrace_graph_call, prepare_ftrace_return, true)).
	GraphSite:   SymFtraceGraphCall,
	GraphTarget: SymPrepareFtraceRet,
	EnableGraph: func(a *regs.Arch, site, target uint64, old []byte) ([]byte, error) {
		if len(old) < 8 || !riscvIsCallRA(a.ByteOrder.Uint32(old), a.ByteOrder.Uint32(old[4:])) {
			return nil, errors.New("is not an auipc ra + jalr ra pair")
		}
		w0, w1, err := RISCV64Call(site, target, riscvRegRA)
		return riscvWords(w0, w1), err
	},
	GraphOldLen: 8,
	// ftrace_disable_ftrace_graph_caller (v5.11-v6.7): the call at
	// ftrace_graph_call (and ftrace_graph_regs_call) becomes two NOP4
	// (__ftrace_modify_call(..., false) writes "enable ? call : nops",
	// arch/riscv/kernel/ftrace.c v5.15, potatogeek/kernel-a34x-permissiver@
	// a1cd818d9681, and v6.3 torvalds/linux@067d47c5e5f0): what a kernel
	// whose graph tracer ran once and stopped runs; the booted "call
	// ftrace_stub" returns at once as well.
	DisableGraph: func(a *regs.Arch, site uint64, old []byte) ([]byte, error) {
		if len(old) < 8 || !riscvIsCallRA(a.ByteOrder.Uint32(old), a.ByteOrder.Uint32(old[4:])) {
			return nil, errors.New("is not an auipc ra + jalr ra pair")
		}
		return riscvWords(riscvNop4, riscvNop4), nil
	},
	// ftrace_enable_ftrace_graph_caller (v5.11-v6.7) rewrites
	// ftrace_graph_regs_call in ftrace_regs_caller the same way
	// (arch/riscv/kernel/ftrace.c v6.3, torvalds/linux@067d47c5e5f0).
	GraphAlsoSites: []string{"ftrace_graph_regs_call"},
	// The forms of the other eras (trampolines.CallSite): v6.16's
	// jalr-only patching (b2137c3b6d7a: boot writes "auipc t0,
	// hi(ftrace_caller)" + NOP4, enable and disable rewrite the jalr;
	// ftrace_call_adjust makes rec->ip the jalr, func + 4, which
	// mcount-dyn.S passes as "addi a0, t0, -MCOUNT_JALR_SIZE"; the enabled
	// bytes are those of make_call_t0, the disabled site is taken as two
	// NOP4: the booted auipc only writes t0, which carries nothing at
	// entry), and the series' draft (AndybnACT/linux-riscv@0413b9a60dc3
	// ftrace.c: jalr-only patching with rec->ip = the function,
	// ftrace_rec_set_ops at rec->ip - 8), which behaves as the t0 form;
	// and v5.11-v6.2's 16-byte ra-based site (riscv64RASite).
	UsualSite: "t0",
	SiteForms: map[string]*SiteForm{
		"ra":         riscv64RASite,
		"jalr":       {NopSite: riscvWords(riscvNop4, riscvNop4), MakeCall: riscv64MakeCallT0, RecIP: 4, Return: 8},
		"jalr-draft": {NopSite: riscvWords(riscvNop4, riscvNop4), MakeCall: riscv64MakeCallT0, RecIP: 0, Return: 8},
	},
	GraphFunc: riscv64GraphFunc,
	// arch/riscv/include/asm/ftrace.h: HAVE_FUNCTION_GRAPH_FP_TEST "if
	// defined(CONFIG_FUNCTION_GRAPH_TRACER) && defined(CONFIG_FRAME_POINTER)";
	// the distribution kernels the models describe build with frame
	// pointers (kernel/riscv64.go), so the shadow frame keeps s0 and
	// return_to_handler's s0 must match it.
	GraphFPTest: true,
	// A kprobe on an ftrace site runs kprobe_ftrace_handler, which takes
	// ftrace_get_regs(fregs) and returns when it is NULL
	// (arch/riscv/kernel/probes/ftrace.c); from v6.11 WITH_ARGS has no
	// WITH_REGS and arch_ftrace_get_regs is NULL (asm/ftrace.h): no
	// kprobe runs from the entry trampoline of the modelled eras.
	KprobesOnFtrace: false,
	// CALL_OPS (v6.16, the entries of the v6.16+ model): the ops pointer 8 bytes
	// before the function, ALIGN_DOWN(rec->ip - 12, 8) with rec->ip the
	// jalr at func + 4 (arch/riscv/kernel/ftrace.c
	// ftrace_rec_update_ops), what mcount-dyn.S loads as -16(t0).
	CallOpsLiteral: func(site uint64) uint64 { return site - 8 },
	PartialRegs:    riscv64PartialRegs,
	UserMode:       riscv64UserMode,
	// Kernel addresses are in the top half: top nibble 0xf, the generic
	// FPROBE_HEADER_MSB_PATTERN (kernel/trace/fprobe.c v6.14; riscv has no
	// asm/fprobe.h), and the v17 draft's pattern encodes them too.
	FprobeMergedPattern: 0xf << headerSizeShift,
	FprobeV17Encodable:  true,
	// arch/riscv/kernel/probes/rethook.c: arch_rethook_prepare records
	// regs->s0, arch_rethook_trampoline_callback passes it back.
	RethookFrame:    func(p *regs.Frame) (uint64, bool) { return p.Raw("s0") },
	RethookCallback: riscv64RethookCallback,
}

// riscv64RASite is the call site of v5.11-v6.2 (afc76b8b8011 to
// 6724a76cff85), arch/riscv/kernel/ftrace.c of v5.15
// (potatogeek/kernel-a34x-permissiver@a1cd818d9681, blob 7f1e5203de88):
// -fpatchable-function-entry=8 (=4 without C) leaves 16 bytes, which
// ftrace_make_nop fills with four NOP4 and ftrace_make_call with
// {INSN0, auipc ra, jalr ra, INSN3} (FUNC_ENTRY_SIZE 16), INSN0 =
// 0xfe113c23 "sd ra, -8(sp)", INSN3 = 0xff813083 "ld ra, -8(sp)", the
// offset taken from rec->ip + FUNC_ENTRY_JMP (4, the auipc). The
// trampoline is entered with ra = the site + 12 (mcount-dyn.S
// FENTRY_RA_OFFSET) and the parent in the word below sp, and returns
// with "ret" to the "ld ra", which reloads the parent from that word:
// Keep 8. The word survives an interrupt at the site or in the
// trampoline: handle_exception builds its pt_regs at sp -
// PT_SIZE_ON_STACK (288), whose last word, orig_a0 at sp - 8, only
// handle_syscall writes (arch/riscv/kernel/entry.S v5.15, same commit,
// blob 7e52ad5d61ad lines 35, 45, 192).
var riscv64RASite = &SiteForm{
	NopSite:   riscvWords(riscvNop4, riscvNop4, riscvNop4, riscvNop4),
	MakeCall:  riscv64MakeCallRA,
	RecIP:     0,
	Return:    12,
	Define:    "TRAMPEMU_RA_SITE",
	Keep:      8,
	LinkBelow: true,
}

// RV64 words of the ra-based site (arch/riscv/kernel/ftrace.c v5.11-v6.2).
const (
	riscvSdRA = 0xfe113c23 // INSN0: sd ra, -8(sp)
	riscvLdRA = 0xff813083 // INSN3: ld ra, -8(sp)
)

// riscv64MakeCallRA is ftrace_make_call of v5.11-v6.2: the 16-byte site.
func riscv64MakeCallRA(a *regs.Arch, site, target uint64) ([]byte, error) {
	w1, w2, err := RISCV64Call(site+4, target, riscvRegRA)
	return riscvWords(riscvSdRA, w1, w2, riscvLdRA), err
}

// riscv64MakeCallT0 is ftrace_make_call of v6.3+: make_call_t0 at the site.
func riscv64MakeCallT0(a *regs.Arch, site, target uint64) ([]byte, error) {
	w0, w1, err := RISCV64Call(site, target, riscvRegT0)
	return riscvWords(w0, w1), err
}

// RV64 encodings (arch/riscv/include/asm/ftrace.h v6.3+).
const (
	riscvNop4      = 0x00000013 // NOP4
	riscvAuipcT0   = 0x00000297 // AUIPC_T0
	riscvJalrT0    = 0x000282e7 // JALR_T0
	riscvAuipcRA   = 0x00000097 // AUIPC_RA
	riscvJalrRA    = 0x000080e7 // JALR_RA
	riscvJalrShift = 20         // JALR_SHIFT
	riscvRegT0     = 5
	riscvRegRA     = 1
)

func riscvWords(ws ...uint32) []byte {
	b := make([]byte, 4*len(ws))
	for i, w := range ws {
		regs.RISCV64.ByteOrder.PutUint32(b[4*i:], w)
	}
	return b
}

// riscvIsCallRA reports whether w0, w1 are "auipc ra, hi; jalr ra, lo(ra)".
func riscvIsCallRA(w0, w1 uint32) bool {
	return w0&0xfff == riscvAuipcRA && w1&0xfffff == riscvJalrRA
}

// RISCV64Call encodes the call from site to target through link (t0 = 5
// or ra = 1) as make_call_t0 / make_call_ra do: offset = target - site,
// auipc with the high 20 bits rounded by the sign of the low 12
// (to_auipc_*: + AUIPC_PAD when JALR_SIGN_MASK is set), jalr with the low
// 12. The kernel's unsigned int offset wraps outside +-2 GiB; the tool
// refuses it.
func RISCV64Call(site, target uint64, link int) (auipc, jalr uint32, err error) {
	off := int64(target - site)
	if off != int64(int32(off)) || off >= 1<<31-1<<11 {
		return 0, 0, fmt.Errorf("call from %#x to %#x: the offset %d is out of the +-2 GiB of auipc+jalr", site, target, off)
	}
	if off&3 != 0 {
		return 0, 0, fmt.Errorf("call from %#x to %#x: the offset %d is not a multiple of 4", site, target, off)
	}
	o := uint32(off)
	hi := o & 0xfffff000
	if o&0x800 != 0 {
		hi += 0x1000
	}
	opA, opJ := uint32(riscvAuipcT0), uint32(riscvJalrT0)
	if link == riscvRegRA {
		opA, opJ = riscvAuipcRA, riscvJalrRA
	}
	return hi | opA, (o&0xfff)<<riscvJalrShift | opJ, nil
}

// RISCV64DecodeCall decodes an "auipc rX, hi; jalr rX, lo(rX)" pair at pc:
// its target and link register; ok is false for anything else.
func RISCV64DecodeCall(pc uint64, w0, w1 uint32) (target uint64, link int, ok bool) {
	rd := int(w0 >> 7 & 31)
	if w0&0x7f != 0x17 || w1&0x707f != 0x67 || int(w1>>7&31) != rd || int(w1>>15&31) != rd || rd == 0 {
		return 0, 0, false
	}
	hi := int64(int32(w0 & 0xfffff000))
	lo := int64(int32(w1) >> 20)
	return pc + uint64(hi+lo), rd, true
}

// riscv64GraphFunc is ftrace_graph_func (arch/riscv/kernel/ftrace.c,
// v6.11+ with WITH_ARGS, analogdevicesinc/linux@9c9fe04e0fe3 for v6.16):
// parent = &fregs->ra, frame_pointer = fregs->s0; v6.11-v6.13
// prepare_ftrace_return(parent, ip, s0) calls function_graph_enter(old,
// ip, s0, parent), v6.14+ function_graph_enter_regs(old, ip, s0, parent,
// fregs) unless tracing_graph_pause; on 0 *parent = return_to_handler,
// which the entry's RESTORE_ABI_REGS loads into ra. The frame is filed
// under parent, the ra slot of the entry's frame.
func riscv64GraphFunc(k *Kernel, ip uint64, f *regs.Frame) {
	ret, ok1 := f.ReturnAddress()
	fp, ok2 := f.FramePointer()
	slot, ok3 := f.Layout.Slot("ra")
	if !ok1 || !ok2 || !ok3 {
		return
	}
	if k.Graph.Enter(ret, ip, fp, f.Base+uint64(slot.Off), f) {
		f.Set("ra", k.RTH)
	}
}

// riscv64PartialRegs is ftrace_partial_regs (arch/riscv/include/asm/ftrace.h,
// linux-riscv/linux@3818d86a651e, v6.16; reference riscv64.md
// "Accessors"): a0-a7, epc, ra, sp, s0 and t1 of fregs copied into the
// pt_regs a BPF or perf user gets. status, which user_mode() reads, is
// left as it was (as arm64's pstate before fd2f74f8f3d3): no riscv fix is
// modelled, fixed makes no difference.
func riscv64PartialRegs(k *Kernel, fregs *regs.Frame, _ bool) (*regs.Frame, error) {
	dst, err := k.PartialRegsBuffer()
	if err != nil {
		return nil, err
	}
	prev := fregs.Swap("ftrace_partial_regs")
	defer fregs.Swap(prev)
	dprev := dst.Swap("ftrace_partial_regs")
	defer dst.Swap(dprev)
	for _, n := range []string{"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "epc", "ra", "sp", "s0", "t1"} {
		v, _ := fregs.Get(n)
		dst.Set(n, v)
	}
	return dst, nil
}

// riscv64UserMode is user_mode(regs): (regs->status & SR_PP) == 0
// (arch/riscv/include/asm/ptrace.h; SR_PP is SR_SPP, 0x100, for an S-mode
// kernel, arch/riscv/include/asm/csr.h).
func riscv64UserMode(p *regs.Frame) (bool, bool) {
	v, ok := p.Get("status")
	return ok && v&0x100 == 0, ok
}

// riscv64RethookCallback is arch_rethook_trampoline_callback(regs)
// (arch/riscv/kernel/probes/rethook.c, v5.19+): return
// rethook_trampoline_handler(regs, regs->s0).
func riscv64RethookCallback(k *Kernel, p *regs.Frame) (uint64, bool, error) {
	frame, _ := p.Raw("s0")
	correct, err := k.Rethook.TrampolineHandler(p, frame)
	if err != nil {
		return 0, false, err
	}
	return correct, true, nil
}
