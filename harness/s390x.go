package harness

import (
	"fmt"

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
		retWalk:        s390RetWalk,
		// brasl %r0: r0 = ip+6.
		entryRet: func(h *Harness, inv *Invocation) uint64 { return inv.Before[0] },
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

// s390Unwind is arch_stack_walk from regs with the back-chain unwinder
// (arch/s390/kernel/unwind_bc.c, v6.x; read at lordspline/linux@3c73a8d36e91):
// the first ip is regs->psw.addr, sp regs->gprs[15]; the first step, with
// regs, takes the r14 saved in that frame (gprs[8] of struct stack_frame,
// __SF_GPRS + 8*8 with the packed stack) unless it is the ip already
// (then it goes on as without regs); every later step follows the back
// chain (__SF_BACKCHAIN) and takes the older frame's saved r14. Each ip
// goes through unwind_recover_ret_addr (ftrace_graph_ret_addr with the
// frame's sp as retp, the sp the graph entry files a return under). A
// zero back chain ends the walk (the driver's frame; the kernel then looks
// for the final pt_regs, which the guest stack does not have); an sp not
// 8-byte aligned or off the task stack is an error.
func s390Unwind(h *Harness, ip, sp uint64, max int) (out []uint64, err string) {
	a := h.Arch
	word := func(addr uint64) (uint64, bool) {
		if !a.Memory.Stack.Contains(addr) || !a.Memory.Stack.Contains(addr+7) {
			return 0, false
		}
		return h.M.ReadWord(addr), true
	}
	idx := 0
	recover := func(ip, sp uint64) uint64 { return h.K.Graph.RetAddr(&idx, ip, sp) }
	cur := recover(ip, sp)
	out = append(out, cur)
	regs1 := true
	for len(out) < max {
		var nip uint64
		if regs1 {
			regs1 = false
			r14, ok := word(sp + regs.S390SFGprs + 8*8)
			if ok && cur != recover(r14, sp) {
				cur = recover(r14, sp)
				out = append(out, cur)
				continue
			}
		}
		next, ok := word(sp + regs.S390SFBackchain)
		if !ok {
			return out, fmt.Sprintf("back chain at %#x off the stack", sp+regs.S390SFBackchain)
		}
		if next == 0 {
			return out, ""
		}
		if next%8 != 0 {
			return out, fmt.Sprintf("back chain %#x not 8-byte aligned", next)
		}
		nip, ok = word(next + regs.S390SFGprs + 8*8)
		if !ok {
			return out, fmt.Sprintf("frame %#x off the stack", next)
		}
		sp = next
		cur = recover(nip, sp)
		out = append(out, cur)
	}
	return out, ""
}

// s390RetWalk is bpf_get_stackid from a return probe on s390x
// (perf_callchain_kernel -> arch_stack_walk(..., regs),
// arch/s390/kernel/perf_event.c) from ftrace_partial_regs of
// return_to_handler's ftrace_regs (a pt_regs): psw.addr and gprs[15]. The
// true chain is the same walk from the real return address and the r15
// the caller had when the traced function returned.
func s390RetWalk(h *Harness, inv *Invocation, pt *regs.Frame) StackWalk {
	const maxDepth = 127 // PERF_MAX_STACK_DEPTH, include/uapi/linux/perf_event.h
	acc := pt.Layout.Accessors
	ip, _ := pt.Get(acc.IP)
	sp, _ := pt.Get(acc.SP)
	var w StackWalk
	w.Got, w.Err = s390Unwind(h, ip, sp, maxDepth)
	if ip != h.rth {
		w.Want, _ = s390Unwind(h, ip, inv.Before[h.Arch.SP], maxDepth)
	}
	return w
}
