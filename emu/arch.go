package emu

import (
	"fmt"

	"trampemu/regs"
)

// machineArch is the per-arch surface of package emu, one value per guest
// architecture filled in that arch's file (x86_64.go, s390x.go), the way
// cmd/link/internal/amd64.Init hands ld.Arch to the generic linker (x86_64.go,
// s390x.go, arm64.go). Generic code calls these hooks and never compares
// arch names.
type machineArch struct {
	arch *regs.Arch
	// physLayout assigns a physical address to each region of the memory
	// map (x86-64: behind page tables; s390x: virtual = physical).
	physLayout func(rs []regs.Region) []uint64
	// setup runs once the regions are mapped: x86-64 page tables and
	// paging, the s390x PSW mask of 64-bit addressing.
	setup func(m *Machine) error
	// decodeInterrupt turns an interrupt stop (intno) at pc into e.Kind,
	// e.Detail and the fault address; false when the interrupt is none of
	// the arch's faults (then it is a trap instruction).
	decodeInterrupt func(m *Machine, e *Error, intno int, pc uint64) bool
	// flagsXor and flagsOr are what a clobbering host function does to
	// the flags register that held v: (v ^ flagsXor) | flagsOr
	// (clobberFlags), in Go and in C (tm_set_clobber).
	flagsXor, flagsOr uint64
	// flagsWriteHasEffects: writing the flags register changes more than
	// its value (s390x: writing the PSW mask also sets the condition code),
	// so SetRegs writes it only when it differs.
	flagsWriteHasEffects bool
	// faultAtBlockStart: a memory fault leaves the pc at the start of the
	// translated block, not at the faulting instruction (Unicorn 2.1.1's
	// arm64 syncs the pc only at block boundaries); Run then finds the
	// instruction (faultingInsn).
	faultAtBlockStart bool
	// clobberCode is guest code that loads vals[k] into register regs[k]
	// (indices of regs.Arch.Regs) and returns as the host stub would (the
	// clobber routine, clobber.go); jump is an unconditional branch from
	// one address to another. nil: C writes every clobbered register.
	clobberCode func(regs []int, vals []uint64) []byte
	jump        func(from, to uint64) []byte
	// trapAsInvalid: Unicorn stops a trap instruction with
	// UC_ERR_INSN_INVALID instead of an interrupt (riscv64 ebreak); Run
	// then reports a trap when the instruction at pc decodes as one.
	trapAsInvalid bool
	// guardCode hooks the instructions of the code [lo, hi) that Unicorn
	// would not fault on as the CPU does (s390x: an lpswe of an invalid
	// PSW mask); nil: none.
	guardCode func(m *Machine, lo, hi uint64) error
	// contextRegs: read the registers of callbacks and watch events from
	// one saved copy of the CPU state (uc_context_save) at offsets found
	// at start (tm_ctx_calibrate), not with a uc_reg_read per register:
	// for an arch whose context is small and whose register reads are slow.
	contextRegs bool
}

// clobberFlags is what a clobbering host function leaves in the flags
// register that held v.
func (h *machineArch) clobberFlags(v uint64) uint64 { return (v ^ h.flagsXor) | h.flagsOr }

// machineArches lists the hooks of every supported architecture.
var machineArches = []*machineArch{x86Machine, s390Machine, arm64Machine, riscv64Machine}

// machineArchOf returns the hooks of the arch, or an error naming it.
func machineArchOf(a *regs.Arch) (*machineArch, error) {
	for _, h := range machineArches {
		if h.arch.Name == a.Name {
			return h, nil
		}
	}
	return nil, fmt.Errorf("emu: no machine support for architecture %s", a.Name)
}
