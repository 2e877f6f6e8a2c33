package emu

/*
#include "tm.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"strings"

	"trampemu/regs"
)

// Kind classifies why a run did not reach its exit address.
type Kind string

// Error kinds.
const (
	KindFault   Kind = "memory fault"
	KindInvalid Kind = "invalid instruction"
	KindLimit   Kind = "instruction limit"
	KindTimeout Kind = "timeout"
	KindTrap    Kind = "trap"
	KindHost    Kind = "host function"
	KindStopped Kind = "stopped"
	KindControl Kind = "wrong control transfer" // the guard stopped the run (Machine.SetGuard)
	KindEngine  Kind = "engine error"
)

// Error is a run that did not reach its exit: a guest fault, an invalid
// instruction, an exhausted instruction limit or timeout, a trap, or an error
// returned by a Go host function.
type Error struct {
	Kind     Kind
	Arch     string
	PC       uint64
	Where    string // symbol+offset of PC
	Insn     string // disassembly at PC
	Detail   string // engine's words ("Invalid memory write (UC_ERR_WRITE_UNMAPPED)")
	Addr     uint64 // faulting data address (HasAddr)
	Size     int
	HasAddr  bool
	Regs     regs.RegFile
	Note     string // what else the reader must know ("pc is the start of the translated block ...")
	Executed uint64 // instructions run before the stop
	Err      error  // KindHost: the host function's error
	// Transfer (KindControl) is the wrong transfer the guard stopped the
	// run at; PC and Regs are the machine at it.
	Transfer *Transfer
}

// Why is what made a control transfer wrong (Transfer.Why).
type Why int

// Reasons of a KindControl stop.
const (
	// WrongPC: a watched run left to another pc than ExpectLeave said.
	WrongPC Why = C.TM_FF_WRONG_PC
	// Reentry: the guarded range was entered again straight from the
	// block its run had left to, with nothing run in between.
	Reentry Why = C.TM_FF_REENTER
	// SPAbove: a watched run left with the stack pointer above
	// Guard.SPMax.
	SPAbove Why = C.TM_FF_SP
)

// Transfer is a control transfer the guard judged wrong.
type Transfer struct {
	Why Why
	// From is where control went (the first pc outside the watched run
	// that left; for Reentry the block that called straight back in).
	From uint64
	// Want is where it had to go (WrongPC).
	Want uint64
	// SP and SPMax are the stack pointer at the leave and its bound
	// (SPAbove).
	SP, SPMax uint64
	// Loops: the next block entered the guarded range again, so the
	// transfer repeats for ever (each time the same way).
	Loops bool
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s at pc %#x <%s>: %s", e.Arch, e.Kind, e.PC, e.Where, e.Insn)
	if e.Detail != "" {
		fmt.Fprintf(&b, "\n  %s", e.Detail)
	}
	if e.HasAddr {
		fmt.Fprintf(&b, " (address %#x, %d bytes)", e.Addr, e.Size)
	}
	if e.Note != "" {
		fmt.Fprintf(&b, "\n  %s", e.Note)
	}
	if e.Err != nil {
		fmt.Fprintf(&b, "\n  %v", e.Err)
	}
	fmt.Fprintf(&b, "\n  after %d instructions; registers:\n", e.Executed)
	for _, a := range regs.Arches {
		if a.Name == e.Arch {
			for _, l := range strings.Split(a.FormatRegs(&e.Regs), "\n") {
				b.WriteString("    " + l + "\n")
			}
			break
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func (e *Error) Unwrap() error { return e.Err }

// AsError returns err as an *Error when it is one.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

func ucErr(e C.uc_err) string { return C.GoString(C.uc_strerror(e)) }

func ucCheck(e C.uc_err) error {
	if e == C.UC_ERR_OK {
		return nil
	}
	return errors.New(ucErr(e))
}

func faultKind(e C.uc_err) Kind {
	switch e {
	case C.UC_ERR_INSN_INVALID, C.UC_ERR_EXCEPTION:
		return KindInvalid
	case C.UC_ERR_READ_UNMAPPED, C.UC_ERR_WRITE_UNMAPPED, C.UC_ERR_FETCH_UNMAPPED,
		C.UC_ERR_READ_PROT, C.UC_ERR_WRITE_PROT, C.UC_ERR_FETCH_PROT,
		C.UC_ERR_READ_UNALIGNED, C.UC_ERR_WRITE_UNALIGNED, C.UC_ERR_FETCH_UNALIGNED:
		return KindFault
	}
	return KindEngine
}
