package emu

import (
	"encoding/binary"
	"fmt"

	"trampemu/regs"
)

// riscv64Machine: RV64 in M-mode with no translation, virtual = physical.
// Unicorn 2.1.1's default riscv64 CPU (SiFive U54, RV64ACDFIMSU) starts in
// M-mode and runs the kernel addresses as they are. The kernel runs in
// S-mode, and entering it the way firmware does (mstatus.MPP = S, mepc,
// mret) works, but every store in S-mode then takes Unicorn's slow path:
// measured on this machine with libunicorn 2.1.1, a loop of one sd per
// iteration ran 1000 iterations in 9 s in S-mode with no PMP entry, 100000
// in 11 s with a NAPOT RWX PMP entry over all memory (as OpenSBI sets up),
// and 100000 in under a millisecond in M-mode. The trampolines and the
// drivers use no privileged instruction and no CSR, so the privilege level
// does not change what they do; an M-mode-only instruction a file might
// hold would run instead of trapping. RISC-V has no flags register
// (regs.RISCV64.Flags is -1): a clobbering host function changes only
// registers.
var riscv64Machine = &machineArch{
	arch: regs.RISCV64,
	physLayout: func(rs []regs.Region) []uint64 {
		out := make([]uint64, len(rs))
		for i, r := range rs {
			out[i] = r.Base
		}
		return out
	},
	setup:           func(*Machine) error { return nil },
	decodeInterrupt: riscv64DecodeInterrupt,
	clobberCode:     riscv64ClobberCode, jump: riscv64Jump,
	// Unicorn 2.1.1's riscv64 syncs the pc at block boundaries only: a
	// memory fault's pc is the block's start (Run finds the instruction).
	faultAtBlockStart: true,
	// ebreak stops Unicorn 2.1.1 with UC_ERR_INSN_INVALID (no interrupt
	// hook, pc on it): the decoded instruction says it is the trap.
	trapAsInvalid: true,
}

// QEMU's RISC-V exception causes (target/riscv/cpu_bits.h RISCV_EXCP_*),
// the intno Unicorn 2.1.1 hands to UC_HOOK_INTR.
const (
	riscvExcpInstMisaligned = 0
	riscvExcpInstAccess     = 1
	riscvExcpIllegal        = 2
	riscvExcpBreakpoint     = 3
	riscvExcpLoadMisaligned = 4
	riscvExcpLoadAccess     = 5
	riscvExcpStoreMisalign  = 6
	riscvExcpStoreAccess    = 7
	riscvExcpUEcall         = 8
	riscvExcpSEcall         = 9
	riscvExcpMEcall         = 11
)

// riscv64DecodeInterrupt decodes the synchronous exceptions Unicorn's
// riscv64 delivers as interrupts: an illegal instruction (the all-zero
// word, unimp, an M-mode CSR from S-mode), access faults and misaligned
// accesses. ecall and a breakpoint are trap instructions (false).
func riscv64DecodeInterrupt(m *Machine, e *Error, intno int, pc uint64) bool {
	switch intno {
	case riscvExcpIllegal:
		// Unicorn 2.1.1 leaves the pc after the (4-byte) instruction.
		e.PC = pc - 4
		e.Regs[m.Arch.PC] = e.PC
		e.Kind, e.Detail = KindInvalid, "illegal instruction (RISCV_EXCP_ILLEGAL_INST)"
		return true
	case riscvExcpInstAccess, riscvExcpInstMisaligned:
		e.Kind, e.Detail = KindFault, fmt.Sprintf("instruction fetch exception %d", intno)
		e.Addr, e.Size, e.HasAddr = pc, 4, true
		return true
	case riscvExcpLoadAccess, riscvExcpStoreAccess, riscvExcpLoadMisaligned, riscvExcpStoreMisalign:
		e.Kind, e.Detail = KindFault, fmt.Sprintf("load/store exception %d", intno)
		m.badOperand(e)
		return true
	case riscvExcpBreakpoint:
		e.Kind, e.Detail = KindTrap, fmt.Sprintf("interrupt %d (ebreak: RISCV_EXCP_BREAKPOINT)", intno)
		return true
	case riscvExcpUEcall, riscvExcpSEcall, riscvExcpMEcall:
		e.Kind, e.Detail = KindTrap, fmt.Sprintf("interrupt %d (ecall)", intno)
		return true
	}
	return false
}

// riscv64 encodings (RISC-V unprivileged ISA, "Integer Computational
// Instructions"; the standard li expansion).
func riscvLUI(rd int, imm20 uint32) uint32 { return imm20<<12 | uint32(rd)<<7 | 0x37 }
func riscvADDIW(rd, rs int, imm int32) uint32 {
	return uint32(imm&0xfff)<<20 | uint32(rs)<<15 | uint32(rd)<<7 | 0x1b
}
func riscvADDI(rd, rs int, imm int32) uint32 {
	return uint32(imm&0xfff)<<20 | uint32(rs)<<15 | uint32(rd)<<7 | 0x13
}
func riscvSLLI(rd, rs int, sh uint32) uint32 {
	return sh<<20 | uint32(rs)<<15 | 1<<12 | uint32(rd)<<7 | 0x13
}

// riscvRet is jalr zero, 0(ra).
const riscvRet = 0x00008067

// riscv64ClobberCode: for each register the value's high word by lui +
// addiw, shifted up by 32, then its low word added in 11, 11 and 10-bit
// pieces (or at once when it is below 2048); then ret.
func riscv64ClobberCode(rs []int, vals []uint64) []byte {
	var out []byte
	put := func(w uint32) { out = binary.LittleEndian.AppendUint32(out, w) }
	for k, i := range rs {
		rd := regs.RISCV64GPR(i)
		v := vals[k]
		hi := int32(uint32(v >> 32))
		lo12 := hi << 20 >> 20
		put(riscvLUI(rd, uint32((hi-lo12)>>12)&0xfffff))
		put(riscvADDIW(rd, rd, lo12))
		lo := uint32(v)
		if lo < 2048 {
			put(riscvSLLI(rd, rd, 32))
			if lo != 0 {
				put(riscvADDI(rd, rd, int32(lo)))
			}
			continue
		}
		put(riscvSLLI(rd, rd, 11))
		put(riscvADDI(rd, rd, int32(lo>>21&0x7ff)))
		put(riscvSLLI(rd, rd, 11))
		put(riscvADDI(rd, rd, int32(lo>>10&0x7ff)))
		put(riscvSLLI(rd, rd, 10))
		put(riscvADDI(rd, rd, int32(lo&0x3ff)))
	}
	put(riscvRet)
	return out
}

// riscv64Jump: jal zero, a J-type offset (+-1 MiB).
func riscv64Jump(from, to uint64) []byte {
	off := uint32(int64(to) - int64(from))
	w := (off>>20&1)<<31 | (off>>1&0x3ff)<<21 | (off>>11&1)<<20 | (off>>12&0xff)<<12 | 0x6f
	return binary.LittleEndian.AppendUint32(nil, w)
}
