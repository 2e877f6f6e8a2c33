package harness

import (
	"fmt"

	"trampemu/ftrace"
	"trampemu/regs"
)

// harnessArch is the per-arch surface of package harness, one value per
// guest architecture filled in that arch's file (x86_64.go, s390x.go), the
// way cmd/link/internal/amd64.Init hands ld.Arch to the generic linker.
// Generic code calls these hooks and never compares arch names. The call
// sites and their patching are package ftrace's (ftrace.ArchOps).
type harnessArch struct {
	// unwind is the arch's stack-unwinder rule for the interrupt model.
	unwind unwinder
	// prepareABI is the prepare_ftrace_return form of the registry
	// variants' era.
	prepareABI ftrace.PrepareABI
	// regsUserExtra are the pt_regs fields without a register that a
	// kprobe-style handler reads besides ftrace's own (x86-64 CS and SS).
	regsUserExtra []string
	// calleeSavedSum is k of the callee_saved workload's result k*x: the
	// sum of the multiples it keeps in callee-saved registers.
	calleeSavedSum uint64
	// chain, when set, walks the frame chain from sp at a host call
	// (s390x back chains) into out.
	chain func(h *Harness, out []uint64, sp uint64) []uint64
	// driverFrame, when set, prepares the driver's frame before a run
	// (s390x: it ends the back chain).
	driverFrame func(h *Harness)
}

// harnessArches holds each arch's hooks by arch name, filled by the
// per-arch files.
var harnessArches = map[string]*harnessArch{}

// hooksOf returns the arch's hooks, or an error naming the arch.
func hooksOf(a *regs.Arch) (*harnessArch, error) {
	if h, ok := harnessArches[a.Name]; ok {
		return h, nil
	}
	return nil, fmt.Errorf("harness: no support for architecture %s", a.Name)
}

// mustHooks is hooksOf for the arches of regs.Arches; it panics on any
// other, which only a programming error in this project can cause.
func mustHooks(a *regs.Arch) *harnessArch {
	h, err := hooksOf(a)
	if err != nil {
		panic(err)
	}
	return h
}
