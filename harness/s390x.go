package harness

import (
	"trampemu/ftrace"
	"trampemu/regs"
)

// s390x interrupts and unwinding.
//
// An interrupt or program check that arrives in kernel mode on the task
// stack gets its frame right below the interrupted r15: the handlers in
// arch/s390/kernel/entry.S (v6.x, pgm_check_handler and the INT_HANDLER
// macro for external and I/O interrupts) do "aghi %r15,-(STACK_FRAME_OVERHEAD
// + __PT_SIZE)" from the interrupted r15 and store the pt_regs and a zero
// back chain there, and the C handlers they call build their frames below
// that (machine checks use their own stack). Only the 160-byte area at and
// above r15 belongs to the interrupted code: the kernel guarantees nothing
// below r15.
//
// The unwinder is the back-chain one (arch/s390/kernel/unwind_bc.c, v6.x):
// after an interrupt frame it takes sp = regs->gprs[15] and ip = the r14
// slot of the frame there (sf->gprs[8], offset 136, marked unreliable),
// then follows each back chain (offset 152) to the next frame and its r14
// slot, translating return_to_handler with ftrace_graph_ret_addr(task,
// &graph_idx, ip, sp); regs->gprs[14] is never consulted, so a return
// address held only in r14 is not found.
func init() {
	harnessArches[regs.S390X.Name] = &harnessArch{
		unwind: unwinder{found: s390Found, caller: s390Caller},
		// trampolines/s390x/ftrace_caller_v6.13.S, the registry's
		// ftrace_graph_caller block: "lmg %r2,%r3" / "lg %r4", the (ra, sp, ip)
		// form of v5.2..v6.12 (arch/s390/kernel/ftrace.c).
		prepareABI: ftrace.PrepareRaSpIP,
		// callee_saved sums x..8x in r6-r13.
		calleeSavedSum: 36,
		chain:          s390Backchain,
		// brasl %r0: r0 = ip+6.
		entryRet: func(a *regs.Arch, inv *Invocation) uint64 { return inv.Before[0] },
		linkSlot: "gprs[14]",
		driverFrame: func(h *Harness) {
			// The driver's frame ends the back chain.
			h.M.WriteWord(h.driverSP+regs.S390SFBackchain, 0)
		},
	}
}

// s390Caller: r14 at entry, filed under the caller's sp (the graph entry's
// retp is gprs[15], arch/s390/kernel/ftrace.c v6.14+).
func s390Caller(h *Harness, inv *Invocation) (uint64, uint64) {
	a := h.Arch
	return inv.Before[a.Link], inv.Before[a.SP]
}

func s390Found(h *Harness, inv *Invocation, r *regs.RegFile, out []uint64) []uint64 {
	a := h.Arch
	sp := r[a.SP]
	for i := 0; i < 64; i++ {
		b := h.M.Mem(sp+regs.S390SFGprs+8*8, 8)
		if b == nil {
			break
		}
		out = append(out, h.graphRetAddr(a.Word(b), sp))
		if sp == h.driverSP {
			break // the driver's frame ends the chain
		}
		nb := h.M.Mem(sp+regs.S390SFBackchain, 8)
		if nb == nil {
			break
		}
		next := a.Word(nb)
		// unwind_bc.c outside_of_stack: a back chain must point up the stack
		if next == 0 || next <= sp || !a.Memory.Stack.Contains(next) {
			break
		}
		sp = next
	}
	return out
}

// s390Backchain walks s390x back chains from r15: each frame's word at
// __SF_BACKCHAIN (152) points to the caller's frame.
func s390Backchain(h *Harness, out []uint64, loads []Access, r *regs.RegFile) ([]uint64, []Access) {
	sp := r[h.Arch.SP]
	out = append(out, sp)
	for i := 0; i < 1024; i++ {
		b := h.M.Mem(sp+regs.S390SFBackchain, 8)
		if b == nil {
			break
		}
		next := h.Arch.Word(b)
		out = append(out, next)
		loads = append(loads, Access{Addr: sp + regs.S390SFBackchain, Size: 8, Load: true})
		if next == 0 || next <= sp || !h.Arch.Memory.Stack.Contains(next) {
			break
		}
		sp = next
	}
	return out, loads
}
