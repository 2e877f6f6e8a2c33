package check

import (
	"fmt"

	"trampemu/ftrace"
	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
)

// riscv64Convention: arch/riscv/kernel/mcount-dyn.S and mcount.S and the
// psABI (riscv-non-isa/riscv-elf-psabi-doc@023b4ed26ba8 riscv-cc.adoc;
// reference riscv64.md "ABI").
//   - Entry ("auipc t0; jalr t0" at the function, v6.3+): t0 = the site +
//     8, ra = the traced function's return address; t0-t6 carry nothing
//     (but t2-t6 in a CONFIG_CC_IS_CLANG build: clang's fastcc arguments).
//     The arguments a0-a7, the callee-saved s0-s11 and the fixed gp and tp
//     must survive; the trampoline returns with "jr t0" (or "jr t1" into a
//     direct trampoline) with ra = the return address (return_to_handler
//     once the graph entry hooked fregs->ra). sp comes back as it was.
//   - Exit: a0-a1 (the return value) and the callee-saved registers
//     survive. ra carries nothing after a return: return_to_handler
//     returns with "jalr a2", which writes it (every era's mcount.S).
//   - sp is 16-byte aligned at every instruction and at every call (the
//     psABI: "the stack pointer shall be aligned to a 128-bit boundary
//     upon procedure entry"; FREGS_SIZE_ON_STACK and PT_SIZE_ON_STACK are
//     rounded up to it), and nothing above the entry sp is the
//     trampoline's: no red zone, no scratch area.
//   - At each call into C the frame records from s0 must reach the
//     caller's record (s0 at trampoline entry) and the driver's: the
//     kernel's unwinder (arch/riscv/kernel/stacktrace.c) follows nothing
//     else. The entry builds no record of its own (the traced function's
//     prologue has not run), as every riscv mcount-dyn.S; return_to_handler's
//     block is one.
func init() { conventions[regs.RISCV64.Name] = riscv64Convention }

func riscv64Convention(a *regs.Arch) convention {
	return convention{
		keep: map[trampolines.Role][]int{
			trampolines.Entry: entryKept(a),
			trampolines.Exit:  exitKept(a),
		},
		// "riscv: ftrace: support fastcc in Clang for WITH_ARGS"
		// (f8693f6dffcd, v6.16): clang's fastcc passes the 9th and later
		// arguments in t2 and up (llvm/llvm-project#83111, "x7/t2 register
		// is used to pass the 9th argument"), so under CONFIG_CC_IS_CLANG
		// the entry saves and reloads t2-t6 around the callbacks: they
		// carry arguments at the traced function's entry.
		entryKeepIf:  map[string][]int{"CONFIG_CC_IS_CLANG": regsByName(a, "t2", "t3", "t4", "t5", "t6")},
		allowedAbove: func(role trampolines.Role, off uint64) bool { return false },
		wantSP:       func(role trampolines.Role, inv *harness.Invocation, sp int) uint64 { return inv.Before[sp] },
		parentIP:     func(inv *harness.Invocation) uint64 { return inv.Before[a.Link] },
		exitLinkFree: true,
		callAlign:    16,
		spAlign:      16,
		callChain: func(inv *harness.Invocation, hc *harness.HostCall) (string, string) {
			return riscv64FrameRecords(a, inv, hc)
		},
		// The old graph path (v5.11-v6.7 ftrace_graph_call):
		// prepare_ftrace_return(parent = &the saved ra, self_addr = the
		// site, frame_pointer = s0) (arch/riscv/kernel/mcount-dyn.S,
		// ftrace.c).
		graphEntryArgs: func(inv *harness.Invocation, _ ftrace.PrepareABI) []argWant {
			// (self_addr: ra - FENTRY_RA_OFFSET 12 from the v5.11-v6.2
			// ra-based site, t0 - 8 after it: inv.Back)
			return []argWant{{1, "self_addr", inv.WantPC - inv.Back}, {2, "frame_pointer", inv.Before[a.FP]}}
		},
		meaning: func(role trampolines.Role, t harness.Tramp, inv *harness.Invocation, s regs.Slot) (uint64, bool) {
			b := inv.Before
			if role == trampolines.Exit {
				switch s.Name {
				case "a0", "a1": // the return value
					return b[s.Reg], true
				case "s0": // the caller's s0, for the FP test
					return b[a.FP], true
				case "ra": // return_to_handler's own ra: where the traced function returned
					return b[a.Link], true
				case "sp":
					return b[a.SP], true
				}
				// epc (C writes the original return address), t1, a2-a7:
				// nothing at a return.
				return 0, false
			}
			switch s.Name {
			case "epc": // t0 at entry, where "jr t0" goes
				return inv.EntryRet, true
			case "ra", "sp", "s0":
				return b[s.Reg], true
			case "t1", "direct_tramp": // zeroed at entry: no direct trampoline yet
				if s.Name == "t1" && !t.DirectCalls() {
					// v6.3-v6.7 (no direct calls): t1 is the traced
					// function's, saved as it came (SAVE_ALL).
					return b[s.Reg], true
				}
				return 0, true
			}
			if s.Reg >= 0 && s.Reg != a.PC {
				return b[s.Reg], true
			}
			// status, badaddr, cause, orig_a0: no value at entry.
			return 0, false
		},
	}
}

// riscv64FrameRecords: from s0 at a call into C, the frame records
// (HostCall.Backchain: frame pointer, ra, frame pointer, ra, ...) must
// reach the caller's record (s0 at trampoline entry) and then the
// driver's. An exit's own records on the way (return_to_handler's
// fgraph_ret_regs {.., s0, ra} of v6.5-v6.13) must hold a kernel text
// address as ra (return_to_handler's entry ra, or the jalr's in a tail
// call's second return): walk_stackframe takes pc =
// ftrace_graph_ret_addr(current, &graph_idx, frame->ra, &frame->ra) and
// stops at a pc that is no kernel text (__kernel_text_address,
// arch/riscv/kernel/stacktrace.c), so a record with an unwritten ra loses
// the caller although its fp leads on.
func riscv64FrameRecords(a *regs.Arch, inv *harness.Invocation, hc *harness.HostCall) (summary, example string) {
	rec := hc.Backchain
	caller, driver := inv.Before[a.FP], inv.DriverRecord
	seen, badRA := false, false
	for i := 0; i+1 < len(rec); i += 2 {
		if rec[i] == caller {
			seen = true
		}
		if ra := rec[i+1]; !seen && inv.Role == trampolines.Exit && !a.Memory.Text.Contains(ra) && !a.Memory.Stubs.Contains(ra) {
			badRA = true
		}
		if seen && rec[i] == driver && !badRA {
			return "", ""
		}
	}
	missing := "the caller's frame record (s0 at entry)"
	switch {
	case seen && badRA:
		missing = "the caller: a record before the caller's holds an ra that is no kernel text"
	case seen:
		missing = "the driver's frame record"
	}
	return fmt.Sprintf("the frame-record chain from s0 at the call to %s does not reach %s", hc.Name, missing),
		fmt.Sprintf("records %s", arm64RecordText(rec, inv.Before[a.SP]))
}
