package harness

import (
	"trampemu/emu"
	"trampemu/regs"
	"trampemu/trampolines"
)

// InterruptDepth is how many bytes below sp the modelled interrupt
// overwrites: more than the frame a kernel-mode interrupt pushes onto the
// interrupted stack on either arch (x86-64: the CPU's 40-byte frame, an
// error code and the pt_regs the entry code pushes below it; s390x:
// STACK_FRAME_OVERHEAD + __PT_SIZE = 352 allocated below r15; see
// x86_64.go and s390x.go).
const InterruptDepth = PoisonDepth

// Interrupt is what the modelled interrupt saw at one instruction boundary
// of a trampoline run.
type Interrupt struct {
	PC, SP uint64
	// Found are the return addresses the arch's unwinder would report
	// above the interrupted frame, from memory at or above sp, in the
	// order it meets them, return_to_handler already translated through
	// the shadow stack (ftrace_graph_ret_addr) where the shadow stack
	// still knows it.
	Found []uint64
	// Caller (entry runs) is the traced function's return address into
	// its caller at that moment, translated the same way: the parent, or,
	// when an outer frame's return was hooked already (a tail call), what
	// the shadow stack says it stands for. 0 for exit runs (the check
	// takes ftrace_return_to_handler's answer).
	Caller uint64
	// ORC is set where the arch's unwinder reads a table the kernel's
	// objtool generated for the image (x86-64): the walk of
	// arch/x86/kernel/unwind_orc.c from the interrupted registers.
	ORC *ORCWalk
}

// ORCWalk is one ORC stack walk from an interrupt: the ips it reports (the
// interrupted ip first, each return address already through
// ftrace_graph_ret_addr as the unwinder passes it), whether it reached the
// end of the stack (the driver's UNWIND_HINT_END_OF_STACK), and the error
// that made it unreliable (arch_stack_walk_reliable's -EINVAL).
type ORCWalk struct {
	IPs  []uint64
	Done bool
	Err  string
}

// unwinder is one arch's stack-unwinder rule: which return addresses it
// finds from an interrupted register file and the memory at that moment.
type unwinder struct {
	// found appends to out the return addresses an unwinder starting at
	// an interrupt with registers r in the run inv would report.
	found func(h *Harness, inv *Invocation, r *regs.RegFile, out []uint64) []uint64
	// caller returns, for an entry run, the traced function's return
	// address as the run began and the retp the shadow stack files it
	// under.
	caller func(h *Harness, inv *Invocation) (ra, retp uint64)
	// orc, when set, walks the stack with the ORC table of the image
	// from the interrupted registers r (nil when the image has no table).
	orc func(h *Harness, inv *Invocation, r *regs.RegFile) *ORCWalk
}

// armInterrupts turns on the interrupt model for the role's trampoline.
func (h *Harness) armInterrupts(role trampolines.Role) error {
	u := h.entryUnit
	if role == trampolines.Exit {
		u = h.exitUnit
	}
	h.unwind = h.hooks.unwind
	return h.M.Interrupts(u.Start, u.End, InterruptDepth, h.onInterrupt)
}

// SetInterrupting turns the interrupt model (Options.Interrupts) on or off
// for the runs that follow; it is on after Start.
func (h *Harness) SetInterrupting(on bool) {
	if h.Opts.Interrupts != "" {
		h.M.SetInterrupting(on)
	}
}

// onInterrupt records the interrupted state in the current run; the C side
// then overwrites the stack below sp.
func (h *Harness) onInterrupt(m *emu.Machine, pc uint64) error {
	h.sync()
	inv := h.inv
	if inv == nil || h.unwind.found == nil {
		return nil
	}
	r := m.Regs()
	inv.Interrupted = true
	inv.Interrupt.PC, inv.Interrupt.SP = pc, r[h.Arch.SP]
	inv.Interrupt.Found = h.unwind.found(h, inv, &r, inv.Interrupt.Found[:0])
	inv.Interrupt.ORC = nil
	if h.unwind.orc != nil {
		inv.Interrupt.ORC = h.unwind.orc(h, inv, &r)
	}
	inv.Interrupt.Caller = 0
	if inv.Role == trampolines.Entry {
		ra, retp := h.unwind.caller(h, inv)
		inv.Interrupt.Caller = h.graphRetAddr(ra, retp)
	}
	return nil
}

// graphRetAddr is ftrace_graph_ret_addr on the current task for a return
// address ra found at retp (the identity for anything but
// return_to_handler, and for a return_to_handler the shadow stack no longer
// knows).
func (h *Harness) graphRetAddr(ra, retp uint64) uint64 {
	if ra != h.rth {
		return ra
	}
	idx := 0
	return h.K.Graph.RetAddr(&idx, ra, retp)
}
