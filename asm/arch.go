package asm

import (
	"debug/elf"
	"fmt"

	"trampemu/regs"
)

// asmArch is the per-arch surface of package asm, one value per guest
// architecture filled in that arch's file (x86_64.go, s390x.go), the way
// cmd/link/internal/amd64.Init hands ld.Arch to the generic linker.
// Generic code calls these hooks and never compares arch names.
type asmArch struct {
	arch *regs.Arch
	// elfMachine is the e_machine of the arch's objects.
	elfMachine elf.Machine
	// ldEmulation is GNU ld's -m emulation for the arch's objects
	// (ld -V lists them).
	ldEmulation string
	// asFlags select the 64-bit target of the arch's GNU as; regs.Arch
	// AsFlags (the instruction-set level) follow them.
	asFlags []string
	// prelude is the arch's part of the macro prelude (after commonPrelude).
	prelude string
	// disassembler returns the arch's decoder (operand and memory-access
	// facts per instruction); sym may be nil.
	disassembler func(sym Symbolizer) Disassembler
	// objtool: every object goes through the kernel's objtool (ORC
	// generation and stack validation, x86-64 only: tools/objtool has no
	// s390x ORC, and arm64 objtool is not in any release).
	objtool bool
	// signature is what makes the arch's assembly text recognisable
	// (GuessArch): a file of another arch is answered in one line.
	signature *archSignature
}

// asmArches lists the hooks of every supported architecture.
var asmArches = []*asmArch{x86Asm, s390Asm, arm64Asm, riscv64Asm}

// mustAsmArch returns the arch's hooks; it panics for an arch outside
// regs.Arches, which only a programming error in this project can cause.
func mustAsmArch(a *regs.Arch) *asmArch {
	for _, h := range asmArches {
		if h.arch.Name == a.Name {
			return h
		}
	}
	panic(fmt.Sprintf("asm: no support for architecture %s", a.Name))
}
