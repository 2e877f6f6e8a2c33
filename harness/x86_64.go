package harness

import (
	"fmt"
	"trampemu/emu"
	"trampemu/ftrace"
	"trampemu/regs"
	"trampemu/trampolines"
	"trampemu/unwind"
)

// x86-64 interrupts and unwinding.
//
// An interrupt or exception in kernel mode (no IST stack) pushes its frame
// onto the current stack below rsp (Intel SDM vol. 3, 6.14.2 "64-Bit Mode
// Stack Frame": rsp aligned down to 16, then SS, RSP, RFLAGS, CS, RIP and
// an error code), and the entry code pushes pt_regs below that
// (arch/x86/entry/entry_64.S idtentry, PUSH_AND_CLEAR_REGS, v6.x). The
// kernel is built with -mno-red-zone (arch/x86/Makefile): no code may keep
// anything below rsp.
//
// The unwinder is ORC (arch/x86/kernel/unwind_orc.c, v6.x): at an interrupt
// it starts from the pt_regs the entry code saved, taking only ip, sp and
// bp from them (unwind_next_frame, case ORC_TYPE_REGS), and finds each
// return address on the stack at its frame's CFA - 8, translating
// return_to_handler with ftrace_graph_ret_addr(task, &graph_idx, ra,
// addr_p), the stack address it was found at. No other register ever
// supplies a return address, and a copy elsewhere (the RIP slot of
// ftrace_regs) is not one. So the traced function's caller is found iff
// the traced function's own return-address slot is at or above sp and
// holds the caller's address, or a return_to_handler the shadow stack
// still resolves: the slot above ip+5 at the entry trampoline (entry sp +
// 8), the slot the traced function's ret popped at return_to_handler
// (entry sp - 8). The tool has no ORC table (objtool writes it): it assumes
// the trampoline's annotation leads the unwinder to that slot (one
// annotated UNWIND_HINT_UNDEFINED, as return_to_handler was before v6.19,
// is not unwound by ORC at all).
func init() {
	harnessArches[regs.X86_64.Name] = &harnessArch{
		unwind:  unwinder{found: x86Found, caller: x86Caller, orc: x86ORC},
		retWalk: x86RetWalk,
		retRegs: x86PartialRegsExit,
		// trampolines/x86_64/ftrace_caller_v5.10.S: prepare_ftrace_return(ip,
		// &parent, frame_pointer), the form up to v5.15 (arch/x86/kernel/ftrace.c).
		prepareABI: ftrace.PrepareIPParentFP,
		// The segment fields of struct pt_regs (arch/x86/include/asm/ptrace.h):
		// a kprobe handler may read them (user_mode(regs) tests cs).
		regsUserExtra: []string{"CS", "SS"},
		// callee_saved sums x..5x in rbx, r12-r15.
		calleeSavedSum: 15,
		// The fentry call's return address, ip+5, on the stack at entry.
		entryRet: func(h *Harness, inv *Invocation) uint64 { return h.Arch.Word(inv.AboveBefore) },
	}
}

// x86Caller: the word above ip+5, filed under its own address (the graph
// entry's retp is the stack slot, arch/x86/kernel/ftrace.c).
func x86Caller(h *Harness, inv *Invocation) (uint64, uint64) {
	a := h.Arch
	if len(inv.AboveBefore) < 16 {
		return 0, 0
	}
	return a.Word(inv.AboveBefore[8:]), inv.Before[a.SP] + 8
}

func x86Found(h *Harness, inv *Invocation, r *regs.RegFile, out []uint64) []uint64 {
	a := h.Arch
	slot := inv.Before[a.SP] + 8
	if inv.Role == trampolines.Exit {
		slot = inv.Before[a.SP] - 8
	}
	b := h.M.Mem(slot, 8)
	if slot < r[a.SP] || b == nil {
		return out
	}
	w := a.Word(b)
	if inv.Role == trampolines.Exit && w == emu.Poison(slot) {
		// Untouched since the run began: the poison stands in for what
		// was there, the return_to_handler the traced function's ret
		// popped.
		w = inv.BelowEntry
	}
	return append(out, h.graphRetAddr(w, slot))
}

// x86ORC walks the stack as arch/x86/kernel/unwind_orc.c does from the
// interrupted registers, over the ORC table objtool generated for the
// image (x86Unwinder). nil when there is no ORC unwinder for the run.
func x86ORC(h *Harness, inv *Invocation, r *regs.RegFile) *ORCWalk {
	o := x86Unwinder(h, inv)
	if o == nil {
		return nil
	}
	a := h.Arch
	// The interrupt's pt_regs frame is met as ORC_TYPE_REGS, whose ip
	// goes through unwind_recover_rethook with sp - 8.
	ip := x86RecoverRethook(h, r[a.PC], r[a.SP]-8)
	w := o.FromRegs(unwind.Regs{IP: ip, SP: r[a.SP], BP: x86Reg(a, r, "rbp"), R10: x86Reg(a, r, "r10"),
		R13: x86Reg(a, r, "r13"), DI: x86Reg(a, r, "rdi"), DX: x86Reg(a, r, "rdx")})
	out := &ORCWalk{IPs: w.IPs(), Done: w.Done}
	if ip != r[a.PC] {
		// The interrupted place first, as everywhere: the recovered
		// return address is the regs frame's ip the trace reports.
		out.IPs = append([]uint64{r[a.PC]}, out.IPs...)
	}
	if w.Err != nil {
		out.Err = w.Err.Error()
	}
	return out
}

func x86Reg(a *regs.Arch, r *regs.RegFile, name string) uint64 {
	i, _ := a.Reg(name)
	return r[i]
}

// x86Unwinder is the ORC unwinder of the run: the image's table (parsed
// once per harness), reads of the task stack only (stack_access_ok), and
// return_to_handler translated through the shadow stack
// (unwind_recover_ret_addr -> ftrace_graph_ret_addr). nil when the image
// has no table or the trampoline of the run is a frame-pointer build
// (CONFIG_FRAME_POINTER: the kernel has the frame-pointer unwinder, and
// objtool ran --stackval, writing no ORC). As in x86Found, the slot the
// traced function's ret popped (exit runs), poisoned when the run began,
// reads as the return_to_handler it held.
func x86Unwinder(h *Harness, inv *Invocation) *unwind.ORC {
	t := h.Setup.Entry
	if inv.Role == trampolines.Exit {
		t = h.Setup.Exit
	}
	if _, fp := t.Source.Defines["CONFIG_FRAME_POINTER"]; fp {
		return nil
	}
	if h.orcTable == nil {
		if h.orcErr != nil || h.Image.Objtool == nil {
			return nil
		}
		ip, _ := h.Image.SectionNamed(".orc_unwind_ip")
		orc, _ := h.Image.SectionNamed(".orc_unwind")
		if len(ip.Data) == 0 {
			h.orcErr = fmt.Errorf("no ORC table")
			return nil
		}
		t, err := unwind.ImageORC(h.Image.Objtool.Format, unwind.Section{Addr: ip.Addr, Data: ip.Data}, unwind.Section{Addr: orc.Addr, Data: orc.Data})
		if err != nil {
			h.orcErr = err
			return nil
		}
		h.orcTable = t
	}
	a := h.Arch
	st := a.Memory.Stack
	popped := inv.Before[a.SP] - 8
	read := func(addr uint64) uint64 {
		w := h.M.ReadWord(addr)
		if inv.Role == trampolines.Exit && addr == popped && w == emu.Poison(addr) {
			return inv.BelowEntry
		}
		return w
	}
	return &unwind.ORC{Table: h.orcTable, Mem: unwind.Mem{Read: read, Lo: st.Base, Hi: st.Base + st.Size},
		RetAddr: func(idx *int, ip, retp uint64) uint64 {
			return x86RecoverRethook(h, h.K.Graph.RetAddr(idx, ip, retp), retp)
		}}
}

// x86RecoverRethook is unwind_recover_rethook (arch/x86/include/asm/
// unwind.h, v5.18+): a return address that is arch_rethook_trampoline
// (the hooked one, or the fake one the trampoline pushes) is replaced by
// rethook_find_ret_addr(task, addr_p): the real return address of the
// node filed under that stack slot. unwind_recover_ret_addr applies it
// after ftrace_graph_ret_addr for every CALL frame, and the ORC_TYPE_REGS
// case to an interrupted ip with addr_p = sp - 8 ("a small chance to
// interrupt at the entry of arch_rethook_trampoline() where the ORC info
// doesn't exist", arch/x86/kernel/unwind_orc.c).
func x86RecoverRethook(h *Harness, ip, addrp uint64) uint64 {
	if rh := h.K.Rethook; rh != nil && rh.Trampoline != 0 && ip == rh.Trampoline {
		if ret := rh.FindRetAddr(addrp); ret != 0 {
			return ret
		}
	}
	return ip
}

// x86EflagsFixed is X86_EFLAGS_FIXED, bit 1 of EFLAGS (arch/x86/include/
// uapi/asm/processor-flags.h): always set in a hardware flags word, so
// perf_hw_regs (arch/x86/events/core.c) takes it for regs a CPU saved.
const x86EflagsFixed = 1 << 1

// x86RetWalk is bpf_get_stackid from a return probe: perf_callchain_kernel
// (arch/x86/events/core.c, v6.18+: after 6d08340d1e35 "Revert perf/x86:
// Always store regs->ip in perf_callchain_kernel()", 6.18-rc6) on
// ftrace_partial_regs of return_to_handler's ftrace_regs. With
// X86_EFLAGS_FIXED set in regs->flags (perf_hw_regs; arch_ftrace_partial_regs
// sets it since aea251799998) it stores regs->ip and unwinds from the regs
// (unwind_start(&state, current, regs, NULL): ip, sp and bp, the regs
// frame skipped); with it clear (v6.18-v6.19, 20a0bc10272f) it unwinds
// current, skipping frames until sp > regs->sp (first_frame; __unwind_start
// skips while state->sp <= first_frame, arch/x86/kernel/unwind_orc.c since
// 230db82413c0), and stores no regs->ip: here the first guest frame of
// current is return_to_handler's own, at its call of
// ftrace_return_to_handler. The true chain is the real return address (the
// ip ftrace_return_to_handler put in the regs) and the ORC walk of the
// caller's frame as the traced function's ret left it (sp and rbp at the
// exit trampoline's entry).
func x86RetWalk(h *Harness, inv *Invocation, pt *regs.Frame) StackWalk {
	o := x86Unwinder(h, inv)
	if o == nil {
		return StackWalk{Err: "no ORC unwinder (frame-pointer build)"}
	}
	a := h.Arch
	// perf stores at most PERF_MAX_STACK_DEPTH entries
	// (include/uapi/linux/perf_event.h: 127; bpf_get_stackid's default):
	// both chains are cut there, from walks that go further.
	const maxDepth = 127
	o.MaxFrames = 2 * maxDepth
	acc := pt.Layout.Accessors
	ip, _ := pt.Get(acc.IP)
	sp, _ := pt.Get(acc.SP)
	bp, _ := pt.Get(acc.FP) // perf reads it with the regs (unwind_start copies regs->bp)
	// perf_hw_regs tests one bit, the one arch_ftrace_partial_regs just
	// set or cleared (x86PartialRegsExit): the rest of the word, which
	// return_to_handler never writes, decides nothing (not a read).
	flags, _ := pt.Raw("EFLAGS")
	var w StackWalk
	var walk unwind.Walk
	if flags&x86EflagsFixed != 0 {
		walk = o.FromRegs(unwind.Regs{IP: ip, SP: sp, BP: bp})
		w.Got = walk.IPs()
	} else {
		r := h.M.Regs()
		gsp := r[a.SP]
		walk = o.FromCall(h.M.ReadWord(gsp), gsp+8, x86Reg(a, &r, "rbp"))
		i := 0
		for i < len(walk.Frames) && walk.Frames[i].SP <= sp {
			i++
		}
		for _, f := range walk.Frames[i:] {
			w.Got = append(w.Got, f.IP)
		}
	}
	if walk.Err != nil {
		w.Err = walk.Err.Error()
	}
	// A tail call's frame returns to return_to_handler itself (its ret
	// is the outer hook): no true chain from a real return address to
	// compare with (Want empty).
	if ip != h.rth {
		truth := o.FromCall(ip, inv.Before[a.SP], x86Reg(a, &inv.Before, "rbp"))
		w.Want = truth.IPs()
	}
	w.Got, w.Want = w.Got[:min(len(w.Got), maxDepth)], w.Want[:min(len(w.Want), maxDepth)]
	return w
}

// x86PartialRegsExit is arch_ftrace_partial_regs on a return probe's regs
// (arch/x86/include/asm/ftrace.h): regs->cs = __KERNEL_CS (user_mode(regs)
// reads it) and X86_EFLAGS_FIXED set (aea251799998 "x86/fgraph,bpf: Switch
// kprobe_multi program stack unwind to hw_regs path") or, in v6.18-v6.19
// (20a0bc10272f), cleared. The flags word is read-modify-written in C; only
// the bit decides anything (perf_hw_regs), so the read of the slot
// return_to_handler never writes is not counted.
func x86PartialRegsExit(pt *regs.Frame, v618 bool) {
	pt.Set("CS", regs.X86KernelCS)
	flags, _ := pt.Raw("EFLAGS")
	if v618 {
		flags &^= x86EflagsFixed
	} else {
		flags |= x86EflagsFixed
	}
	pt.Set("EFLAGS", flags)
}
