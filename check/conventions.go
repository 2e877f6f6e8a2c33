package check

import (
	"fmt"
	"slices"

	"trampemu/ftrace"
	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
)

// convention is what an arch's trampolines must keep, per role: the
// registers, the stack above the entry sp, and the meaning of each slot of
// the structure they hand to C.
type convention struct {
	// unhooked are mnemonics whose memory accesses Unicorn's memory hooks
	// do not see (QEMU runs them in a helper that reaches guest memory
	// without the TCG callbacks): Exact adds their static facts to the
	// per-instruction count and says so (Exactness.Unhooked).
	unhooked map[string]string
	// keep lists the registers that must come back unchanged (the stack
	// pointer and the link register are checked separately); built from
	// the ABI roles by entryKept and exitKept.
	keep map[trampolines.Role][]int
	// pgKeep, when set, is keep for an entry called from gcc's -pg call
	// site (harness.Invocation.Pg): an ordinary call, after which only
	// the callee-saved registers must hold what they held.
	pgKeep []int
	// entryKeepIf lists, by option, the registers an entry trampoline
	// must also keep in a build that defines the option
	// (harness.Tramp.Source.Defines): riscv64 CONFIG_CC_IS_CLANG's t2-t6,
	// in which clang's fastcc passes arguments.
	entryKeepIf map[string][]int
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
	meaning func(role trampolines.Role, t harness.Tramp, inv *harness.Invocation, s regs.Slot) (uint64, bool)
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
	// parentIP is the traced function's return address into its caller
	// at entry-trampoline entry: the parent_ip the callbacks must get.
	parentIP func(inv *harness.Invocation) uint64
	// directLink, when set, is the link register an entry trampoline
	// leaves with when it branches into a direct trampoline (arm64: x30 =
	// where the traced function continues, x9 its lr); nil: as for a
	// return into the traced function.
	directLink func(inv *harness.Invocation) uint64
	// exitLinkFree: the link register carries nothing after a return, so
	// an exit may leave any value in it (riscv64: return_to_handler
	// returns with "jalr a2", which writes ra).
	exitLinkFree bool
	// callAlign is the alignment sp must have at a call into C (0: 8).
	callAlign uint64
	// spAlign, when set, is the alignment sp must have at every
	// instruction boundary of the trampoline (arm64: 16, the kernel keeps
	// it always), checked where the interrupt model stops each run.
	spAlign uint64

	// callChain, when set, checks the frame chain the harness walked from
	// sp at a host call (HostCall.Backchain: s390x back chains; the same
	// hook serves a frame-record chain): it returns the summary and the
	// example of a backchain finding, or "" when the chain is sound.
	callChain func(inv *harness.Invocation, hc *harness.HostCall) (summary, example string)
}

// argWant is what argument Index (of the argument registers) must hold.
type argWant struct {
	Index int
	Name  string
	Want  uint64
}

// conventions holds each arch's convention by arch name, registered by the
// per-arch files (x86_64.go, s390x.go, arm64.go), as harness/arch.go holds
// its hooks.
var conventions = map[string]func(a *regs.Arch) convention{}

// conventionOf returns the arch's convention, or an error naming the arch.
func conventionOf(a *regs.Arch) (convention, error) {
	if c, ok := conventions[a.Name]; ok {
		return c(a), nil
	}
	return convention{}, fmt.Errorf("check: no convention for architecture %s", a.Name)
}

// entryKept is what an entry trampoline must hand the traced function as
// its caller left it, from the ABI roles: the argument registers (the
// function has not read them yet) and the callee-saved registers (sp is
// checked apart), plus extra, registers the kernel convention adds. In
// register order.
func entryKept(a *regs.Arch, extra ...int) []int {
	return regSet(a, slices.Concat(a.Args, a.CalleeSaved, extra), a.SP)
}

// exitKept is what return_to_handler must hand the traced function's
// caller as the traced function returned it: the return registers and the
// callee-saved registers (sp is checked apart). In register order.
func exitKept(a *regs.Arch) []int {
	return regSet(a, slices.Concat(a.Ret, a.CalleeSaved), a.SP)
}

// volatileAfterReturn are the registers a function may leave anything in
// that carry nothing at its return: the volatile ones without the return
// registers, the entry scratch, the link register and the flags. In
// register order.
func volatileAfterReturn(a *regs.Arch) []int {
	out := []int{}
	for _, i := range regSet(a, a.Volatile) {
		if !slices.Contains(a.Ret, i) && !a.IsEntryScratch(i) && i != a.Link && i != a.Flags {
			out = append(out, i)
		}
	}
	return out
}

// regSet is the registers of in, without those of drop, each once, in
// register order.
func regSet(a *regs.Arch, in []int, drop ...int) []int {
	var out []int
	for i := range a.Regs {
		if slices.Contains(in, i) && !slices.Contains(drop, i) {
			out = append(out, i)
		}
	}
	return out
}

func regsByName(a *regs.Arch, names ...string) []int {
	out := make([]int, len(names))
	for i, n := range names {
		out[i] = a.MustReg(n)
	}
	return out
}
