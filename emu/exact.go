package emu

/*
#include "exact.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"trampemu/regs"
)

// ExactCount is what the per-instruction counting mode saw in one range:
// instructions executed, and the loads and stores Unicorn performed for
// them (accesses of one instruction that continue each other, such as the
// per-register stores of an s390x stmg, are one access), with their bytes.
type ExactCount struct {
	Instructions uint64 `json:"instructions"`
	Loads        uint64 `json:"loads"`
	Stores       uint64 `json:"stores"`
	LoadBytes    uint64 `json:"load_bytes"`
	StoreBytes   uint64 `json:"store_bytes"`
}

// Range is a guest code range [Lo, Hi).
type Range struct{ Lo, Hi uint64 }

// ExactCounter counts, instruction by instruction, what runs in a few code
// ranges: a C code hook on every instruction and a C memory hook on every
// access. It is slow (every instruction and access of the machine calls a
// hook) and exists to prove the block counters, which multiply block
// counts by the disassembler's static facts; it shares nothing with them.
type ExactCounter struct {
	m      *Machine
	c      *C.tm_exact
	ranges []Range
	final  []ExactCount // the counts at Close
}

// CountExact starts counting in ranges (at most 4) and flushes the
// machine's translations so the hooks take effect. Stop it with Close
// before or after the machine closes; Counts stay readable after Close.
func (m *Machine) CountExact(ranges ...Range) (*ExactCounter, error) {
	if m.closed {
		return nil, errors.New("emu: machine is closed")
	}
	if len(ranges) == 0 || len(ranges) > C.TM_EXACT_RANGES {
		return nil, fmt.Errorf("emu: CountExact takes 1 to %d ranges, got %d", C.TM_EXACT_RANGES, len(ranges))
	}
	var lo, hi [C.TM_EXACT_RANGES]C.uint64_t
	ra, stubEnd := m.routineAddr(), m.Arch.Memory.Stubs.End()
	for i, r := range ranges {
		if r.Lo < ra && r.Hi > ra && r.Hi <= stubEnd {
			r.Hi = ra // the clobber routine is host work, as the block counters say (clobber.go)
		}
		if r.Hi <= r.Lo {
			return nil, fmt.Errorf("emu: CountExact: empty range %#x-%#x", r.Lo, r.Hi)
		}
		lo[i], hi[i] = C.uint64_t(r.Lo), C.uint64_t(r.Hi)
	}
	var uerr C.uc_err
	c := C.tm_exact_new(m.c, &lo[0], &hi[0], C.int(len(ranges)), &uerr)
	if c == nil {
		return nil, fmt.Errorf("emu: adding the counting hooks: %w", ucCheck(uerr))
	}
	e := &ExactCounter{m: m, c: c, ranges: append([]Range(nil), ranges...)}
	if err := m.flushGuestCode(); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// flushGuestCode drops the translations of every region code can run from
// (the text and the host stubs), so hooks added or removed take effect.
func (m *Machine) flushGuestCode() error {
	for _, r := range []regs.Region{m.Arch.Memory.Text, m.Arch.Memory.Stubs} {
		if err := m.FlushCode(r.Base, r.End()); err != nil {
			return err
		}
	}
	return nil
}

// Counts returns the counts so far, one per range in CountExact's order.
func (e *ExactCounter) Counts() []ExactCount {
	if e.c == nil {
		return append([]ExactCount(nil), e.final...)
	}
	out := make([]ExactCount, len(e.ranges))
	for i := range out {
		c := (*C.tm_exact_count)(unsafe.Pointer(&e.c.counts[i]))
		out[i] = ExactCount{Instructions: uint64(c.insns), Loads: uint64(c.loads), Stores: uint64(c.stores),
			LoadBytes: uint64(c.load_bytes), StoreBytes: uint64(c.store_bytes)}
	}
	return out
}

// PCTrace is the executed instructions' addresses since CountExact or the
// last ResetPCTrace: their number and a 64-bit FNV-1a hash of the
// sequence (each address's 8 bytes, low byte first), computed in the C
// code hook, so no Go code runs per instruction. Two runs with equal
// traces executed the same instructions in the same order (up to a hash
// collision). Zero after Close.
type PCTrace struct {
	Count uint64 `json:"count"`
	Hash  uint64 `json:"hash"`
}

// PCTrace returns the trace so far.
func (e *ExactCounter) PCTrace() PCTrace {
	if e.c == nil {
		return PCTrace{}
	}
	return PCTrace{Count: uint64(e.c.pc_count), Hash: uint64(e.c.pc_hash)}
}

// ResetPCTrace starts a new trace (the counts go on).
func (e *ExactCounter) ResetPCTrace() {
	if e.c != nil {
		C.tm_exact_reset_trace(e.c)
	}
}

// Close removes the hooks (when the machine is still open) and frees the
// C side; the counts stay readable. Unicorn drops a deleted hook only when
// a run ends, so code translated before then still dispatches hooks (and
// runs slower): do not time a machine that had a counter.
func (e *ExactCounter) Close() error {
	if e.c == nil {
		return nil
	}
	var err error
	if !e.m.closed {
		err = ucCheck(C.tm_exact_stop(e.c))
		if err == nil {
			err = e.m.flushGuestCode() // the hooked translations
		}
	}
	e.final = e.Counts()
	C.tm_exact_free(e.c)
	e.c = nil
	return err
}

// GoRaw removes the machine's own hooks for good: no block counter (and so
// no instruction limit: only the run's timeout stops a runaway), no host
// functions (their stubs are the plain return instructions they are, the
// clobber routine's branch included; Go is never called), no watch. What runs after it is raw Unicorn on the same
// memory and code: the baseline that shows what trampemu's hooks and its
// Go kernel cost. It refuses a machine with a tracer or memory probes.
func (m *Machine) GoRaw() error { return m.goRaw(false) }

// DropHostFunctions removes, for good, only the host-function hook: the
// block counter (and the instruction limit) stays, the host stubs are
// plain returns and Go is never called. Between GoRaw and a hooked run, it
// shows what the block hook costs alone.
func (m *Machine) DropHostFunctions() error { return m.goRaw(true) }

func (m *Machine) goRaw(keepBlocks bool) error {
	if m.closed {
		return errors.New("emu: machine is closed")
	}
	if m.tracer != nil || m.c.h_probe != 0 || m.c.watching != 0 {
		return errors.New("emu: GoRaw on a machine with a tracer, probes or a watch (their hooks would stay)")
	}
	keep := C.int(0)
	if keepBlocks {
		keep = 1
	}
	if err := ucCheck(C.tm_raw_begin(m.c, keep)); err != nil {
		return fmt.Errorf("emu: removing the hooks: %w", err)
	}
	// A clobbering stub branches to the clobber routine, host work
	// (clobber.go): without the host function it is the plain return again.
	for addr := range m.hosts {
		if err := m.WriteMem(addr, m.Arch.ReturnStubCode); err != nil {
			return err
		}
	}
	return m.flushGuestCode()
}
