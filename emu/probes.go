package emu

/*
#include "tm.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"trampemu/asm"
)

// Access is one logged memory access of a probed instruction.
type Access struct {
	PC    uint64
	Addr  uint64
	Size  int
	Load  bool
	Store bool
}

// ProbeMem logs, for every instruction of [start, end) of the loaded image,
// the effective address of each of its memory accesses each time it runs
// while probing is on (SetProbing). It uses one C code hook per memory
// instruction and no memory hook. It must be called before the code first
// runs (Unicorn does not add hooks to translated code); it flushes the
// range's translations to be sure. Instructions whose accesses the
// disassembler cannot describe are returned, so the caller can report them.
func (m *Machine) ProbeMem(start, end uint64) (unknown []asm.Inst, err error) {
	if m.Image == nil {
		return nil, fmt.Errorf("emu: ProbeMem before Load")
	}
	ins, err := asm.Listing(m.Image, m.dis, start, end)
	if err != nil {
		return nil, fmt.Errorf("emu: probing %s: %w", m.Image.Describe(start), err)
	}
	for _, in := range ins {
		if !in.MemKnown {
			unknown = append(unknown, in)
			continue
		}
		for _, r := range in.Mem {
			base, index := -1, -1
			if r.Base >= 0 {
				base = m.Arch.Regs[r.Base].UC
			}
			if r.Index >= 0 {
				index = m.Arch.Regs[r.Index].UC
			}
			var flags uint32
			if r.Load {
				flags |= 1
			}
			if r.Store {
				flags |= 2
			}
			if err := ucCheck(C.tm_add_probe(m.c, C.uint64_t(in.Addr), C.int(base), C.int(index),
				C.int(max(r.Scale, 1)), C.int64_t(r.Disp), C.uint32_t(r.Size), C.uint32_t(flags))); err != nil {
				return unknown, fmt.Errorf("emu: probe at %s: %w", m.Image.Describe(in.Addr), err)
			}
		}
	}
	return unknown, m.FlushCode(start, end)
}

// SetProbing turns logging of probed accesses on or off.
func (m *Machine) SetProbing(on bool) {
	m.c.probing = 0
	if on {
		m.c.probing = 1
	}
}

// TakeAccesses returns the accesses logged since the last call and clears
// the log; overflow is true when accesses were dropped (the log holds 65536).
func (m *Machine) TakeAccesses() (out []Access, overflow bool) {
	n := int(m.c.log_n)
	if n > 0 {
		log := unsafe.Slice(m.c.log, n)
		out = make([]Access, n)
		for i, e := range log {
			out[i] = Access{PC: uint64(e.pc), Addr: uint64(e.addr), Size: int(e.size), Load: e.flags&1 != 0, Store: e.flags&2 != 0}
		}
	}
	overflow = m.c.log_overflow != 0
	m.c.log_n, m.c.log_overflow = 0, 0
	return out, overflow
}
