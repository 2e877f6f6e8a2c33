package check

import (
	"trampemu/ftrace"
	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
)

// x86Convention: arch/x86/kernel/ftrace_64.S and the fentry ABI
// (reference x86_64.md).
//   - Entry: the traced function has not run yet: its arguments (rdi rsi
//     rdx rcx r8 r9), rax (vararg count) and every callee-saved register
//     must survive; r10, r11 and the flags are scratch (ftrace_caller does
//     not save them; with full pt_regs ftrace_regs_caller reloads r10). The trampoline returns with ret: sp = entry sp + 8
//     (entry sp itself when it returns into a direct trampoline).
//   - Exit: the return value (rax, rdx) and callee-saved registers must
//     survive; sp is the sp the traced function returned with.
//   - Above the entry sp only the return-address slot may change (RIP
//     write-back); everything else there belongs to the traced function's
//     caller. No red zone: below sp is free.
func init() { conventions[regs.X86_64.Name] = x86Convention }

func x86Convention(a *regs.Arch) convention {
	return convention{
		keep: map[trampolines.Role][]int{
			// rax is no argument register, but a variadic function gets
			// the number of vector registers used in %al (System V AMD64
			// ABI 3.5.7), so the fentry call site's rax must survive too.
			trampolines.Entry: entryKept(a, a.MustReg("rax")),
			trampolines.Exit:  exitKept(a),
		},
		// ftrace_regs_caller reloads r15 r14 r13 r12 r10 rbx from pt_regs
		// after the callbacks, then restore_mcount_regs, and pops EFLAGS
		// copied back over the flags it pushed; r11 is not reloaded
		// (arch/x86/kernel/ftrace_64.S v5.11-v6.19, reference x86_64.md):
		// with full regs r10 and the flags join the registers kept.
		keepFullRegs: map[trampolines.Role][]int{trampolines.Entry: regsByName(a, "r10", "rflags")},
		// v5.10 ftrace_graph_caller: prepare_ftrace_return(ip, &the traced
		// function's return address, frame_pointer) (arch/x86/kernel/
		// ftrace_64.S and ftrace.c, v5.10); frame_pointer is unused without
		// HAVE_FUNCTION_GRAPH_FP_TEST (reference fgraph-fprobe.md).
		graphEntryArgs: func(inv *harness.Invocation, _ ftrace.PrepareABI) []argWant {
			// ftrace_graph_caller (arch/x86/kernel/ftrace_64.S <= v5.15)
			// loads the ip from the return slot the callbacks' RIP was
			// written back to, so after a live patch it is the target's.
			return []argWant{{0, "self_addr", inv.WantPC - uint64(a.McountInsnSize)}, {1, "parent", inv.Before[a.SP] + 8}}
		},
		// The word above the fentry call's return address: the traced
		// function's own return address.
		parentIP: func(inv *harness.Invocation) uint64 {
			if len(inv.AboveBefore) < 16 {
				return 0
			}
			return a.Word(inv.AboveBefore[8:])
		},
		allowedAbove: func(role trampolines.Role, off uint64) bool {
			return role == trampolines.Entry && off < 8
		},
		wantSP: func(role trampolines.Role, inv *harness.Invocation, sp int) uint64 {
			if role == trampolines.Entry && !inv.Direct {
				return inv.Before[sp] + 8
			}
			return inv.Before[sp]
		},
		meaning: func(role trampolines.Role, t harness.Tramp, inv *harness.Invocation, s regs.Slot) (uint64, bool) {
			b := inv.Before
			switch s.Name {
			case "RSP":
				if role == trampolines.Entry {
					return b[a.SP] + 8, true // the sp at the call site
				}
				if t.Role == trampolines.Rethook {
					// pushq %rsp after the fake return address and ss:
					// arch_rethook_trampoline_callback adds the 16 back
					// (arch/x86/kernel/rethook.c v5.18+).
					return b[a.SP] - 16, true
				}
				return b[a.SP], true // the sp the traced function returned with
			case "RIP":
				if role == trampolines.Entry {
					return inv.EntryRet, true
				}
				return 0, false // written by C (the original return address)
			case "ORIG_RAX":
				return 0, role == trampolines.Entry
			case "CS":
				if role != trampolines.Entry {
					return 0, false
				}
				if t.Symbol == "ftrace_regs_caller" {
					return regs.X86KernelCS, true
				}
				return 0, true // partial regs: arch_ftrace_get_regs() must say NULL
			case "SS":
				return regs.X86KernelDS, role == trampolines.Entry || t.Role == trampolines.Rethook
			case "EFLAGS":
				return b[a.Flags], true
			}
			if s.Reg >= 0 {
				return b[s.Reg], true
			}
			return 0, false
		},
	}
}
