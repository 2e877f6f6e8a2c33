// Package emu is trampemu's own binding to the Unicorn CPU emulator (the only
// package with cgo). A Machine runs one guest architecture with the guest
// memory map of package regs, loads an asm.Image, binds Go functions to
// host-function stub addresses, counts executed blocks in C, and turns every
// guest fault, invalid instruction, exhausted instruction limit or timeout
// into an *Error carrying the architecture, pc, symbol, instruction and
// register file. A watched run can stop at the first control transfer
// known to be wrong (SetGuard: a wrong leave, a straight re-entry, sp past
// a bound) or after a per-call instruction budget (SetCallLimit). A host
// call reads only the registers Go asks for, has its clobber done by a
// guest routine and one C write batch (clobber.go), and a host function
// whose effect is a count can run in C without Go (SetFast).
package emu
