// Package unwind holds the kernel's stack unwinders over observed memory:
// the x86-64 ORC unwinder (arch/x86/kernel/unwind_orc.c) reading the
// .orc_unwind / .orc_unwind_ip tables the kernel's objtool generated for
// the linked image. It reads guest memory only through regs.Memory and
// never imports package emu, so it is tested and fuzzed in pure Go.
package unwind
