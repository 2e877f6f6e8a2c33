package harness

import (
	"fmt"

	"trampemu/ftrace"
	"trampemu/regs"
)

// harnessArch is the per-arch surface of package harness, one value per
// guest architecture filled in that arch's file (x86_64.go, s390x.go,
// arm64.go), the
// way cmd/link/internal/amd64.Init hands ld.Arch to the generic linker.
// Generic code calls these hooks and never compares arch names. The call
// sites and their patching are package ftrace's (ftrace.ArchOps).
type harnessArch struct {
	// unwind is the arch's stack-unwinder rule for the interrupt model.
	unwind unwinder
	// retWalk, when set, is the perf stack walk of a return probe from
	// pt (ftrace_partial_regs of the exit's ftrace_regs) in the run inv,
	// with the chain it must give (bpf-ret user).
	retWalk func(h *Harness, inv *Invocation, pt *regs.Frame) StackWalk
	// retRegs, when set, is what the arch's arch_ftrace_partial_regs
	// does to a return probe's regs (x86-64: cs and the X86_EFLAGS_FIXED
	// bit); v618 selects the form of v6.18-v6.19 (UserSet.RetRegsV618).
	retRegs func(pt *regs.Frame, v618 bool)
	// prepareABI is the prepare_ftrace_return form of the registry
	// variants' era.
	prepareABI ftrace.PrepareABI
	// regsUserExtra are the pt_regs fields without a register that a
	// kprobe-style handler reads besides ftrace's own (x86-64 CS and SS).
	regsUserExtra []string
	// calleeSavedSum is k of the callee_saved workload's result k*x: the
	// sum of the multiples it keeps in callee-saved registers.
	calleeSavedSum uint64
	// chain, when set, walks the frame chain from the registers r at a
	// host call into out (s390x back chains from r15; arm64 frame records
	// from x29), and appends the words the walk read to loads (the
	// unwinder's reads: HostCall.ChainLoads).
	chain func(h *Harness, out []uint64, loads []Access, r *regs.RegFile) ([]uint64, []Access)
	// driverFrame, when set, prepares the driver's frame before a run
	// (s390x: it ends the back chain; arm64: the frame record the driver's
	// x29 points to).
	driverFrame func(h *Harness)
	// callRegs, when set, adjusts the registers the driver sets for a call
	// (arm64: x29 = the driver's frame record, so frame records chain).
	callRegs func(h *Harness, in *regs.RegFile)
	// driverRecord, when set, is the address of the driver's frame record
	// (RunFacts.DriverRecord).
	driverRecord func(h *Harness) uint64
	// entryRet is the address an entry trampoline returns to in the traced
	// function (ip + MCOUNT_INSN_SIZE), from the registers and the stack
	// above sp at its entry.
	entryRet func(h *Harness, inv *Invocation) uint64
	// linkSlot is the frame slot the entry trampoline reloads the link
	// register from after the callbacks (s390x gprs[14], arm64 lr), ""
	// when calls push the return address (x86-64).
	linkSlot string
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
