// Package emu is trampemu's own binding to the Unicorn CPU emulator (the only
// package with cgo). A Machine runs one guest architecture with the guest
// memory map of package regs, loads an asm.Image, binds Go functions to
// host-function stub addresses, counts executed blocks in C, and turns every
// guest fault, invalid instruction, exhausted instruction limit or timeout
// into an *Error carrying the architecture, pc, symbol, instruction and
// register file.
package emu
