package emu

import (
	"fmt"

	"trampemu/regs"
)

// arm64Machine: AArch64 at EL1 with the MMU off. Unicorn 2.1.1's default
// CPU (Cortex-A72) starts in EL1h with DAIF masked and SCTLR_EL1.M clear,
// and runs code at kernel addresses such as 0xffff800080000000 with no page
// tables (reference/arm64.md, "Unicorn 2.1.1"), so virtual = physical. The
// A72 has neither BTI nor PAuth: `bti c`, `paciasp` and `autiasp` are hint
// instructions and execute as NOPs, as on a CPU without the features.
var arm64Machine = &machineArch{
	arch: regs.ARM64,
	physLayout: func(rs []regs.Region) []uint64 {
		out := make([]uint64, len(rs))
		for i, r := range rs {
			out[i] = r.Base
		}
		return out
	},
	setup:           func(*Machine) error { return nil },
	decodeInterrupt: arm64DecodeInterrupt,
	// NZCV: flip N, Z, C and V (bits 31..28), the only bits the
	// register holds.
	flagsXor:    0xf0000000,
	clobberCode: arm64ClobberCode, jump: arm64Jump,
	faultAtBlockStart: true,
}

// QEMU's exception numbers for Arm (target/arm/cpu.h, the ones Unicorn
// 2.1.1 hands to UC_HOOK_INTR).
const (
	arm64ExcpUdef          = 1 // EXCP_UDEF: undefined instruction
	arm64ExcpSwi           = 2 // EXCP_SWI: svc
	arm64ExcpPrefetchAbort = 3 // EXCP_PREFETCH_ABORT
	arm64ExcpDataAbort     = 4 // EXCP_DATA_ABORT
	arm64ExcpBkpt          = 7 // EXCP_BKPT: brk #imm (pc stays on the brk)
)

// arm64DecodeInterrupt decodes the synchronous exceptions Unicorn's arm64
// delivers as interrupts: an undefined instruction, and aborts (an access
// Unicorn's memory map allows but the CPU refuses, such as an unaligned
// exclusive). brk and svc are trap instructions (false).
func arm64DecodeInterrupt(m *Machine, e *Error, intno int, pc uint64) bool {
	switch intno {
	case arm64ExcpUdef:
		e.Kind, e.Detail = KindInvalid, "undefined instruction (EXCP_UDEF)"
		return true
	case arm64ExcpPrefetchAbort:
		e.Kind, e.Detail = KindFault, "instruction abort (EXCP_PREFETCH_ABORT)"
		e.Addr, e.Size, e.HasAddr = pc, 4, true
		return true
	case arm64ExcpDataAbort:
		e.Kind, e.Detail = KindFault, "data abort (EXCP_DATA_ABORT)"
		m.badOperand(e)
		return true
	case arm64ExcpBkpt:
		e.Kind, e.Detail = KindTrap, fmt.Sprintf("interrupt %d (brk: EXCP_BKPT)", intno)
		return true
	case arm64ExcpSwi:
		e.Kind, e.Detail = KindTrap, fmt.Sprintf("interrupt %d (svc: EXCP_SWI)", intno)
		return true
	}
	return false
}
