package emu

/*
#include "tm.h"
*/
import "C"

import (
	"fmt"
	"runtime/debug"
)

// Tracer follows execution instruction by instruction (for debugging a
// trampoline: it costs a Go call per instruction). Inside its methods the
// machine's registers and memory read as they are at that moment.
type Tracer interface {
	// Step is called before the instruction at pc executes.
	Step(m *Machine, pc uint64)
	// Host is called at a host function's stub, before (done false) and
	// after (done true) its Go function runs.
	Host(m *Machine, name string, pc uint64, done bool)
}

// Trace calls t before every instruction in [lo, hi) and around every host
// function; a nil t stops tracing. The range's translations are flushed so
// the hook takes effect.
func (m *Machine) Trace(t Tracer, lo, hi uint64) error {
	if t == nil {
		lo, hi = 0, 0
	}
	if err := ucCheck(C.tm_trace(m.c, C.uint64_t(lo), C.uint64_t(hi))); err != nil {
		return fmt.Errorf("emu: adding the trace hook: %w", err)
	}
	m.tracer = t
	if t != nil {
		m.fastOff()
	}
	if hi > lo {
		return m.FlushCode(lo, hi)
	}
	return nil
}

//export goTraceStep
func goTraceStep(h C.uintptr_t, addr C.uint64_t) (stop C.int) {
	m := machineByID(uintptr(h))
	if m.tracer == nil {
		return 0
	}
	m.inCallback = true
	defer func() {
		m.inCallback = false
		if r := recover(); r != nil {
			m.cbErr = fmt.Errorf("tracer panicked: %v\n%s", r, debug.Stack())
			m.cbPC = uint64(addr)
			stop = 1
		}
	}()
	m.tracer.Step(m, uint64(addr))
	return 0
}
