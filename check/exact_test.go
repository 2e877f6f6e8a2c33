package check

import (
	"strings"
	"testing"

	"trampemu/asm"
	"trampemu/harness"
	"trampemu/regs"
)

// TestBlockCountersEqualPerInstructionCount proves the costs every table
// shows: for every registry variant on every arch, the block counters
// (block counts times the disassembler's facts) and emu's per-instruction
// count (Unicorn's own instructions and memory accesses) agree exactly on
// the same run.
func TestBlockCountersEqualPerInstructionCount(t *testing.T) {
	for _, a := range regs.Arches {
		vs := harness.VariantsOf(a, "")
		if len(vs) == 0 {
			t.Fatalf("%s: no variants", a.Name)
		}
		for _, v := range vs {
			t.Run(a.Name+"/"+v.Name, func(t *testing.T) {
				e, err := Exact(a, v)
				if v.NoReturn {
					// It never returns: the run stops at the limit, a
					// fault, its leave to the wrong place (an arm64 -pg
					// twin's entry returns into return_to_handler) or the
					// kernel's refusal (ftrace_return_to_handler's "Bad
					// frame pointer": the other arm64 twin, riscv64
					// rth-v6.14).
					if err == nil || !(strings.Contains(err.Error(), "instruction limit") || strings.Contains(err.Error(), "fault") ||
						strings.Contains(err.Error(), "wrong control transfer") || strings.Contains(err.Error(), "Bad frame pointer") ||
						strings.Contains(err.Error(), "host function")) {
						t.Fatalf("a variant that never returns: error %v, want the instruction limit, a fault, a wrong control transfer, a bad frame pointer or a host error", err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if e.Runs == 0 || e.Independent.Instructions == 0 {
					t.Fatalf("nothing counted: %+v", e)
				}
				if !e.Equal() {
					t.Errorf("%s", e.Diff())
				}
			})
		}
	}
}

func TestExactnessDiffNamesEveryMismatch(t *testing.T) {
	c := ExactCosts{Instructions: 13, Loads: 3, Stores: 6, LoadBytes: 24, StoreBytes: 48}
	same := Exactness{Emulated: c, Independent: c}
	if !same.Equal() || same.Diff() != "" {
		t.Errorf("equal counts reported as different: %q", same.Diff())
	}
	d := c
	d.Loads, d.StoreBytes = 2, 40
	diff := Exactness{Emulated: c, Independent: d}
	if diff.Equal() {
		t.Fatal("different counts reported equal")
	}
	for _, want := range []string{"loads: block counters 3, per-instruction 2", "store bytes: block counters 48, per-instruction 40"} {
		if !strings.Contains(diff.Diff(), want) {
			t.Errorf("diff %q lacks %q", diff.Diff(), want)
		}
	}
	if strings.Contains(diff.Diff(), "instructions") {
		t.Errorf("diff %q names a figure that agrees", diff.Diff())
	}
}

// TestExactnessCountsValgrind: valgrind's count, where it was made, is
// part of "equal": a valgrind count that differs from the block counters
// makes the row unequal and is named; none made (nil) does not.
func TestExactnessCountsValgrind(t *testing.T) {
	c := ExactCosts{Instructions: 13, Loads: 3, Stores: 6, LoadBytes: 24, StoreBytes: 48}
	same := ValgrindCosts{Instructions: 13, Loads: 3, Stores: 6}
	other := ValgrindCosts{Instructions: 14, Loads: 3, Stores: 6}
	for _, tc := range []struct {
		vg    *ValgrindCosts
		equal bool
	}{{nil, true}, {&same, true}, {&other, false}} {
		e := Exactness{Emulated: c, Independent: c, Valgrind: tc.vg}
		if e.Equal() != tc.equal {
			t.Errorf("valgrind %v: Equal() = %v, want %v", tc.vg, e.Equal(), tc.equal)
		}
		if d := e.Diff(); tc.equal != (d == "") {
			t.Errorf("valgrind %v: Diff() = %q", tc.vg, d)
		}
	}
	e := Exactness{Emulated: c, Independent: c, Valgrind: &other}
	if want := "instructions: block counters 13, valgrind 14"; e.Diff() != want {
		t.Errorf("Diff() = %q, want %q", e.Diff(), want)
	}
	writes := ValgrindCosts{Instructions: 13, Loads: 3, Stores: 5}
	e = Exactness{Emulated: c, Independent: c, Valgrind: &writes}
	if e.Equal() {
		t.Error("valgrind's data writes differ, yet equal")
	}
	if want := "stores: block counters 6, valgrind 5"; e.Diff() != want {
		t.Errorf("Diff() = %q, want %q", e.Diff(), want)
	}
	writes.Stores = 6
	if !e.Equal() {
		t.Errorf("every count agrees, yet %q", e.Diff())
	}
	writes.Loads = 2
	if e.Equal() || e.Diff() != "loads: block counters 3, valgrind 2" {
		t.Errorf("valgrind's data reads differ: %v %q", e.Equal(), e.Diff())
	}
}

// TestUnhookedCostIsTheUnitsCost: unhookedCost weighs each executed
// instruction of the listed mnemonics as unitCost weighs every one, so
// with every mnemonic of the unit listed the two agree (a real run of the
// current pairing, every arch: the entry and the exit unit), each
// mnemonic's reason is given once, and with none listed, or one the unit
// does not have, it is nothing.
func TestUnhookedCostIsTheUnitsCost(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			h := currentHarness(t, a, "function-graph", harness.Options{Checks: true})
			calls, err := harness.RandomCalls(h, "add", 2, 1)
			if err != nil {
				t.Fatal(err)
			}
			if b := h.RunBatch(len(calls), func(i int) *harness.Call { return calls[i] }); b.Stop != nil {
				t.Fatal(b.Stop.Err)
			}
			blocks := h.M.Blocks()
			d := asm.ForImage(h.Image)
			for _, u := range []asm.Unit{h.EntryUnit(), h.ExitUnit()} {
				all := map[string]string{}
				for _, b := range blocks {
					if b.Count == 0 || !u.Contains(b.Addr) {
						continue
					}
					ins, _ := asm.Listing(h.Image, d, b.Addr, b.Addr+uint64(b.Size))
					for _, in := range ins {
						mn, _, _ := strings.Cut(strings.TrimSpace(in.Text), " ")
						all[mn] = "r"
					}
				}
				want, _ := unitCost(h.Image, blocks, u)
				got, why := unhookedCost(h.Image, blocks, u, all)
				if want.Loads == 0 || got.Loads != want.Loads || got.Stores != want.Stores || got.LoadBytes != want.LoadBytes || got.StoreBytes != want.StoreBytes {
					t.Errorf("%s: every mnemonic unhooked: %+v, the unit's cost %+v", u.Name, got, want)
				}
				if n := len(strings.Split(why, "; ")); n != len(all) {
					t.Errorf("%s: %d reasons for %d mnemonics: %q", u.Name, n, len(all), why)
				}
				for _, none := range []map[string]string{nil, {"no-such-mnemonic": "r"}} {
					if m, why := unhookedCost(h.Image, blocks, u, none); m.Exact() != (ExactCosts{}) || why != "" {
						t.Errorf("%s: unhooked %v: %+v %q", u.Name, none, m, why)
					}
				}
			}
		})
	}
}
