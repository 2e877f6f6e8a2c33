package check

import (
	"trampemu/ftrace"
	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
)

// convention is what an arch's trampolines must keep, per role: the
// registers, the stack above the entry sp, and the meaning of each slot of
// the structure they hand to C.
type convention struct {
	// keep lists the registers that must come back unchanged (the stack
	// pointer and, on s390x, r14 are checked separately).
	keep map[trampolines.Role][]int
	// keepFullRegs lists the registers that must also come back unchanged
	// when the trampoline handed full pt_regs with them saved to a
	// callback (it reloads them: a kprobe handler may have set them).
	keepFullRegs map[trampolines.Role][]int
	// volatileInfo lists registers reported (as info) kept or changed.
	volatileInfo map[trampolines.Role][]int
	// allowedAbove reports whether the trampoline may write the byte at
	// offset off above its entry sp.
	allowedAbove func(role trampolines.Role, off uint64) bool
	// wantSP is the sp when control leaves the trampoline.
	wantSP func(role trampolines.Role, inv *harness.Invocation, sp int) uint64
	// meaning is the value a slot must hold when written, from the
	// registers at trampoline entry; ok false when the slot has no fixed
	// meaning.
	meaning func(role trampolines.Role, t harness.Tramp, inv *harness.Invocation, h *harness.Harness, s regs.Slot) (uint64, bool)
	// frameWords, when set, checks the words an entry trampoline leaves
	// above its entry sp for the unwinder (above: AboveWindow bytes from
	// the entry sp after the run); it returns what is wrong, one line each.
	frameWords func(inv *harness.Invocation, above []byte) []string
	// calleeArea is how many bytes above its sp (before the call) a C
	// function may write: a structure handed to it must start above them.
	calleeArea uint64
	// graphEntryArgs are the arguments an entry trampoline's own
	// ftrace_graph_caller must pass to prepare_ftrace_return.
	graphEntryArgs func(inv *harness.Invocation, abi ftrace.PrepareABI) []argWant
	// ignoreBits are bits of a slot not compared with its meaning (nil: none).
	ignoreBits func(s regs.Slot) uint64
}

// argWant is what argument Index (of the argument registers) must hold.
type argWant struct {
	Index int
	Name  string
	Want  uint64
}

func conventionOf(a *regs.Arch) convention {
	if a.Name == "s390x" {
		return s390xConvention(a)
	}
	return x86Convention(a)
}

func regsByName(a *regs.Arch, names ...string) []int {
	out := make([]int, len(names))
	for i, n := range names {
		out[i] = a.MustReg(n)
	}
	return out
}
