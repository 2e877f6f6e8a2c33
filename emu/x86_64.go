package emu

/*
#include "tm.h"
*/
import "C"

import "trampemu/regs"

// x86Machine: x86-64 in long mode with 4-level paging (paging.go).
var x86Machine = &machineArch{
	arch:            regs.X86_64,
	physLayout:      x86PhysLayout,
	setup:           (*Machine).setupX86Paging,
	decodeInterrupt: x86DecodeInterrupt,
	// CF PF AF ZF SF OF flipped; reserved bit 1 stays set.
	flagsXor: 0x8d5, flagsOr: 0x2,
	clobberCode: x86ClobberCode, jump: x86Jump,
}

// x86PhysLayout assigns physical addresses to the regions (2 MiB apart so a
// region's page table is its own).
func x86PhysLayout(rs []regs.Region) []uint64 {
	out := make([]uint64, len(rs))
	next := uint64(x86RegionPhys)
	for i, r := range rs {
		out[i] = next
		next += (r.Size + (2<<20 - 1)) &^ (2<<20 - 1)
	}
	return out
}

// x86DecodeInterrupt decodes the exceptions Unicorn's x86-64 delivers as
// interrupts (vector numbers of the Intel SDM vol. 3A, 6.3.1).
func x86DecodeInterrupt(m *Machine, e *Error, intno int, pc uint64) bool {
	switch intno {
	case 14:
		// #PF: no page maps the address (CR2), i.e. outside guest memory.
		e.Kind, e.Detail = KindFault, "page fault (#PF)"
		e.Addr, e.HasAddr = uint64(C.tm_x86_cr2(m.c)), true
		e.Size = m.faultSize(e)
		if e.Addr == e.PC {
			e.Detail = "page fault (#PF) on instruction fetch"
		}
		return true
	case 6:
		e.Kind, e.Detail = KindInvalid, "invalid opcode (#UD)"
		return true
	}
	return false
}
