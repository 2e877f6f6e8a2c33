// Package asm turns kernel-style .S text into a linked Image for one guest
// architecture: the C preprocessor with a generated asm-offsets.h and a
// prelude of kernel linkage macros, GNU as for the target, GNU ld with a
// generated linker script placing code and data at the guest memory map's
// addresses, and debug/elf to read the result. It also decodes instructions
// (Disassembler, over golang.org/x/arch) with their static memory traffic
// and control flow, from one facts table per architecture.
//
// Each architecture is one file named for it (x86_64.go, s390x.go,
// arm64.go) filling in an asmArch of hooks, plus its facts table
// (x86_64_facts.go, s390x_facts.go, arm64_facts.go); the generic code never
// compares architecture names. guard.go keeps an untrusted .S inside its
// folders (includes, .incbin, .include) and its sizes bounded; every
// program runs under the sandbox package's limits. testdata/facts.txt is the golden facts file
// (bytes|arch|text|facts, one line per instruction, in the style of
// golang.org/x/arch's decode.txt).
package asm
