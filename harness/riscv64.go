package harness

import (
	"trampemu/ftrace"
	"trampemu/regs"
)

// riscv64 interrupts, unwinding and frame records.
//
// An interrupt or exception taken in S-mode stays on the current kernel
// stack: handle_exception saves a pt_regs (PT_SIZE_ON_STACK, 288 bytes)
// below the interrupted sp (arch/riscv/kernel/entry.S); the C handlers'
// frames follow below. The psABI has no red zone and the kernel keeps
// nothing below sp: the interrupt model poisons below sp as on the other
// arches (InterruptDepth covers 288), but for the word at sp - 8 the
// v5.11-v6.2 call site keeps its parent in: that is the pt_regs' orig_a0,
// which only handle_syscall writes (entry.S v5.15; ftrace.SiteForm.Keep).
//
// The unwinder follows frame records from s0 (arch/riscv/kernel/stacktrace.c
// walk_stackframe, torvalds/linux@0604aa87b098, and
// arch/riscv/include/asm/stacktrace.h @2e60c498a4a3): from an exception
// boundary pc = regs->epc, fp = regs->s0, sp = regs->sp; each record is
// (struct stackframe *)fp - 1 = {fp, ra} (the caller's s0 at fp - 16, the
// return address at fp - 8); fp must be 8-aligned and at least sp + 16
// (the walk moves sp to fp); the next pc is ftrace_graph_ret_addr(current,
// &graph_idx, frame->ra, &frame->ra). When the first record's ra slot
// holds a valid frame pointer at the interrupted pc (a leaf that saved
// only s0), the walk takes fp = that word and pc = regs->ra instead. The
// entry trampolines build no record for the traced function (its
// prologue has not run): the traced function's caller is then only in ra
// and fregs->ra, which the unwinder does not read.
//
// The driver's s0 points just above a record {0, 0} 16 bytes above its
// stack arguments, which ends every chain (a zero ra is no kernel text).
// riscvT0 is t0's index: the t0-based site's return address.
var riscvT0 = regs.RISCV64.MustReg("t0")

func init() {
	harnessArches[regs.RISCV64.Name] = &harnessArch{
		unwind: unwinder{found: riscv64Found, caller: riscv64Caller},
		// prepare_ftrace_return(parent, self_addr, frame_pointer)
		// (arch/riscv/kernel/ftrace.c v5.11-v6.7), the old graph path's
		// form; the registry's entries go through ftrace_graph_func.
		prepareABI: ftrace.PrepareParentIPFP,
		// callee_saved sums x..10x in s1-s10.
		calleeSavedSum: 55,
		chain:          riscv64FrameRecords,
		retWalk:        riscv64RetWalk,
		driverFrame: func(h *Harness) {
			r := riscv64DriverRecord(h)
			h.M.WriteWord(r-16, 0)
			h.M.WriteWord(r-8, 0)
		},
		callRegs:     func(h *Harness, in *regs.RegFile) { in[h.Arch.FP] = riscv64DriverRecord(h) },
		driverRecord: riscv64DriverRecord,
		// auipc t0; jalr t0: t0 = the site + 8, where "jr t0" goes; the
		// v5.11-v6.2 "auipc ra; jalr ra": ra = the site + 12, where
		// "ret" goes (the "ld ra" of the site).
		entryRet: func(h *Harness, inv *Invocation) uint64 {
			if h.form.LinkBelow {
				return inv.Before[h.Arch.Link]
			}
			return inv.Before[riscvT0]
		},
		// The entry reloads ra from fregs->ra (FREGS_RA), where
		// ftrace_graph_func puts return_to_handler.
		linkSlot: "ra",
	}
}

// riscv64DriverRecord is the frame pointer of the driver's record: its
// {fp, ra} sit above the two stack-argument words the checked driver
// stores at its sp.
func riscv64DriverRecord(h *Harness) uint64 { return h.driverSP + 32 }

// riscv64Caller: ra at entry (the call site's auipc t0/jalr t0 leaves it),
// filed by ftrace_graph_func under &fregs->ra, the ra slot of the entry's
// struct __arch_ftrace_regs below the entry sp (FREGS_SIZE_ON_STACK of
// v6.11+, 160 for v6.16's under CONFIG_CC_IS_CLANG; the entry's form,
// Tramp.FrameLayout).
//
// The older entries keep it elsewhere below the entry sp: the v6.3-v6.7
// ftrace_caller in its 80-byte ABI block at ABI_RA = 72 (SAVE_ABI,
// arch/riscv/kernel/mcount-dyn.S, fusaty/freax@d02cfbb5ae56), where the
// patched ftrace_graph_call hands prepare_ftrace_return "addi a0, sp,
// ABI_RA"; the pt_regs entries (ftrace_regs_caller of v6.3-v6.10, both
// of v6.8-v6.10) at PT_RA of their PT_SIZE_ON_STACK frame.
//
// Reached from the v5.11-v6.2 ra-based site, the parent is the word the
// site stored at the entry sp - 8 (Invocation.SiteLink puts it in
// Before's ra), which ftrace_caller's block ends on ("addi a0, sp,
// ABI_SIZE_ON_STACK" after lowering sp by 8 + 72) and which
// ftrace_regs_caller copies to PT_RA of its pt_regs at the entry sp - 8 -
// PT_SIZE_ON_STACK, handing prepare_ftrace_return "addi a0, sp, PT_RA"
// (potatogeek/kernel-a34x-permissiver@a1cd818d9681 mcount-dyn.S, v5.15).
func riscv64Caller(h *Harness, inv *Invocation) (uint64, uint64) {
	a := h.Arch
	sp := inv.Before[a.SP]
	if inv.SiteLink {
		if h.entryNoRegs {
			return inv.Before[a.Link], sp - 8
		}
		return inv.Before[a.Link], sp - 8 - regs.RISCV64PtRegsSize + uint64(a.PtRegs.MustSlot("ra").Off)
	}
	switch e := h.Setup.Entry; {
	case h.entryNoRegs:
		const abiSize, abiRA = 80, 72
		return inv.Before[a.Link], sp - abiSize + abiRA
	case e.PtRegs():
		return inv.Before[a.Link], sp - regs.RISCV64PtRegsSize + uint64(a.PtRegs.MustSlot("ra").Off)
	}
	f := h.K.EntryFrame
	return inv.Before[a.Link], sp - uint64(regs.RISCV64FregsOnStack(f)) + uint64(f.MustSlot("ra").Off)
}

// riscv64Found: the interrupted pc (translated when it is
// return_to_handler itself), then the return addresses of the frame
// records from s0, as walk_stackframe reads them.
func riscv64Found(h *Harness, inv *Invocation, r *regs.RegFile, out []uint64) []uint64 {
	a := h.Arch
	pc, fp, sp := r[a.PC], r[a.FP], r[a.SP]
	out = append(out, h.graphRetAddr(pc, 0))
	first := true
	for i := 0; i < 256; i++ {
		if fp%8 != 0 || fp < sp+16 || !a.Memory.Stack.Contains(fp-16) {
			break
		}
		b := h.M.Mem(fp-16, 16)
		if b == nil {
			break
		}
		next, ra := a.Word(b), a.Word(b[8:])
		sp = fp
		if first && next != 0 && ra%8 == 0 && ra >= sp+16 && a.Memory.Stack.Contains(ra) {
			// the leaf test: the ra slot holds a frame pointer
			fp, pc = ra, r[a.Link]
		} else {
			fp, pc = next, h.graphRetAddr(ra, fp-8)
		}
		first = false
		if pc == 0 {
			break // the driver's final record
		}
		out = append(out, pc)
	}
	return out
}

// riscv64FrameRecords walks the frame records from s0 at a host call into
// out as pairs (frameRecords): riscv's record {fp, ra} sits 16 bytes
// below the frame pointer.
func riscv64FrameRecords(h *Harness, out []uint64, loads []Access, r *regs.RegFile) ([]uint64, []Access) {
	return frameRecords(h, out, loads, r[h.Arch.FP], -16)
}

// riscv64RetWalk is bpf_get_stackid from a return probe on riscv64
// (perf_callchain_kernel -> walk_stackframe(NULL, regs, ...),
// arch/riscv/kernel/perf_callchain.c and stacktrace.c v6.x: pc =
// instruction_pointer(regs) (epc), fp = frame_pointer(regs) (s0), sp =
// user_stack_pointer(regs) (sp), and regs->ra for the leaf test; then the
// frame records from s0, as riscv64Found walks them) from
// ftrace_partial_regs of return_to_handler's ftrace_regs. The true chain
// is the same walk from the real return address with the s0, sp and ra
// the traced function's caller had when the traced function returned (the
// exit trampoline's entry registers). A tail call's return into
// return_to_handler itself has no true chain (Want empty).
func riscv64RetWalk(h *Harness, inv *Invocation, pt *regs.Frame) StackWalk {
	a := h.Arch
	const maxDepth = 127 // PERF_MAX_STACK_DEPTH, include/uapi/linux/perf_event.h
	acc := pt.Layout.Accessors
	var r regs.RegFile
	r[a.PC], _ = pt.Get(acc.IP)
	r[a.FP], _ = pt.Get(acc.FP)
	r[a.SP], _ = pt.Get(acc.SP)
	r[a.Link], _ = pt.Get("ra")
	w := StackWalk{Got: riscv64Found(h, inv, &r, nil)}
	if r[a.PC] != h.rth {
		for _, reg := range []int{a.FP, a.SP, a.Link} {
			r[reg] = inv.Before[reg]
		}
		w.Want = riscv64Found(h, inv, &r, nil)
	}
	w.Got, w.Want = w.Got[:min(len(w.Got), maxDepth)], w.Want[:min(len(w.Want), maxDepth)]
	return w
}
