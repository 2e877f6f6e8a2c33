package harness

import (
	"trampemu/ftrace"
	"trampemu/regs"
)

// arm64 interrupts, unwinding and frame records.
//
// An IRQ or exception taken at EL1 stays on the current stack: the vector
// does "sub sp, sp, #PT_REGS_SIZE" from the interrupted sp and kernel_entry
// saves pt_regs there, with the frame record {x29, elr} in
// pt_regs.stackframe (arch/arm64/kernel/entry.S, v5.10..v6.x); the C
// handlers' frames follow below. AAPCS64 has no red zone and the kernel
// keeps nothing below sp: the interrupt model poisons below sp as on the
// other arches (InterruptDepth covers PT_REGS_SIZE, 336).
//
// The unwinder follows frame records (arch/arm64/kernel/stacktrace.c, v6.x:
// kunwind_next_frame_record): from an exception boundary it takes pc =
// regs->pc and fp = regs->regs[29], then at each fp the record {next fp,
// lr}: lr is the next return address, translated when it is
// return_to_handler by ftrace_graph_ret_addr(task, &graph_idx, pc, (void
// *)fp) with the next fp (kunwind_recover_return_address), the retp the
// graph entry files the return under (arch/arm64/kernel/ftrace.c:
// prepare_ftrace_return / ftrace_graph_func pass frame_pointer as retp).
// regs->regs[30] is never read: a return address only in x30 or x9 is
// lost, which is why entry-ftrace.S builds two frame records (the traced
// function's {x29, x9} and its own {x29, x30}) before calling C.
//
// The driver's x29 points to a frame record {0, 0} 16 bytes above its sp,
// which ends every chain (kunwind: a zero fp is the end of the stack).
func init() {
	harnessArches[regs.ARM64.Name] = &harnessArch{
		unwind: unwinder{found: arm64Found, caller: arm64Caller},
		// trampolines/arm64/ftrace_regs_v5.10.S ftrace_graph_caller:
		// prepare_ftrace_return(ip, &the saved lr, the call site's fp), the
		// form of v5.5..v5.19 (arch/arm64/kernel/ftrace.c).
		prepareABI: ftrace.PrepareIPParentFP,
		// callee_saved sums x..10x in x19-x28.
		calleeSavedSum: 55,
		chain:          arm64FrameRecords,
		retWalk:        arm64RetWalk,
		driverFrame: func(h *Harness) {
			r := arm64DriverRecord(h)
			h.M.WriteWord(r, 0)
			h.M.WriteWord(r+8, 0)
		},
		callRegs:     func(h *Harness, in *regs.RegFile) { in[h.Arch.FP] = arm64DriverRecord(h) },
		driverRecord: arm64DriverRecord,
		// mov x9, x30; bl ftrace_caller: x30 = the bl + 4.
		entryRet: func(h *Harness, inv *Invocation) uint64 { return inv.Before[h.Arch.Link] },
		// The entry reloads x30 from ftrace_regs.lr (FREGS_LR) / pt_regs
		// regs[30] (S_LR), where the graph entry puts return_to_handler.
		linkSlot: "lr",
	}
}

// arm64DriverRecord is the address of the driver's frame record: above the
// two stack-argument words the checked driver stores at its sp.
func arm64DriverRecord(h *Harness) uint64 { return h.driverSP + 16 }

// arm64Caller: x9 at entry (the call site's mov x9, x30), filed under the
// call site's frame pointer (the graph entry's retp).
// From a -pg call site (v4.19-v5.4) the traced function's frame record
// holds them: {its caller's fp, its lr}.
func arm64Caller(h *Harness, inv *Invocation) (uint64, uint64) {
	a := h.Arch
	if inv.Pg {
		return inv.Record[1], inv.Record[0]
	}
	return inv.Before[a.MustReg("x9")], inv.Before[a.FP]
}

// arm64Found: the interrupted pc (translated when it is return_to_handler
// itself), then the lr of every frame record from x29 up.
func arm64Found(h *Harness, inv *Invocation, r *regs.RegFile, out []uint64) []uint64 {
	a := h.Arch
	fp := r[a.FP]
	out = append(out, h.graphRetAddr(r[a.PC], fp))
	for i := 0; i < 256 && fp != 0; i++ {
		b := h.M.Mem(fp, 16)
		if b == nil || fp%8 != 0 || !a.Memory.Stack.Contains(fp) {
			break
		}
		next, lr := a.Word(b), a.Word(b[8:])
		if next == 0 {
			break // the final record
		}
		out = append(out, h.graphRetAddr(lr, next))
		// unwind_consume_stack: records must go up the stack.
		if next <= fp {
			break
		}
		fp = next
	}
	return out
}

// arm64FrameRecords walks the frame records from x29 at a host call into
// out as pairs (frameRecords): arm64's record {fp, lr} is at the frame
// pointer itself.
func arm64FrameRecords(h *Harness, out []uint64, loads []Access, r *regs.RegFile) ([]uint64, []Access) {
	return frameRecords(h, out, loads, r[h.Arch.FP], 0)
}

// frameRecords walks frame records {next fp, return address}, each at
// its frame pointer + at, from fp into out as pairs: each record's frame
// pointer, then its return address ({fp0, lr0, fp1, lr1, ...}; fp1 is the
// word at fp0 + at); the walk stops after a record outside the stack, one
// that does not go up, or the final one (next fp 0), whose frame pointer
// ends the list with lr 0.
func frameRecords(h *Harness, out []uint64, loads []Access, fp uint64, at int64) ([]uint64, []Access) {
	a := h.Arch
	for i := 0; i < 1024; i++ {
		rec := fp + uint64(at)
		b := h.M.Mem(rec, 16)
		if b == nil || fp%8 != 0 || !a.Memory.Stack.Contains(rec) {
			return append(out, fp, 0), loads
		}
		next, lr := a.Word(b), a.Word(b[8:])
		out = append(out, fp, lr)
		loads = append(loads, Access{Addr: rec, Size: 16, Load: true})
		if next == 0 || next <= fp {
			if next != 0 {
				out = append(out, next, 0)
			}
			return out, loads
		}
		fp = next
	}
	return out, loads
}

// arm64RetWalk is bpf_get_stackid from a return probe on arm64
// (perf_callchain_kernel -> arch_stack_walk with regs,
// arch/arm64/kernel/stacktrace.c v6.x: kunwind_init_from_regs takes pc =
// regs->pc and fp = regs->regs[29], then the frame records, as
// arm64Found walks them) from ftrace_partial_regs of return_to_handler's
// ftrace_regs. The true chain is the same walk from the real return
// address and the x29 the traced function's caller had when the traced
// function returned (the exit trampoline's entry registers). A tail
// call's return into return_to_handler itself has no true chain (Want
// empty).
func arm64RetWalk(h *Harness, inv *Invocation, pt *regs.Frame) StackWalk {
	a := h.Arch
	const maxDepth = 127 // PERF_MAX_STACK_DEPTH, include/uapi/linux/perf_event.h
	acc := pt.Layout.Accessors
	pc, _ := pt.Get(acc.IP)
	fp, _ := pt.Get(acc.FP)
	var r regs.RegFile
	r[a.PC], r[a.FP] = pc, fp
	w := StackWalk{Got: arm64Found(h, inv, &r, nil)}
	if pc != h.rth {
		r[a.FP] = inv.Before[a.FP]
		w.Want = arm64Found(h, inv, &r, nil)
	}
	w.Got, w.Want = w.Got[:min(len(w.Got), maxDepth)], w.Want[:min(len(w.Want), maxDepth)]
	return w
}
