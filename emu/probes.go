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
// while probing is on (SetProbing). It uses one C code hook over the range
// and no memory hook. It must be called once, before the code first runs
// (Unicorn does not add hooks to translated code); it flushes the range's
// translations to be sure. Instructions whose accesses the
// disassembler cannot describe are returned, so the caller can report them.
func (m *Machine) ProbeMem(start, end uint64) (unknown []asm.Inst, err error) {
	if m.Image == nil {
		return nil, fmt.Errorf("emu: ProbeMem before Load")
	}
	ins, err := asm.Listing(m.Image, m.dis, start, end)
	if err != nil {
		return nil, fmt.Errorf("emu: probing %s: %w", m.Image.Describe(start), err)
	}
	var probes []C.tm_probe
	for _, in := range ins {
		if !in.MemKnown {
			unknown = append(unknown, in)
			continue
		}
		for _, r := range in.Mem {
			p := C.tm_probe{pc: C.uint64_t(in.Addr), disp: C.int64_t(r.Disp), base: -1, index: -1,
				scale: C.int32_t(max(r.Scale, 1)), size: C.uint32_t(r.Size)}
			if r.Base >= 0 {
				p.base = C.int32_t(m.Arch.Regs[r.Base].UC)
			}
			if r.Index >= 0 {
				p.index = C.int32_t(m.Arch.Regs[r.Index].UC)
			}
			if r.Load {
				p.flags |= 1
			}
			if r.Store {
				p.flags |= 2
			}
			probes = append(probes, p)
		}
	}
	var first *C.tm_probe
	if len(probes) > 0 {
		first = &probes[0]
	}
	if err := ucCheck(C.tm_set_probes(m.c, C.uint64_t(start), C.uint64_t(end), first, C.uint32_t(len(probes)))); err != nil {
		return unknown, fmt.Errorf("emu: probing %s: %w (ProbeMem works once per machine)", m.Image.Describe(start), err)
	}
	return unknown, m.FlushCode(start, end)
}

// StopProbing removes the probes for good (their hook costs every
// instruction of the probed range a helper call) and flushes the range's
// translations. Safe from a host function running outside that range.
func (m *Machine) StopProbing() error {
	if err := ucCheck(C.tm_stop_probes(m.c)); err != nil {
		return err
	}
	return m.FlushCode(uint64(m.c.probe_lo), uint64(m.c.probe_hi))
}

// SetProbing turns logging of probed accesses on or off.
func (m *Machine) SetProbing(on bool) {
	m.c.probing = 0
	if on {
		m.c.probing = 1
	}
}

// AppendAccesses appends the accesses logged since the last call to dst,
// clears the log, and returns the slice; overflow is true when accesses
// were dropped (the log holds 65536).
func (m *Machine) AppendAccesses(dst []Access) (out []Access, overflow bool) {
	n := int(m.c.log_n)
	out = dst
	if n > 0 {
		for _, e := range unsafe.Slice(m.c.log, n) {
			out = append(out, Access{PC: uint64(e.pc), Addr: uint64(e.addr), Size: int(e.size), Load: e.flags&1 != 0, Store: e.flags&2 != 0})
		}
	}
	overflow = m.c.log_overflow != 0
	m.c.log_n, m.c.log_overflow = 0, 0
	return out, overflow
}

// TakeAccesses returns the accesses logged since the last call and clears
// the log (AppendAccesses into a new slice).
func (m *Machine) TakeAccesses() ([]Access, bool) { return m.AppendAccesses(nil) }
