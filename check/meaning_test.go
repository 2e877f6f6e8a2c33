package check

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"slices"
	"testing"

	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
)

// TestSlotMeanings: in a real run of each arch's current entry and exit
// (harness.Current, the default users and the graph tracer) and of its
// first registry ftrace_regs_caller (the default users too), every slot the
// trampoline wrote into the structure it handed to C, one bit flipped in
// the copy the analysis decodes, gives the findings the unchanged run does
// not: a wrong value naming the slot where the arch's convention gives the
// slot a meaning at that role, none where it gives none (or where the
// unchanged run already has it: riscv64 v6.7's sp). Every slot the
// trampoline left unwritten is given a value too (0x100): what the
// convention would say had it been written. Which slot gives
// what is pinned in testdata/meanings.golden (-update rewrites it), not
// derived from the convention under test.
func TestSlotMeanings(t *testing.T) {
	const golden = "testdata/meanings.golden"
	var b bytes.Buffer
	for _, a := range regs.Arches {
		for _, c := range []struct {
			role     trampolines.Role
			scenario string
			fullRegs bool // the first registry ftrace_regs_caller, not the current entry
		}{{trampolines.Entry, "default", false}, {trampolines.Entry, "default", true}, {trampolines.Exit, "function-graph", false}} {
			tr, err := harness.Current(a, c.role)
			if err != nil {
				t.Fatal(err)
			}
			if c.fullRegs {
				tr = firstRegsCaller(t, a)
			}
			sc, err := harness.FindUserSet(c.scenario)
			if err != nil {
				t.Fatal(err)
			}
			var got *harness.Invocation
			var setup harness.Setup
			_, err = Run(Config{Arch: a, Tramp: tr, Workloads: []string{"add"}, Calls: 1, NoInterrupts: true, Scenario: sc,
				Started: func(h *harness.Harness) error { setup = h.Setup; return nil },
				Observe: func(call *harness.Call) {
					for _, inv := range call.Invocations {
						if got == nil && inv.Role == c.role && frameCall(inv) >= 0 {
							got = copyInvocation(inv)
						}
					}
				}})
			if err != nil {
				t.Fatal(err)
			}
			if got == nil {
				t.Fatalf("%s %s: no %s run handed a structure to C", a.Name, tr.Name, c.role)
			}
			s := Subject{Arch: a, Tramp: tr, Setup: setup}
			base := findingSet(analyzeHand(t, s, handBatch(got)))
			hc := &got.Calls[frameCall(got)]
			fmt.Fprintf(&b, "%s %s %s, %s (%s):\n", a.Name, c.role, tr.Name, c.scenario, hc.Layout.Name)
			fmt.Fprintf(&b, "  unchanged: %s\n", joinAdded(base, nil))
			for _, st := range hc.Slots() {
				sl := hc.Layout.Slots[st.Index]
				raw := hc.Raw[sl.Off : sl.Off+sl.Size]
				orig := slices.Clone(raw)
				what := ""
				if st.Written {
					flipBit8(a, raw)
				} else {
					// An unwritten slot given a value (0x100, no poison):
					// what it would mean had the trampoline written it.
					clear(raw)
					flipBit8(a, raw)
					what = " (unwritten, set to 0x100)"
				}
				added := joinAdded(findingSet(analyzeHand(t, s, handBatch(got))), base)
				copy(raw, orig)
				if added == "" {
					added = "-"
				}
				fmt.Fprintf(&b, "  %s%s: %s\n", sl.Name, what, added)
			}
		}
	}
	// -update is golden_test.go's flag (package check_test, the same test
	// binary).
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test ./check -run TestSlotMeanings -update writes it)", err)
	}
	if b.String() != string(want) {
		t.Errorf("slot meanings differ from %s (-update rewrites it):\n%s", golden, b.String())
	}
}

// firstRegsCaller is the arch's first registry entry whose symbol is
// ftrace_regs_caller (the full pt_regs of every era that has one).
func firstRegsCaller(t *testing.T, a *regs.Arch) harness.Tramp {
	t.Helper()
	for _, v := range harness.VariantsOf(a, trampolines.Entry) {
		tr, err := harness.FromVariant(v)
		if err != nil {
			t.Fatal(err)
		}
		if tr.Symbol == "ftrace_regs_caller" {
			return tr
		}
	}
	t.Fatalf("%s: no registry ftrace_regs_caller", a.Name)
	return harness.Tramp{}
}

// frameCall is the index of the invocation's first host call that got a
// structure (the one the analysis checks the slots of), or -1.
func frameCall(inv *harness.Invocation) int {
	for i := range inv.Calls {
		if inv.Calls[i].Layout != nil {
			return i
		}
	}
	return -1
}

// findingSet is a result's findings as strings (kind, slot, register and
// summary: the example's values differ from run to run of a flip).
func findingSet(r Result) map[string]bool {
	out := map[string]bool{}
	for _, f := range r.Findings {
		out[fmt.Sprintf("%s %s %%%s: %s", f.Kind, f.Slot, f.Register, f.Summary)] = true
	}
	return out
}

// joinAdded lists the findings of set not in except, sorted, "; " between.
func joinAdded(set, except map[string]bool) string {
	var fs []string
	for f := range set {
		if !except[f] {
			fs = append(fs, f)
		}
	}
	slices.Sort(fs)
	out := ""
	for i, f := range fs {
		if i > 0 {
			out += "; "
		}
		out += f
	}
	return out
}

// flipBit8 flips bit 8 of the slot's bytes (a word or a 32-bit slot, in
// the arch's byte order): outside s390x's ignored condition code bits.
func flipBit8(a *regs.Arch, b []byte) {
	if len(b) == 8 {
		a.PutWord(b, a.Word(b)^0x100)
		return
	}
	a.ByteOrder.PutUint32(b, a.ByteOrder.Uint32(b)^0x100)
}
