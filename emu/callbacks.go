package emu

/*
#include "tm.h"
*/
import "C"

import (
	"fmt"
	"runtime/debug"
)

// The functions below are called from the C hooks in tm.c.

//export goHostCall
func goHostCall(h C.uintptr_t, addr C.uint64_t) (ret C.int) {
	m := machineByID(uintptr(h))
	hf := m.hosts[uint64(addr)]
	m.inCallback = true
	m.memFault = nil
	defer func() {
		m.inCallback = false
		if r := recover(); r != nil {
			m.cbErr = fmt.Errorf("host function %s panicked: %v\n%s", nameOf(hf), r, debug.Stack())
			m.cbPC = uint64(addr)
			ret = hostStop
		}
	}()
	if hf == nil {
		m.cbErr = fmt.Errorf("call to host stub %#x with no Go function bound", uint64(addr))
		m.cbPC = uint64(addr)
		return hostStop
	}
	hf.calls++
	if m.tracer != nil {
		m.tracer.Host(m, hf.name, uint64(addr), false)
	}
	err := hf.fn(m)
	if err == nil && m.memFault != nil {
		err = fmt.Errorf("guest memory fault: %w", m.memFault)
	}
	if err != nil {
		m.cbErr = fmt.Errorf("host function %s: %w", hf.name, err)
		m.cbPC = uint64(addr)
		return hostStop
	}
	if m.tracer != nil {
		// The tracer sees the registers as the guest will: clobbered here.
		if hf.clobber {
			m.clobber()
		}
		m.tracer.Host(m, hf.name, uint64(addr), true)
		return 0
	}
	if hf.clobber {
		if d := uint64(m.c.dirty) & m.routineMask; d != 0 {
			// The stub's clobber routine would overwrite it.
			m.cbErr = fmt.Errorf("host function %s set a volatile register other than a return register (mask %#x): a clobbering function may set only those", hf.name, d)
			m.cbPC = uint64(addr)
			return hostStop
		}
		return hostClobber // in C, with the registers Go set, one batch (tm_finish)
	}
	return 0
}

// goHostCall's answer to tm_host_hook.
const (
	hostStop    = 1 // stop the run
	hostClobber = 2 // clobber the volatile registers Go did not set
)

func nameOf(h *hostFunc) string {
	if h == nil {
		return "(unbound)"
	}
	return h.name
}

//export goInterrupt
func goInterrupt(h C.uintptr_t, addr C.uint64_t) (stop C.int) {
	m := machineByID(uintptr(h))
	m.inCallback = true
	m.memFault = nil
	defer func() {
		m.inCallback = false
		if r := recover(); r != nil {
			m.cbErr = fmt.Errorf("interrupt at %#x panicked: %v\n%s", uint64(addr), r, debug.Stack())
			m.cbPC = uint64(addr)
			stop = 1
		}
	}()
	if m.interrupt == nil {
		return 0
	}
	err := m.interrupt(m, uint64(addr))
	if err == nil && m.memFault != nil {
		err = fmt.Errorf("guest memory fault: %w", m.memFault)
	}
	if err != nil {
		m.cbErr = fmt.Errorf("interrupt at %#x: %w", uint64(addr), err)
		m.cbPC = uint64(addr)
		return 1
	}
	return 0
}

//export goWatchFull
func goWatchFull(h C.uintptr_t) {
	m := machineByID(uintptr(h))
	if m.watchFull != nil {
		m.watchFull()
	}
}

//export goBlockInsns
func goBlockInsns(h C.uintptr_t, addr C.uint64_t, size C.uint32_t) C.uint32_t {
	m := machineByID(uintptr(h))
	return C.uint32_t(m.countInsns(uint64(addr), int(size)))
}

// countInsns decodes [addr, addr+size) and counts its instructions; a block
// that does not decode counts one instruction per undecodable start.
func (m *Machine) countInsns(addr uint64, size int) int {
	code := m.span(addr, size)
	if code == nil {
		return 1
	}
	n := 0
	for off := 0; off < size; {
		end := min(off+16, size)
		in, err := m.dis.Decode(code[off:end], addr+uint64(off))
		n++
		if err != nil || in.Len <= 0 {
			break
		}
		off += in.Len
	}
	return max(n, 1)
}
