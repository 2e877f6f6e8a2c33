// Package regs holds the guest-architecture facts trampemu is built on: the
// register files and ABI roles of x86-64, s390x and arm64, the layout of struct
// pt_regs / struct ftrace_regs with the kernel's accessor semantics, the
// guest memory map, and the asm-offsets header the trampoline sources use.
//
// It is pure data plus small helpers and imports nothing else of the project.
package regs
