package check

import (
	"fmt"

	"trampemu/ftrace"
	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
)

// s390xConvention: arch/s390/kernel/mcount.S and the s390x ELF ABI
// (reference s390x.md).
//   - Entry ("brasl %r0,ftrace_caller"): only r0 and r1 may change; r2-r15
//     come back as they were, except r14 when the kernel rewrote the saved
//     gprs[14] (graph tracing: return_to_handler).
//   - Exit: r2 (the only integer return register) and r6-r13 survive, r15
//     is the sp the traced function returned with, r14 the original return
//     address. r3-r5 are volatile after a return (reported as info).
//   - Above the entry sp: the caller's 160-byte area belongs to the traced
//     function; a trampoline may use its scratch bytes 0-71 and the r14
//     slot (136), and the entry trampoline writes the linkage words of its
//     24-byte frame for the traced function (TRACED_FUNC_FRAME_SIZE: the
//     r14/r15/back-chain slots of a frame at sp-24 fall on 112-135).
func init() { conventions[regs.S390X.Name] = s390xConvention }

func s390xConvention(a *regs.Arch) convention {
	return convention{
		// mvc (arch_rethook_trampoline's copy of the psw): QEMU's
		// helper_mvc (target/s390x/tcg/mem_helper.c, Unicorn 2.1.1) moves
		// through access_memmove, past the memory hooks.
		unhooked: map[string]string{"mvc": "QEMU's helper_mvc moves the bytes through access_memmove, past Unicorn's memory hooks"},
		keep: map[trampolines.Role][]int{
			// The arguments r2-r6 and callee-saved r6-r13: every register
			// but the entry scratch r0/r1, r14 and r15.
			trampolines.Entry: entryKept(a),
			trampolines.Exit:  exitKept(a),
		},
		volatileInfo: map[trampolines.Role][]int{
			trampolines.Exit: volatileAfterReturn(a), // r3-r5
		},
		// "brasl %r0,ftrace_caller" leaves r14, the traced function's
		// return address, alone (arch/s390/kernel/ftrace.c).
		parentIP: func(inv *harness.Invocation) uint64 { return inv.Before[a.Link] },
		allowedAbove: func(role trampolines.Role, off uint64) bool {
			switch {
			case off < 72: // scratch (struct stack_frame.empty)
				return true
			case off >= 136 && off < 144: // the r14 save slot
				return true
			case role == trampolines.Entry && off >= 136-regs.S390TracedFuncFrameSize && off < 136:
				return true
			}
			return false
		},
		wantSP: func(role trampolines.Role, inv *harness.Invocation, sp int) uint64 { return inv.Before[sp] },
		callChain: func(inv *harness.Invocation, hc *harness.HostCall) (string, string) {
			return s390xBackchain(a, inv, hc)
		},
		frameWords: func(inv *harness.Invocation, above []byte) []string { return s390xTracedFrame(a, inv, above) },
		// The caller of a C function provides the 160-byte register save
		// area at its sp, which the callee writes (s390x ELF ABI, "Stack
		// frame"; STACK_FRAME_OVERHEAD): what the trampoline hands to C
		// must lie above it.
		calleeArea: regs.S390StackFrameOverhead,
		// <= v6.13 ftrace_graph_caller: prepare_ftrace_return(ra = saved
		// r14, sp = saved r15, ip = psw.addr) (arch/s390/kernel/mcount.S and
		// ftrace.c, v6.13); ip may be a callback's redirect.
		// arch/s390/kernel/mcount.S ftrace_graph_caller: before v5.2
		// prepare_ftrace_return(parent, ip); from "s390/ftrace: use
		// HAVE_FUNCTION_GRAPH_RET_ADDR_PTR" (s390-5.2-1) (ra, sp, ip).
		graphEntryArgs: func(inv *harness.Invocation, abi ftrace.PrepareABI) []argWant {
			if abi == ftrace.PrepareParentIP {
				return []argWant{{0, "parent", inv.Before[a.MustReg("r14")]}, {1, "ip", inv.WantPC}}
			}
			return []argWant{{0, "ra", inv.Before[a.MustReg("r14")]}, {1, "sp", inv.Before[a.SP]}, {2, "ip", inv.WantPC}}
		},
		// psw.mask is compared without the condition code (bits 44-45):
		// Unicorn's EPSW (QEMU op_epsw) reads psw_mask, whose CC bits QEMU
		// does not keep current (it keeps the CC in cc_op), so the emulated
		// value differs from hardware there.
		ignoreBits: func(s regs.Slot) uint64 {
			if s.Name == "psw.mask" {
				return 3 << 44
			}
			return 0
		},
		meaning: func(role trampolines.Role, t harness.Tramp, inv *harness.Invocation, s regs.Slot) (uint64, bool) {
			b := inv.Before
			switch s.Name {
			case "psw.addr":
				if role == trampolines.Entry {
					return b[0], true // r0 = ip + MCOUNT_INSN_SIZE
				}
				return 0, false // written by C
			case "psw.mask":
				return b[a.Flags], true
			case "orig_gpr2":
				return 0, role == trampolines.Entry
			case "flags":
				if role != trampolines.Entry {
					return 0, false
				}
				if t.Symbol == "ftrace_regs_caller" {
					return regs.S390PIFFtraceFullRegs, true
				}
				return 0, true
			case "fp": // fgraph_ret_regs.fp (v6.5..v6.13): the caller's sp
				return b[a.SP], true
			case "gprs[0]", "gprs[1]":
				return 0, false // scratch at the call: no meaning
			}
			if s.Reg >= 0 && s.Reg < 16 {
				return b[s.Reg], true
			}
			return 0, false
		},
	}
}

// s390xTracedFrame checks the 24-byte frame an entry trampoline builds for
// the traced function below its entry sp R (kernel commit "s390/ftrace:
// save traced function caller"; arch/s390/kernel/mcount.S
// ftrace_regs_entry, v6.x): F = R-24 with back chain R (at F+152 = R+128),
// r14 = the traced function's ip+6 (F+136 = R+112) and r15 = F (F+144 =
// R+120). The unwinder and ftrace_return_address() read a frame's saved
// r14 as its return address (arch/s390/kernel/unwind_bc.c, and
// return_address() in arch/s390/include/asm/ftrace.h: sf->gprs[8]); a
// wrong one drops or misnames the traced function in every stack trace
// taken while the callbacks run. Only checked when the frame is there
// (its back chain word holds R): older trampolines build none.
func s390xTracedFrame(a *regs.Arch, inv *harness.Invocation, above []byte) []string {
	r := inv.Before[a.SP]
	f := r - regs.S390TracedFuncFrameSize
	word := func(off uint64) uint64 { return a.Word(above[off : off+8]) }
	if uint64(len(above)) < 136 || word(128) != r {
		return nil
	}
	var out []string
	if got := word(112); got != inv.EntryRet {
		out = append(out, fmt.Sprintf("the frame built for the traced function (entry sp-%d) holds r14 = %#x, want its ip+%d %#x (the unwinder's return address)",
			regs.S390TracedFuncFrameSize, got, a.McountInsnSize, inv.EntryRet))
	}
	if got := word(120); got != f {
		out = append(out, fmt.Sprintf("the frame built for the traced function (entry sp-%d) holds r15 = %#x, want the frame's own address %#x",
			regs.S390TracedFuncFrameSize, got, f))
	}
	// The frame handed to C must chain to that frame, not past or beside
	// it: the unwinder follows the back chain from there.
	for i := range inv.Calls {
		if bc := inv.Calls[i].Backchain; len(bc) >= 2 && bc[1] != f {
			out = append(out, fmt.Sprintf("at the call to %s the back chain goes from sp to %#x, not to the frame built for the traced function (%#x)",
				inv.Calls[i].Name, bc[1], f))
		}
	}
	return out
}

// s390xBackchain: from r15 at a call into C, the back chain (each frame's
// word at __SF_BACKCHAIN, what the unwinder follows: arch/s390/kernel/
// unwind_bc.c, v6.x) must reach the traced function's caller (r15 at
// trampoline entry) and then the driver's frame.
func s390xBackchain(a *regs.Arch, inv *harness.Invocation, hc *harness.HostCall) (summary, example string) {
	ok, missing := chainReaches(inv, hc.Backchain, a.SP)
	if ok {
		return "", ""
	}
	return fmt.Sprintf("back chain from r15 at the call to %s does not reach %s", hc.Name, missing),
		fmt.Sprintf("chain %s", chainText(hc.Backchain, inv.Before[a.SP]))
}
