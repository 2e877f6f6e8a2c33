package check

import (
	"fmt"
	"strings"

	"trampemu/ftrace"
	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
)

// arm64Convention: arch/arm64/kernel/entry-ftrace.S and AAPCS64 (reference
// arm64.md).
//   - Entry ("mov x9, x30; bl ftrace_caller", -fpatchable-function-entry=2):
//     x30 = the bl + 4 and x9 = the traced function's lr; x9-x17 are free.
//     The arguments x0-x7, the indirect result register x8, x18 (the shadow
//     call stack pointer: nobody may change it) and the callee-saved
//     x19-x29 must survive; the trampoline returns with "ret x9" to the bl +
//     4 with x30 = the saved lr (return_to_handler once the graph entry
//     hooked it). sp comes back as it was.
//   - Exit: x0-x7 (return_to_handler keeps them all: x0-x7 may hold a
//     result) and the callee-saved registers survive; x30 = the original
//     return address; x8 is reported as info.
//   - sp is 16-byte aligned at every instruction (the kernel keeps it so:
//     Mark Rutland on the ftrace_regs padding; Unicorn does not fault on a
//     misaligned sp, so the interrupt model's boundaries are checked), and
//     nothing above the entry sp is the trampoline's (no scratch area).
//   - At each call into C the frame records from x29 must lead through the
//     traced function (its pc) to its caller (the parent, x9 at entry) and
//     the caller's frame record, up to the driver's: the unwinder follows
//     nothing else (arch/arm64/kernel/stacktrace.c).
func init() { conventions[regs.ARM64.Name] = arm64Convention }

func arm64Convention(a *regs.Arch) convention {
	x9 := a.MustReg("x9")
	exitKeep := regSet(a, append(append([]int{}, a.Args...), exitKept(a)...), a.SP)
	return convention{
		keep: map[trampolines.Role][]int{
			trampolines.Entry: entryKept(a, a.MustReg("x8"), a.MustReg("x18")),
			trampolines.Exit:  exitKeep,
		},
		// The -pg call site (v4.19-v5.4) is "bl _mcount", an AAPCS64
		// call: x19-x29 and x18 survive it, x0-x17 are the callee's.
		pgKeep: regSet(a, append(append([]int{}, a.CalleeSaved...), a.MustReg("x18")), a.SP),
		volatileInfo: map[trampolines.Role][]int{
			trampolines.Exit: regsByName(a, "x8"),
		},
		allowedAbove: func(role trampolines.Role, off uint64) bool { return false },
		wantSP:       func(role trampolines.Role, inv *harness.Invocation, sp int) uint64 { return inv.Before[sp] },
		parentIP:     func(inv *harness.Invocation) uint64 { return arm64Parent(a, inv) },
		// ftrace_caller_direct_late (v6.4+): x9 = FREGS_LR, x30 =
		// FREGS_PC, "br x17"; the direct trampoline returns to x30 with
		// x30 = x9 (ftrace_stub_direct_tramp).
		directLink: func(inv *harness.Invocation) uint64 { return inv.EntryRet },
		callAlign:  16,
		spAlign:    16,
		callChain: func(inv *harness.Invocation, hc *harness.HostCall) (string, string) {
			return arm64FrameRecords(a, inv, hc)
		},
		// v5.5..v5.19 ftrace_graph_caller: prepare_ftrace_return(ip =
		// pt_regs.pc - AARCH64_INSN_SIZE, parent = &pt_regs.regs[30] (add
		// x1, sp, #S_LR), frame_pointer = the call site's x29, loaded from
		// the record above pt_regs) (arch/arm64/kernel/entry-ftrace.S and
		// ftrace.c, v5.10). The ip comes from the written-back pc, so after
		// a live patch it is the target's.
		graphEntryArgs: func(inv *harness.Invocation, abi ftrace.PrepareABI) []argWant {
			if inv.Pg {
				ip, parent := 0, 1
				if abi == ftrace.PrepareParentIPFP {
					// v4.19: prepare_ftrace_return(parent, self_addr, fp)
					ip, parent = 1, 0
				}
				// v4.19-v5.4 ftrace_graph_caller (entry-ftrace.S v5.0):
				// self_addr = the bl (mcount_get_pc), parent = the
				// traced function's saved-lr slot, [x29] + 8
				// (mcount_get_lr_addr), frame_pointer = its saved x29,
				// its caller's fp (mcount_get_parent_fp).
				return []argWant{{ip, "self_addr", inv.WantPC - uint64(a.McountInsnSize)},
					{parent, "parent", inv.Before[a.FP] + 8}, {2, "frame_pointer", inv.Record[0]}}
			}
			out := []argWant{{0, "self_addr", inv.WantPC - uint64(a.McountInsnSize)}, {2, "frame_pointer", inv.Before[a.FP]}}
			for i := range inv.Calls {
				if hc := &inv.Calls[i]; hc.Name == harness.HostOpsListFunc && hc.Layout != nil {
					if lr, ok := hc.Layout.Slot("lr"); ok {
						out = append(out, argWant{1, "parent", hc.Base + uint64(lr.Off)})
					}
					break
				}
			}
			return out
		},
		meaning: func(role trampolines.Role, t harness.Tramp, inv *harness.Invocation, s regs.Slot) (uint64, bool) {
			b := inv.Before
			if role == trampolines.Exit {
				switch {
				case s.Name == "fp": // ftrace_regs / fgraph_ret_regs fp: the caller's, for the FP test
					return b[a.FP], true
				case s.Name == "sp": // the sp the traced function returned with
					return b[a.SP], true
				case s.Reg >= 0 && s.Reg < 8: // x0-x7: the return values
					return b[s.Reg], true
				}
				// x8, lr, pc, direct_tramp: nothing at a return (C
				// writes pc, the original return address).
				return 0, false
			}
			switch s.Name {
			case "pc": // the bl + 4, where ret x9 goes
				return inv.EntryRet, true
			case "lr": // the traced function's lr: x9 at entry
				return b[x9], true
			case "sp":
				return b[a.SP], true
			case "fp":
				return b[a.FP], true
			case "direct_tramp": // zeroed at entry under DIRECT_CALLS
				return 0, true
			}
			if s.Reg >= 0 && s.Reg <= 28 {
				return b[s.Reg], true
			}
			// pstate, orig_x0, syscallno, stackframe[]: no value at entry
			// (the WITH_REGS entries leave them stale; the frame record in
			// stackframe is checked as a frame record).
			return 0, false
		},
	}
}

// arm64FrameRecords: from x29 at a call into C, the frame records
// (HostCall.Backchain: record address, lr, record address, lr, ...) must
// hold, for an entry, the traced function's pc (the bl + 4) and then its
// parent, and reach the caller's record (x29 at trampoline entry) and the
// driver's record; for an exit, the caller's record and the driver's.
func arm64FrameRecords(a *regs.Arch, inv *harness.Invocation, hc *harness.HostCall) (summary, example string) {
	rec := hc.Backchain
	caller, driver := inv.Before[a.FP], inv.DriverRecord
	if inv.Pg {
		caller = inv.Record[0] // x29 at a -pg site is the traced function's record
	}
	var missing string
	step := 0 // entry: 0 want the traced function, 1 its parent, 2 the caller's record
	if inv.Role == trampolines.Exit {
		step = 2
	}
	parent := arm64Parent(a, inv)
	for i := 0; i+1 < len(rec); i += 2 {
		fp, lr := rec[i], rec[i+1]
		switch {
		case step == 0 && lr == inv.EntryRet:
			step = 1
			continue
		case step == 1 && lr == parent:
			step = 2
			continue
		case step == 2 && fp == caller:
			step = 3
		}
		if step == 3 && fp == driver {
			return "", ""
		}
	}
	switch step {
	case 0:
		missing = "the traced function (no record with its pc)"
	case 1:
		missing = "the traced function's caller (no record with its parent after the traced function's)"
	case 2:
		missing = "the caller's frame record"
	default:
		missing = "the driver's frame record"
	}
	return fmt.Sprintf("the frame-record chain from x29 at the call to %s does not reach %s", hc.Name, missing),
		fmt.Sprintf("records %s", arm64RecordText(rec, inv.Before[a.SP]))
}

// arm64Parent is the traced function's return address at entry: x9
// (the patchable site's "mov x9, x30"), or at a -pg site the lr in the
// frame record its prologue built.
func arm64Parent(a *regs.Arch, inv *harness.Invocation) uint64 {
	if inv.Pg {
		return inv.Record[1]
	}
	return inv.Before[a.MustReg("x9")]
}

// arm64RecordText shows frame records as fp{lr} pairs, stack addresses
// relative to the entry sp (R+n).
func arm64RecordText(rec []uint64, sp uint64) string {
	var b strings.Builder
	for i := 0; i+1 < len(rec); i += 2 {
		if i > 0 {
			b.WriteString(" -> ")
		}
		fp := fmt.Sprintf("%#x", rec[i])
		if rec[i] >= sp-4096 && rec[i] <= sp+4096 && rec[i] != 0 {
			fp = fmt.Sprintf("R%+d", int64(rec[i]-sp))
		}
		fmt.Fprintf(&b, "%s{lr %#x}", fp, rec[i+1])
	}
	return b.String()
}
