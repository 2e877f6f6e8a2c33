package emu

/*
#include "tm.h"
*/
import "C"

import (
	"errors"
	"fmt"
)

// Fast describes a host function whose whole effect, while its Go side is
// in a state the caller knows, is a count of its calls and the arguments
// of the last one (and the clobber of a clobbering function): such a call
// runs in C without entering Go (a few registers read, the clobber
// written as one batch), about 5x cheaper than the cgo callback. The
// caller folds the counts into its Go state with TakeFast before anything
// reads that state.
type Fast struct {
	// Args is how many argument registers the last call's are kept of
	// (at most 4).
	Args int
	// RequireArg, when >= 0 (< Args), names an argument that must hold
	// Require: a call with another value runs in Go as usual (so a case
	// the Go side would count differently is never folded).
	RequireArg int
	Require    uint64
}

// SetFast makes the host function bound to name run in C as f describes
// (nil: in Go again). While a tracer is set (Trace) every call runs in Go,
// which the tracer must see.
func (m *Machine) SetFast(name string, f *Fast) error {
	addr, hf, err := m.hostNamed(name)
	if err != nil {
		return err
	}
	var idx [C.TM_FAST_ARGS]C.int
	on, nargs, req := 0, 0, -1
	var want uint64
	if f != nil {
		if f.Args < 0 || f.Args > len(idx) || f.Args > len(m.Arch.Args) || f.RequireArg >= f.Args {
			return fmt.Errorf("emu: fast %s: %d arguments (at most %d), required argument %d", name, f.Args, len(idx), f.RequireArg)
		}
		on, nargs, req, want = 1, f.Args, f.RequireArg, f.Require
		for k := 0; k < nargs; k++ {
			idx[k] = C.int(m.Arch.Args[k])
		}
	}
	clobber := 0
	if hf.clobber {
		clobber = 1
	}
	if m.tracer != nil {
		on = 0
	}
	if C.tm_set_fast(m.c, C.uint64_t(addr), C.int(on), C.int(nargs), &idx[0], C.int(req), C.uint64_t(want), C.int(clobber)) != 0 {
		return fmt.Errorf("emu: fast %s: too many fast host functions", name)
	}
	return nil
}

// TakeFast returns how many calls of the named host function ran in C
// since the last TakeFast, with the arguments of the last of them, and
// counts them in HostCalls.
func (m *Machine) TakeFast(name string) (calls uint64, last [4]uint64) {
	addr, hf, err := m.hostNamed(name)
	if err != nil {
		return 0, last
	}
	f := C.tm_fast_of(m.c, C.uint64_t(addr))
	if f == nil {
		return 0, last
	}
	calls = uint64(f.calls)
	for k := range last {
		last[k] = uint64(f.last[k])
	}
	f.calls = 0
	hf.calls += calls
	return calls, last
}

// fastOff runs every fast host function in Go (a tracer is set).
func (m *Machine) fastOff() {
	for i := 0; i < int(m.c.nfast); i++ {
		m.c.fast[i].on = 0
	}
}

func (m *Machine) hostNamed(name string) (uint64, *hostFunc, error) {
	for addr, h := range m.hosts {
		if h.name == name {
			return addr, h, nil
		}
	}
	if m.closed {
		return 0, nil, errors.New("emu: machine is closed")
	}
	return 0, nil, fmt.Errorf("emu: no host function %q is bound", name)
}
