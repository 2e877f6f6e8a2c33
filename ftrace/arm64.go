package ftrace

import (
	"errors"
	"fmt"

	"trampemu/regs"
)

// arm64Ops: arch/arm64/kernel/ftrace.c (v6.14; v5.10 for the graph caller
// branch). A traced function starts with the two NOPs of
// -fpatchable-function-entry=2; ftrace_init_nop makes the first
// "mov x9, x30" for good and the record (rec->ip, ftrace_call_adjust) is
// the second, which ftrace_make_call / ftrace_make_nop switch between
// "bl <entry>" and a NOP. The ops callback is a patched "bl" at ftrace_call
// (WITH_REGS and WITH_ARGS without CALL_OPS) or op->func called through
// the call site's ops literal (CALL_OPS, v6.3+).
var arm64Ops = &ArchOps{
	Arch: regs.ARM64,
	// aarch64_insn_gen_nop: hint #0, "nop" (arch/arm64/include/asm/insn.h,
	// AARCH64_INSN_HINT_NOP).
	NopSite: arm64Word(arm64Nop),
	// The record is the BL after the "mov x9, x30" slot: entry + 4, or
	// entry + 8 when CONFIG_ARM64_BTI_KERNEL puts a "bti c" first
	// (arch/arm64/kernel/ftrace.c ftrace_call_adjust, v6.3+: it skips the
	// BTI, then the MOV).
	SiteOffsets: []uint64{regs.ARM64InsnSize, 2 * regs.ARM64InsnSize},
	// v4.19-v5.4 (-pg): the record is the "bl _mcount" itself
	// (ftrace_call_adjust returns addr, arch/arm64/include/asm/ftrace.h
	// v5.0), after the prologue: 8 instructions into the workloads'
	// functions (trampolines/workloads/arm64.S, TRAMPEMU_PG_SITE), 9 after
	// a "bti c".
	PgSiteOffsets: []uint64{8 * regs.ARM64InsnSize, 9 * regs.ARM64InsnSize},
	MakeCall: func(a *regs.Arch, site, target uint64) ([]byte, error) {
		w, err := ARM64Branch(site, target, true)
		return arm64Word(w), err
	},
	// ftrace_update_ftrace_func: the "bl ftrace_stub" at ftrace_call gets
	// the new callback, still a BL.
	ModifyCall: func(a *regs.Arch, site, target uint64, old []byte) ([]byte, error) {
		if len(old) < 4 || !arm64IsBL(a.ByteOrder.Uint32(old)) {
			return nil, errors.New("not a bl (0x94000000 | imm26): the tool patches it like the kernel does")
		}
		w, err := ARM64Branch(site, target, true)
		return arm64Word(w), err
	},
	OldLen: 4,
	// ftrace_update_ftrace_func (v5.0): "bl func" over the NOP at
	// ftrace_call, unvalidated (ftrace_modify_code(pc, 0, new, false)).
	PgModifyCall: func(a *regs.Arch, site, target uint64, old []byte) ([]byte, error) {
		if len(old) < 4 || (a.ByteOrder.Uint32(old) != arm64Nop && !arm64IsBL(a.ByteOrder.Uint32(old))) {
			return nil, errors.New("is neither a nop nor a bl: the -pg ftrace_call is a nop the kernel makes a bl")
		}
		w, err := ARM64Branch(site, target, true)
		return arm64Word(w), err
	},
	// ftrace_modify_graph_caller (<= v5.19): the NOP at ftrace_graph_call
	// becomes "b ftrace_graph_caller".
	GraphSite:   SymFtraceGraphCall,
	GraphTarget: SymFtraceGraphCaller,
	EnableGraph: func(a *regs.Arch, site, target uint64, old []byte) ([]byte, error) {
		if len(old) < 4 || a.ByteOrder.Uint32(old) != arm64Nop {
			return nil, errors.New("is not a nop (d503201f)")
		}
		w, err := ARM64Branch(site, target, false)
		return arm64Word(w), err
	},
	GraphOldLen: 4,
	GraphFunc:   arm64GraphFunc,
	// arch/arm64/include/asm/ftrace.h: #define HAVE_FUNCTION_GRAPH_FP_TEST.
	GraphFPTest:    true,
	PrepareRetp:    func(_, fp uint64) uint64 { return fp },
	CallOpsLiteral: ARM64CallOpsLiteral,
	// arch/arm64/Kconfig selects no HAVE_KPROBES_ON_FTRACE (v5.5-v6.19).
	KprobesOnFtrace: false,
	PartialRegs:     arm64PartialRegs,
	UserMode:        arm64UserMode,
	// Kernel addresses are in the top half (the linear map from
	// 0xffff000000000000, arch/arm64/include/asm/memory.h): top nibble 0xf,
	// FPROBE_HEADER_MSB_PATTERN 0xf << 60 as on x86-64
	// (arch/arm64/include/asm/fprobe.h, v6.14+), and the v17 draft's
	// pattern encodes them too.
	FprobeMergedPattern: 0xf << headerSizeShift,
	FprobeV17Encodable:  true,
	RethookFrame:        func(p *regs.Frame) (uint64, bool) { return p.Raw("fp") },
	RethookCallback:     arm64RethookCallback,
}

// A64 encodings (Arm ARM, "B", "BL", "HINT"; arch/arm64/kernel/insn.c
// aarch64_insn_gen_branch_imm).
const (
	arm64Nop    = 0xd503201f
	arm64BOp    = 0x14000000
	arm64BLOp   = 0x94000000
	arm64BMask  = 0xfc000000
	arm64Imm26  = 0x03ffffff
	arm64BRange = 128 << 20 // SZ_128M: imm26 words either way
)

func arm64Word(w uint32) []byte {
	b := make([]byte, 4)
	regs.ARM64.ByteOrder.PutUint32(b, w)
	return b
}

func arm64IsBL(w uint32) bool { return w&arm64BMask == arm64BLOp }

// ARM64Branch encodes "bl target" (link) or "b target" at pc, as
// aarch64_insn_gen_branch_imm does: the offset must be a multiple of 4 in
// [-128 MiB, +128 MiB).
func ARM64Branch(pc, target uint64, link bool) (uint32, error) {
	off := int64(target - pc)
	if off&3 != 0 {
		return 0, fmt.Errorf("branch from %#x to %#x: the offset %d is not a multiple of 4", pc, target, off)
	}
	if off < -arm64BRange || off >= arm64BRange {
		return 0, fmt.Errorf("branch from %#x to %#x: the offset %d is out of the +-128 MiB of imm26", pc, target, off)
	}
	op := uint32(arm64BOp)
	if link {
		op = arm64BLOp
	}
	return op | uint32(off>>2)&arm64Imm26, nil
}

// ARM64DecodeBranch decodes "b"/"bl" at pc: its target and whether it
// links; ok is false for any other instruction.
func ARM64DecodeBranch(pc uint64, w uint32) (target uint64, link, ok bool) {
	switch w & arm64BMask {
	case arm64BOp, arm64BLOp:
	default:
		return 0, false, false
	}
	off := int64(int32(w<<6) >> 6) // sign-extend imm26
	return pc + uint64(off*4), w&arm64BMask == arm64BLOp, true
}

// ARM64CallOpsLiteral is where ftrace_caller finds the ops of the call
// site whose BL is at site with DYNAMIC_FTRACE_WITH_CALL_OPS: the 8-byte
// literal at ALIGN_DOWN(site - 12, 8), 12 bytes before the BL, or 16 after
// a "bti c" (arch/arm64/kernel/ftrace.c ftrace_rec_update_ops and
// ftrace_call_adjust, v6.3+; the entry's "bic x11, x30, #7; ldr x11,
// [x11, #-16]"). The kernel writes &ftrace_nop_ops, the single ops of the
// site or &ftrace_list_ops there.
func ARM64CallOpsLiteral(site uint64) uint64 { return (site - 12) &^ 7 }

// arm64GraphFunc is ftrace_graph_func (arch/arm64/kernel/ftrace.c): the
// hijacked slot is fregs->lr, the frame is filed under the call site's
// frame pointer, which return_to_handler's x29 matches
// (HAVE_FUNCTION_GRAPH_FP_TEST): v6.2-v6.13 prepare_ftrace_return(ip,
// &fregs->lr, fregs->fp) calls function_graph_enter(*parent, ip, fp,
// (void *)fp); v6.14+ (kernel-patches/bpf@0095d40cce90) calls
// function_graph_enter_regs(*parent, ip, fp, (void *)fp, fregs) unless
// tracing_graph_pause; on 0 the slot becomes return_to_handler. The
// WITH_REGS form (v6.0-v6.1) does the same through the pt_regs
// (procedure_link_pointer = regs[30], frame_pointer = regs[29]), whose
// slots have the same names.
func arm64GraphFunc(k *Kernel, ip uint64, f *regs.Frame) {
	ret, ok1 := f.ReturnAddress()
	fp, ok2 := f.FramePointer()
	if !ok1 || !ok2 {
		return
	}
	if k.Graph.Enter(ret, ip, fp, fp, f) {
		f.Set("lr", k.RTH)
	}
}

// arm64PartialRegs is ftrace_partial_regs (arch/arm64/include/asm/ftrace.h,
// v6.14+; shared/reference/arm64.md "Accessors", "Fixes"): what a BPF or
// perf user gets as pt_regs from an fprobe's ftrace_regs: regs[0..8],
// sp, pc, regs[29] = fp, regs[30] = lr. pstate was left as it was, so a
// zeroed buffer said EL0 and user_mode() held: bpf_get_stackid returned
// -EFAULT. fd2f74f8f3d3 (2025, 6.17-stable; Fixes b9b55c8912ce) sets it to
// PSR_MODE_EL1h; fixed selects that version.
func arm64PartialRegs(k *Kernel, fregs *regs.Frame, fixed bool) (*regs.Frame, error) {
	dst, err := k.PartialRegsBuffer()
	if err != nil {
		return nil, err
	}
	prev := fregs.Swap("ftrace_partial_regs")
	defer fregs.Swap(prev)
	dprev := dst.Swap("ftrace_partial_regs")
	defer dst.Swap(dprev)
	for i := 0; i <= 8; i++ {
		n := fmt.Sprintf("x%d", i)
		v, _ := fregs.Get(n)
		dst.Set(n, v)
	}
	for _, n := range []string{"sp", "pc", "fp", "lr"} {
		v, _ := fregs.Get(n)
		dst.Set(n, v)
	}
	if fixed {
		dst.Set("pstate", regs.ARM64PstateEL1h)
	}
	return dst, nil
}

// arm64UserMode is user_mode(regs): (pstate & PSR_MODE_MASK) ==
// PSR_MODE_EL0t (arch/arm64/include/asm/ptrace.h; PSR_MODE_MASK 0xf,
// PSR_MODE_EL0t 0, arch/arm64/include/uapi/asm/ptrace.h).
func arm64UserMode(p *regs.Frame) (bool, bool) {
	v, ok := p.Get("pstate")
	return ok && v&0xf == 0, ok
}

// arm64RethookCallback is arch_rethook_trampoline_callback(regs)
// (arch/arm64/kernel/rethook.c, v5.19+): return
// rethook_trampoline_handler(regs, regs->regs[29]); the trampoline moves the
// returned real address into lr (arm64 has no arch_rethook_fixup_return).
func arm64RethookCallback(k *Kernel, p *regs.Frame) (uint64, bool, error) {
	frame, _ := p.Raw("fp")
	correct, err := k.Rethook.TrampolineHandler(p, frame)
	if err != nil {
		return 0, false, err
	}
	return correct, true, nil
}
