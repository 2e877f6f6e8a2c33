package check

import (
	"fmt"
	"slices"

	"trampemu/asm"
	"trampemu/harness"
	"trampemu/trampolines"
)

// The interrupt model (harness.Options.Interrupts): after the check's
// uninterrupted calls, more calls follow in which each run of the
// trampoline under test is interrupted once, at the next instruction
// boundary each run, the stack below sp overwritten as the interrupt's
// frame would (harness/x86_64.go, harness/s390x.go). Two questions per
// boundary:
//   - does the trampoline depend on memory below sp there? The run's
//     findings are collected apart; an error no uninterrupted run shows is
//     the interrupt's doing: one stack finding naming the boundary.
//   - could the arch's unwinder find the traced function's caller there?
//     (unrecoverable_insns)

// BelowSPSummary is in the summary of every stack finding the interrupt
// model makes.
const BelowSPSummary = "depends on memory below sp"

// irqRun is the findings of one interrupted run, with its boundary.
type irqRun struct {
	pc  uint64
	col collector
}

// interruptedInvocation checks an interrupted run into its own collector
// and records what the unwinder found at its boundary; it returns the
// run's index in z.irqRuns.
func (z *analyzer) interruptedInvocation(inv *harness.Invocation) int {
	pc := inv.Interrupt.PC
	z.boundaries[pc] = true
	if al := z.conv.spAlign; al != 0 && inv.Interrupt.SP%al != 0 {
		// Into the check's own findings: a misaligned sp is the
		// trampoline's, interrupted or not (Unicorn does not fault on it).
		z.col.add(Stack, "", z.reg(z.a.SP), fmt.Sprintf("sp not %d-byte aligned inside %s", al, z.roleName()),
			fmt.Sprintf("before %s (%s): sp = entry sp %+d", z.where(pc), z.insnText(pc), int64(inv.Interrupt.SP-inv.Before[z.a.SP])))
	}
	ra, ok := z.callerReturn(inv)
	if ok && !slices.Contains(inv.Interrupt.Found, ra) {
		z.unrecoverable[pc] = true
	}
	if w := inv.Interrupt.ORC; w != nil && ok {
		z.orcRan = true
		if why := orcVerdict(w, ra); why != "" {
			if _, seen := z.orcLost[pc]; !seen {
				z.orcLost[pc] = why
			}
		}
	}
	main := z.col
	z.col = collector{}
	z.invocation(inv)
	z.irqRuns = append(z.irqRuns, irqRun{pc: pc, col: z.col})
	z.col = main
	return len(z.irqRuns) - 1
}

// callerReturn is the traced function's return address into its caller:
// at the entry trampoline what the harness saw at the interrupt (the
// parent, translated through the shadow stack when an outer hook already
// replaced it), at the exit the original return address
// ftrace_return_to_handler gave back.
func (z *analyzer) callerReturn(inv *harness.Invocation) (uint64, bool) {
	if inv.Role == trampolines.Exit {
		return inv.WantPC, inv.WantPC != 0
	}
	return inv.Interrupt.Caller, inv.Interrupt.Caller != 0
}

// attributeInterrupts merges the interrupted runs' findings into the
// check's: a finding uninterrupted runs also show is counted as usual;
// error findings only interrupted runs show become one stack finding per
// boundary, with the first of them as its example.
func (z *analyzer) attributeInterrupts() {
	for _, r := range z.irqRuns {
		var fresh *Finding
		for _, key := range r.col.order {
			f := r.col.byKey[key]
			if _, seen := z.col.byKey[key]; seen || f.Severity != Error {
				for i := 0; i < f.Count; i++ {
					z.col.add(f.Kind, f.Slot, f.Register, f.Summary, exampleOf(f))
				}
				continue
			}
			if fresh == nil {
				fresh = f
			}
		}
		if fresh != nil {
			then := fmt.Sprintf("then %s: %s", fresh.Kind, fresh.Summary)
			if ex := exampleOf(fresh); ex != "" {
				then += ", " + ex
			}
			z.col.add(Stack, "", "", fmt.Sprintf("%s %s: an interrupt at %s (%s) overwrites it",
				z.roleName(), BelowSPSummary, z.where(r.pc), z.insnText(r.pc)), then)
		}
	}
	z.irqRuns = nil
}

// exampleOf recovers the example a finding's message was built with.
func exampleOf(f *Finding) string {
	if len(f.Message) > len(f.Summary)+len(" (first seen: )") {
		return f.Message[len(f.Summary)+len(" (first seen: ") : len(f.Message)-1]
	}
	return ""
}

func (z *analyzer) insnText(pc uint64) string {
	if z.s.Insn == nil {
		return "?"
	}
	return z.s.Insn(pc)
}

// missingBoundaries counts the executed boundaries (the instructions of
// the trampoline under test that ran) not interrupted yet.
func (z *analyzer) missingBoundaries(executed []uint64) int {
	n := 0
	for _, pc := range executed {
		if !z.boundaries[pc] {
			n++
		}
	}
	return n
}

// unwindMetrics fills the interrupt-model metrics, counted over u, the
// unit the cost counts (harness.MeasureUnit: ftrace_graph_caller's own
// instructions for its row, not the whole ftrace_caller path the model
// interrupts).
func (z *analyzer) unwindMetrics(m *Metrics, u asm.Unit) {
	m.Boundaries = 0
	for pc := range z.boundaries {
		if u.Contains(pc) {
			m.Boundaries++
		}
	}
	pcs := make([]uint64, 0, len(z.unrecoverable))
	for pc := range z.unrecoverable {
		if u.Contains(pc) {
			pcs = append(pcs, pc)
		}
	}
	m.UnrecoverableInsns = len(pcs)
	slices.Sort(pcs)
	for _, pc := range pcs {
		m.Unrecoverable = append(m.Unrecoverable, z.where(pc))
	}
	m.UnrecoverablePCs = pcs
	m.HasORC = z.orcRan
	var orc []uint64
	for pc := range z.orcLost {
		if u.Contains(pc) {
			orc = append(orc, pc)
		}
	}
	slices.Sort(orc)
	m.ORCUnrecoverableInsns = len(orc)
	for _, pc := range orc {
		m.ORCUnrecoverable = append(m.ORCUnrecoverable, z.where(pc))
	}
}

// orcVerdict says why an ORC walk from an interrupt loses the traced
// function's caller ra ("" when it does not): ra not in the chain, the
// walk unreliable (state->error), or it never reached the end of the
// stack.
func orcVerdict(w *harness.ORCWalk, ra uint64) string {
	switch {
	case !slices.Contains(w.IPs[min(1, len(w.IPs)):], ra):
		if w.Err != "" {
			return "caller not found: " + w.Err
		}
		return "caller not found"
	case w.Err != "":
		return "unreliable: " + w.Err
	case !w.Done:
		return "did not reach the end of the stack"
	}
	return ""
}
