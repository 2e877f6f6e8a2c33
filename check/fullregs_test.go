package check

import (
	"fmt"
	"slices"
	"testing"

	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
)

// copyInvocation copies what the analysis reads of a run (the harness
// recycles invocations after each batch).
func copyInvocation(inv *harness.Invocation) *harness.Invocation {
	cp := *inv
	cp.Calls = slices.Clone(inv.Calls)
	for i := range cp.Calls {
		cp.Calls[i].Raw = slices.Clone(inv.Calls[i].Raw)
		cp.Calls[i].Backchain = slices.Clone(inv.Calls[i].Backchain)
	}
	cp.FullRegs, cp.Reads, cp.CWrites = slices.Clone(inv.FullRegs), slices.Clone(inv.Reads), slices.Clone(inv.CWrites)
	cp.Accesses, cp.GoWrites, cp.IPMods = slices.Clone(inv.Accesses), slices.Clone(inv.GoWrites), slices.Clone(inv.IPMods)
	cp.AboveBefore, cp.AboveAfter = slices.Clone(inv.AboveBefore), slices.Clone(inv.AboveAfter)
	return &cp
}

// TestFullRegsKeptRegisters: where the arch's convention keeps more
// registers after a trampoline handed full pt_regs to a callback
// (keepFullRegs: x86-64 r10 and the flags, reloaded by ftrace_regs_caller),
// a real run of the first registry entry that does so, with such a register
// changed after it, is a clobber naming the full pt_regs; the same run
// behind the old graph path (ftrace_graph_caller, which may change them
// itself) or with the register's slot unwritten is not.
func TestFullRegsKeptRegisters(t *testing.T) {
	for _, a := range regs.Arches {
		conv, err := conventionOf(a)
		if err != nil {
			t.Fatal(err)
		}
		kept := conv.keepFullRegs[trampolines.Entry]
		if len(kept) == 0 {
			continue // no such rule on this arch: nothing to break
		}
		tested := 0
		for _, v := range harness.VariantsOf(a, trampolines.Entry) {
			if tested > 0 {
				break // one entry is enough (each costs a run)
			}
			tr, err := harness.FromVariant(v)
			if err != nil {
				t.Fatal(err)
			}
			var got *harness.Invocation
			var setup harness.Setup
			_, err = Run(Config{Arch: a, Tramp: tr, Workloads: []string{"add"}, Calls: 2, NoInterrupts: true,
				Started: func(h *harness.Harness) error { setup = h.Setup; return nil },
				Observe: func(c *harness.Call) {
					for _, inv := range c.Invocations {
						if got == nil && inv.Role == trampolines.Entry && fullRegs(inv) && savedInFrame(inv, kept[0]) {
							got = copyInvocation(inv)
						}
					}
				}})
			if err != nil {
				t.Fatal(err)
			}
			if got == nil || setup.Entry.Graph == trampolines.GraphViaCaller {
				continue // no full regs with the register saved, or its own graph path
			}
			t.Run(a.Name+"/"+v.Name, func(t *testing.T) {
				tested++
				s := Subject{Arch: a, Tramp: tr, Setup: setup}
				r := kept[0]
				got.GraphActive = true
				base := analyzeHand(t, s, handBatch(got))
				if base.Has(Clobber, "") {
					t.Fatalf("the unchanged run has a clobber: %v", base.Findings)
				}
				got.After[r] ^= 0x100
				name := a.Regs[r].Name
				want := fmt.Sprintf("%%%s changed across the entry trampoline, which handed full pt_regs to the callbacks", name)
				has := func(r Result) bool {
					for _, f := range r.Findings {
						if f.Kind == Clobber && f.Register == name && f.Summary == want {
							return true
						}
					}
					return false
				}
				if res := analyzeHand(t, s, handBatch(got)); !has(res) {
					t.Errorf("no %q: %v", want, res.Findings)
				}
				old := s
				old.Setup.Entry.Graph = trampolines.GraphViaCaller
				if res := analyzeHand(t, old, handBatch(got)); has(res) {
					t.Errorf("behind the old graph path: %v", res.Findings)
				}
				got.GraphActive = false
				if res := analyzeHand(t, old, handBatch(got)); !has(res) {
					t.Errorf("old graph path, no graph user: no %q: %v", want, res.Findings)
				}
				got.FullRegs = nil
				if res := analyzeHand(t, s, handBatch(got)); has(res) {
					t.Errorf("no full regs handed: %v", res.Findings)
				}
			})
		}
		if tested == 0 {
			t.Errorf("%s: no registry entry handed full pt_regs with %s saved", a.Name, a.Regs[kept[0]].Name)
		}
	}
}
