package emu

/*
#include "tm.h"
*/
import "C"

import "trampemu/regs"

// s390Machine: s390x with DAT off (virtual = physical), 64-bit addressing.
var s390Machine = &machineArch{
	arch: regs.S390X,
	physLayout: func(rs []regs.Region) []uint64 {
		out := make([]uint64, len(rs))
		for i, r := range rs {
			out[i] = r.Base
		}
		return out
	},
	setup: func(m *Machine) error {
		// PSW mask EA|BA: 64-bit addressing (Unicorn starts in 24-bit mode).
		return ucCheck(C.tm_reg_write(m.c, C.int(m.Arch.Flags), C.uint64_t(regs.S390PSWMask64)))
	},
	decodeInterrupt: s390DecodeInterrupt,
	guardCode:       s390GuardPSWLoads,
	// PSW mask: flip the condition code (bits 44-45) only.
	flagsXor:    3 << 44,
	clobberCode: s390ClobberCode, jump: s390Jump,
	flagsWriteHasEffects: true,
	// Unicorn 2.1.1 on an x86-64 host: reading r0-r15 takes 180 ns
	// (uc_reg_read_batch), saving the 1208-byte context 29 ns; a checked
	// traced call reads the registers six times. (x86-64: 104 ns for its
	// 17 registers against 125 ns for a 5552-byte context; arm64: 102 ns
	// for 33 against 248 ns for 12624 bytes: they read per register.)
	contextRegs: true,
}

// s390DecodeInterrupt decodes program interruptions (EXCP_PGM, intno 3 in
// qemu target/s390x/cpu.h), which Unicorn's s390x raises for a fetch or an
// operand outside guest memory and for an invalid opcode.
func s390DecodeInterrupt(m *Machine, e *Error, intno int, pc uint64) bool {
	if intno != 3 {
		return false
	}
	switch {
	case m.span(pc, 2) == nil:
		e.Kind, e.Detail = KindFault, "instruction fetch outside guest memory"
		e.Addr, e.Size, e.HasAddr = pc, 2, true
	case m.badOperand(e):
		// Unicorn's s390x raises an addressing exception for storage outside
		// the mapped regions without calling the invalid-memory hook.
		e.Kind, e.Detail = KindFault, "program interruption (addressing exception)"
	default:
		// An operation exception for an invalid opcode such as 0x0000.
		e.Kind, e.Detail = KindInvalid, "program interruption (operation exception)"
	}
	return true
}

// s390GuardPSWLoads hooks every halfword of [lo, hi) that reads as an
// LPSWE opcode (b2b2) with tm_psw_hook: a hook at an address that is not
// an instruction start never runs, and the hook checks the opcode again.
func s390GuardPSWLoads(m *Machine, lo, hi uint64) error {
	code := make([]byte, hi-lo)
	if err := m.ReadMem(lo, code); err != nil {
		return err
	}
	for i := 0; i+4 <= len(code); i += 2 {
		if code[i] == 0xb2 && code[i+1] == 0xb2 {
			if err := ucCheck(C.tm_guard_psw(m.c, C.uint64_t(lo+uint64(i)))); err != nil {
				return err
			}
		}
	}
	return nil
}
