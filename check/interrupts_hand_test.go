package check

import (
	"errors"
	"fmt"
	"testing"

	"trampemu/asm"
	"trampemu/harness"
	"trampemu/regs"
)

// The interrupt model's analysis on hand observations (interrupts.go):
// an interrupted run's errors no uninterrupted run shows become one stack
// finding naming the boundary; the unwind metrics count the boundaries
// and where the unwinder lost the caller.

// handInterrupted is the clean entry run, interrupted at pc with sp 16
// below the entry sp (aligned on every arch), the unwinder finding the
// caller's return address when found is set.
func handInterrupted(t *testing.T, a *regs.Arch, pc uint64, found bool) *harness.Invocation {
	t.Helper()
	conv, err := conventionOf(a)
	if err != nil {
		t.Fatal(err)
	}
	inv := handInvocation(t, a)
	inv.Interrupted = true
	inv.Interrupt.PC, inv.Interrupt.SP = pc, inv.Before[a.SP]-16
	inv.Interrupt.Caller = conv.parentIP(inv)
	if found {
		inv.Interrupt.Found = []uint64{0x1, inv.Interrupt.Caller}
	}
	return inv
}

func TestInterruptedRunsByHand(t *testing.T) {
	for _, a := range regs.Arches {
		text := a.Memory.Text.Base
		s := handSubject(a)
		s.Unit = asm.Unit{Name: "hand", Start: text + 0x800, End: text + 0x900}
		pc1, pc2, outside := text+0x804, text+0x808, text+0x10
		run := func(name string, f func(t *testing.T)) { t.Run(a.Name+"/"+name, f) }
		reg := firstCalleeSaved(a)
		rn := a.Regs[reg].Name

		run("clean interrupted runs: the metrics", func(t *testing.T) {
			b := handBatch(handInvocation(t, a))
			i1, i2, i3, i4 := handInterrupted(t, a, pc1, true), handInterrupted(t, a, pc2, false), handInterrupted(t, a, outside, false), handInterrupted(t, a, pc2, false)
			i4.Interrupt.Caller = 0 // unknown: not counted as lost
			b.Calls = append(b.Calls, &harness.Call{Workload: "add", Done: true, Results: []uint64{3}, Want: []uint64{3}, Invocations: []*harness.Invocation{i1}},
				&harness.Call{Workload: "add", Done: true, Results: []uint64{3}, Want: []uint64{3}, Invocations: []*harness.Invocation{i2}},
				&harness.Call{Workload: "add", Done: true, Results: []uint64{3}, Want: []uint64{3}, Invocations: []*harness.Invocation{i3}},
				&harness.Call{Workload: "add", Done: true, Results: []uint64{3}, Want: []uint64{3}, Invocations: []*harness.Invocation{i4}})
			r := analyzeHand(t, s, b)
			expectFindings(t, r)
			m := r.Metrics
			if m.Boundaries != 2 || m.UnrecoverableInsns != 1 || len(m.Unrecoverable) != 1 || m.Unrecoverable[0] != fmt.Sprintf("%#x", pc2) || m.HasORC {
				t.Errorf("boundaries %d lost %d %v orc %v, want 2, 1 [%#x], false", m.Boundaries, m.UnrecoverableInsns, m.Unrecoverable, m.HasORC, pc2)
			}
			if m.Calls != 5 {
				t.Errorf("calls %d, want 5 (every run of the trampoline)", m.Calls)
			}
		})
		run("an error only the interrupted run shows", func(t *testing.T) {
			b := handBatch(handInvocation(t, a))
			irq := handInterrupted(t, a, pc1, true)
			irq.After[reg]++
			b.Calls = append(b.Calls, &harness.Call{Workload: "add", Done: true, Results: []uint64{3}, Want: []uint64{3}, Invocations: []*harness.Invocation{irq}})
			expectFindings(t, analyzeHand(t, s, b), want{kind: Stack,
				message: fmt.Sprintf("the entry trampoline %s: an interrupt at %#x (?) overwrites it (first seen: then clobber: %%%s changed across the entry trampoline, %#x -> %#x)",
					BelowSPSummary, pc1, rn, irq.Before[reg], irq.After[reg])})
		})
		run("an error both show is counted as usual", func(t *testing.T) {
			inv := handInvocation(t, a)
			inv.After[reg]++
			b := handBatch(inv)
			irq := handInterrupted(t, a, pc1, true)
			irq.After[reg]++
			b.Calls = append(b.Calls, &harness.Call{Workload: "add", Done: true, Results: []uint64{3}, Want: []uint64{3}, Invocations: []*harness.Invocation{irq}})
			expectFindings(t, analyzeHand(t, s, b), want{kind: Clobber, reg: rn, count: 2,
				message: fmt.Sprintf("%%%s changed across the entry trampoline (first seen: %#x -> %#x)", rn, inv.Before[reg], inv.After[reg])})
		})
		run("a wrong result of an interrupted call is the interrupt's", func(t *testing.T) {
			b := handBatch(handInvocation(t, a))
			irq := handInterrupted(t, a, pc1, true)
			b.Calls = append(b.Calls, &harness.Call{Workload: "add", Done: true, Results: []uint64{4}, Want: []uint64{3}, Invocations: []*harness.Invocation{irq}})
			expectFindings(t, analyzeHand(t, s, b), want{kind: Stack,
				message: fmt.Sprintf("the entry trampoline %s: an interrupt at %#x (?) overwrites it (first seen: then clobber: add returned a wrong result (word 0), 0x4, want 0x3)", BelowSPSummary, pc1)})
		})
		run("a wrong result after the interrupted run's error is its consequence", func(t *testing.T) {
			b := handBatch(handInvocation(t, a))
			irq := handInterrupted(t, a, pc1, true)
			irq.After[reg]++
			b.Calls = append(b.Calls, &harness.Call{Workload: "add", Done: true, Results: []uint64{4}, Want: []uint64{3}, Invocations: []*harness.Invocation{irq}})
			expectFindings(t, analyzeHand(t, s, b), want{kind: Stack,
				message: fmt.Sprintf("the entry trampoline %s: an interrupt at %#x (?) overwrites it (first seen: then clobber: %%%s changed across the entry trampoline, %#x -> %#x)",
					BelowSPSummary, pc1, rn, irq.Before[reg], irq.After[reg])})
		})
		run("a run stopped inside an interrupted run", func(t *testing.T) {
			b := handBatch(handInvocation(t, a))
			irq := handInterrupted(t, a, pc1, true)
			irq.Left = false
			b.Calls = append(b.Calls, &harness.Call{Workload: "add", Invocations: []*harness.Invocation{irq}})
			st := &harness.Stop{Err: errors.New("fault"), Emulated: true, Fault: true, Kind: "memory fault", Arch: a.Name, Where: "w", Insn: "i", Detail: "d"}
			b.Stop = st
			expectFindings(t, analyzeHand(t, s, b), want{kind: Stack,
				message: fmt.Sprintf("the entry trampoline %s: an interrupt at %#x (?) overwrites it (first seen: then fault: memory fault at w: i, d%s)", BelowSPSummary, pc1, machineState(st))})
		})
		run("an info finding of an interrupted run is kept", func(t *testing.T) {
			b := handBatch(handInvocation(t, a))
			irq := handInterrupted(t, a, pc1, true)
			irq.Probed = true
			z, err := newAnalyzer(s)
			if err != nil {
				t.Fatal(err)
			}
			z.batch(b)
			i := z.interruptedInvocation(irq)
			z.irqRuns[i].col.add(UnusedStore, "R9", "", "R9 is written and never read", "")
			z.irqRuns[i].col.add(UnusedStore, "R9", "", "R9 is written and never read", "")
			z.finish()
			fs := z.col.findings()
			if len(fs) != 1 || fs[0].Kind != UnusedStore || fs[0].Count != 2 || fs[0].Message != "R9 is written and never read" {
				t.Errorf("got %q", findingTexts(fs))
			}
		})
		run("the exit's caller is the original return address", func(t *testing.T) {
			inv, es := handExit(t, a)
			es.Unit = s.Unit
			b := handBatch(inv)
			irq, _ := handExit(t, a)
			irq.Interrupted = true
			irq.Interrupt.PC, irq.Interrupt.SP = pc1, irq.Before[a.SP]-16
			irq.Interrupt.Found = []uint64{irq.WantPC}
			irq2, _ := handExit(t, a)
			irq2.Interrupted = true
			irq2.Interrupt.PC, irq2.Interrupt.SP = pc2, irq2.Before[a.SP]-16
			irq2.Interrupt.Found = []uint64{irq2.WantPC + 4}
			b.Calls = append(b.Calls, &harness.Call{Workload: "add", Done: true, Results: []uint64{3}, Want: []uint64{3}, Invocations: []*harness.Invocation{irq, irq2}})
			r := analyzeHand(t, es, b)
			if m := r.Metrics; m.Boundaries != 2 || m.UnrecoverableInsns != 1 || m.UnrecoverablePCs[0] != pc2 {
				t.Errorf("boundaries %d lost %d %v, want 2, 1 at %#x", m.Boundaries, m.UnrecoverableInsns, m.UnrecoverablePCs, pc2)
			}
		})
		run("ORC walks", func(t *testing.T) {
			b := handBatch(handInvocation(t, a))
			var invs []*harness.Invocation
			for i, w := range []*harness.ORCWalk{
				{IPs: []uint64{0x1, 0}, Done: true}, // filled below: the caller found
				{IPs: []uint64{0x1}, Done: true},
				{IPs: []uint64{0x1}, Done: true, Err: "second"}, // the same boundary: the first walk's verdict stays
				{IPs: []uint64{0x1}, Done: true},                // outside the unit
			} {
				pc := []uint64{pc1, pc2, pc2, outside}[i]
				irq := handInterrupted(t, a, pc, true)
				if i == 0 {
					w.IPs[1] = irq.Interrupt.Caller
				}
				irq.Interrupt.ORC = w
				invs = append(invs, irq)
			}
			b.Calls = append(b.Calls, &harness.Call{Workload: "add", Done: true, Results: []uint64{3}, Want: []uint64{3}, Invocations: invs})
			r := analyzeHand(t, s, b)
			m := r.Metrics
			if !m.HasORC || m.ORCUnrecoverableInsns != 1 || len(m.ORCUnrecoverable) != 1 || m.ORCUnrecoverable[0] != fmt.Sprintf("%#x", pc2) {
				t.Errorf("orc %v lost %d %v, want true 1 [%#x]", m.HasORC, m.ORCUnrecoverableInsns, m.ORCUnrecoverable, pc2)
			}
			z, err := newAnalyzer(s)
			if err != nil {
				t.Fatal(err)
			}
			for _, inv := range invs[:3] {
				z.interruptedInvocation(inv)
			}
			if got := z.orcLost[pc2]; got != "caller not found" {
				t.Errorf("the boundary's verdict %q, want the first walk's", got)
			}
		})
	}
}

func TestORCVerdict(t *testing.T) {
	const ra = 0x40
	for _, c := range []struct {
		w    harness.ORCWalk
		want string
	}{
		{harness.ORCWalk{IPs: []uint64{0x10, ra}, Done: true}, ""},
		{harness.ORCWalk{IPs: []uint64{ra}, Done: true}, "caller not found"}, // the interrupted ip itself is no caller
		{harness.ORCWalk{Done: true}, "caller not found"},
		{harness.ORCWalk{IPs: []uint64{0x10}, Err: "bad"}, "caller not found: bad"},
		{harness.ORCWalk{IPs: []uint64{0x10, ra}, Done: true, Err: "bad"}, "unreliable: bad"},
		{harness.ORCWalk{IPs: []uint64{0x10, ra}}, "did not reach the end of the stack"},
	} {
		if got := orcVerdict(&c.w, ra); got != c.want {
			t.Errorf("%+v: %q, want %q", c.w, got, c.want)
		}
	}
}

func TestExampleOf(t *testing.T) {
	for _, c := range []struct{ summary, example string }{{"s", "e"}, {"sum", ""}, {"x", "(first seen: )"}} {
		var col collector
		col.add(Clobber, "", "", c.summary, c.example)
		f := col.findings()[0]
		if got := exampleOf(&f); got != c.example {
			t.Errorf("exampleOf(%q) = %q, want %q", f.Message, got, c.example)
		}
	}
}

// TestUnvisitedNoteOfFour: four boundaries are all named, with no "and 0
// more".
func TestUnvisitedNoteOfFour(t *testing.T) {
	z := &analyzer{t: harness.Tramp{}}
	z.unvisited([]uint64{0x10, 0x14, 0x18, 0x1c}, "")
	fs := z.col.findings()
	want := "4 executed instruction boundaries of return_to_handler not interrupted: no interrupted run reached them (first seen: 0x10, 0x14, 0x18, 0x1c)"
	if len(fs) != 1 || fs[0].Message != want {
		t.Fatalf("got %q, want %q", findingTexts(fs), want)
	}
}
