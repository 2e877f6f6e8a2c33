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
		unwind: unwinder{found: x86Found, caller: x86Caller, orc: x86ORC},
		// trampolines/x86_64/ftrace_caller_v5.10.S: prepare_ftrace_return(ip,
		// &parent, frame_pointer), the form up to v5.15 (arch/x86/kernel/ftrace.c).
		prepareABI: ftrace.PrepareIPParentFP,
		// The segment fields of struct pt_regs (arch/x86/include/asm/ptrace.h):
		// a kprobe handler may read them (user_mode(regs) tests cs).
		regsUserExtra: []string{"CS", "SS"},
		// callee_saved sums x..5x in rbx, r12-r15.
		calleeSavedSum: 15,
		// The fentry call's return address, ip+5, on the stack at entry.
		entryRet: func(a *regs.Arch, inv *Invocation) uint64 { return a.Word(inv.AboveBefore) },
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
// image (parsed once per harness), reading the task stack only
// (stack_access_ok) and translating return_to_handler through the shadow
// stack (unwind_recover_ret_addr -> ftrace_graph_ret_addr). nil when the
// image has no table, or the trampoline under test is a frame-pointer
// build (CONFIG_FRAME_POINTER: the kernel has the frame-pointer unwinder,
// and objtool ran --stackval, writing no ORC). As in x86Found, the slot
// the traced function's ret popped (exit runs), poisoned when the run
// began, reads as the return_to_handler it held.
func x86ORC(h *Harness, inv *Invocation, r *regs.RegFile) *ORCWalk {
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
	o := unwind.ORC{Table: h.orcTable, Mem: unwind.Mem{Read: read, Lo: st.Base, Hi: st.Base + st.Size},
		RetAddr: func(idx *int, ip, retp uint64) uint64 { return h.K.Graph.RetAddr(idx, ip, retp) }}
	get := func(n string) uint64 {
		i, _ := a.Reg(n)
		return r[i]
	}
	w := o.FromRegs(unwind.Regs{IP: r[a.PC], SP: r[a.SP], BP: get("rbp"), R10: get("r10"), R13: get("r13"), DI: get("rdi"), DX: get("rdx")})
	out := &ORCWalk{IPs: w.IPs(), Done: w.Done}
	if w.Err != nil {
		out.Err = w.Err.Error()
	}
	return out
}
