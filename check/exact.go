package check

import (
	"fmt"
	"strings"
	"time"

	"trampemu/emu"
	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
)

// Exactness proves one variant's cost: the block-counter cost (block
// counts in C times the disassembler's static facts, what every table
// shows) next to an independent count of the same run by emu's
// per-instruction counting mode (Unicorn's own view of each instruction
// and memory access), per traced call of workload add.
type Exactness struct {
	Arch    string `json:"arch"`
	Variant string `json:"variant"`
	Role    string `json:"role"`
	// Runs is the number of trampoline runs the figures are averaged over.
	Runs        uint64     `json:"runs"`
	Emulated    ExactCosts `json:"emulated"`
	Independent ExactCosts `json:"independent"`
	// Valgrind is valgrind's count per traced call of the same code run
	// natively (callgrind's Ir, Dr and Dw; x86-64 only, nil where there is
	// none). Package check does not compute it: the caller fills it in.
	Valgrind *ValgrindCosts `json:"valgrind"`
}

// ValgrindCosts are callgrind's instructions, data reads and data writes
// per traced call (native.ValgrindCost: with the implicit stack accesses
// of call/ret/push/pop, as the emulated counts).
type ValgrindCosts struct {
	Instructions float64 `json:"instructions"`
	Loads        float64 `json:"loads"`
	Stores       float64 `json:"stores"`
}

// ExactCosts are the costs per traced call.
type ExactCosts struct {
	Instructions float64 `json:"instructions"`
	Loads        float64 `json:"loads"`
	Stores       float64 `json:"stores"`
	LoadBytes    float64 `json:"load_bytes"`
	StoreBytes   float64 `json:"store_bytes"`
}

// Equal reports whether the counts agree: the block counters with the
// per-instruction count, and with valgrind's where there is one; Diff
// says how they differ.
func (e Exactness) Equal() bool { return e.Diff() == "" }

// Diff names every figure on which the counts differ ("" when equal).
func (e Exactness) Diff() string {
	var s []string
	add := func(name string, a, b float64) {
		if a != b {
			s = append(s, fmt.Sprintf("%s: block counters %g, per-instruction %g", name, a, b))
		}
	}
	x, y := e.Emulated, e.Independent
	add("instructions", x.Instructions, y.Instructions)
	add("loads", x.Loads, y.Loads)
	add("stores", x.Stores, y.Stores)
	add("load bytes", x.LoadBytes, y.LoadBytes)
	add("store bytes", x.StoreBytes, y.StoreBytes)
	if v := e.Valgrind; v != nil {
		vg := func(name string, a, b float64) {
			if a != b {
				s = append(s, fmt.Sprintf("%s: block counters %g, valgrind %g", name, a, b))
			}
		}
		vg("instructions", x.Instructions, v.Instructions)
		vg("loads", x.Loads, v.Loads)
		vg("stores", x.Stores, v.Stores)
	}
	return strings.Join(s, "; ")
}

// ExactCalls is how many checked calls of add Exact makes per variant.
const ExactCalls = 8

// Exact runs ExactCalls checked calls of add through the variant's
// intended pairing (default scenario, as the report's variant tables) with
// both counters on, and returns the variant's cost by each.
func Exact(a *regs.Arch, v *trampolines.Variant) (Exactness, error) {
	ex := Exactness{Arch: a.Name, Variant: v.Name, Role: string(v.Role)}
	t, err := harness.FromVariant(v)
	if err != nil {
		return ex, err
	}
	setup, err := harness.IntendedSetup(a, t)
	if err != nil {
		return ex, err
	}
	sc, err := harness.FindUserSet("default")
	if err != nil {
		return ex, err
	}
	h, err := harness.Start(setup, harness.Options{Checks: true, Timeout: 60 * time.Second}, sc)
	if err != nil {
		return ex, err
	}
	defer h.Close()
	unit := h.EntryUnit()
	if v.Role == trampolines.Exit {
		unit = h.ExitUnit()
	}
	calls, err := harness.RandomCalls(h, "add", ExactCalls, 1)
	if err != nil {
		return ex, err
	}
	h.M.ResetCounts()
	ec, err := h.M.CountExact(emu.Range{Lo: unit.Start, Hi: unit.End})
	if err != nil {
		return ex, err
	}
	b := h.RunBatch(len(calls), func(i int) *harness.Call { return calls[i] })
	if err := ec.Close(); err != nil {
		return ex, err
	}
	if b.Stop != nil {
		return ex, fmt.Errorf("%s %s: %w", a.Name, v.Name, b.Stop.Err)
	}
	var runs uint64
	for _, c := range b.Calls {
		for _, inv := range c.Invocations {
			if inv.Role == v.Role {
				runs++
			}
		}
	}
	if runs == 0 {
		return ex, fmt.Errorf("%s %s: the trampoline never ran in %d calls of add", a.Name, v.Name, ExactCalls)
	}
	m, unknown := unitCost(h.Image, h.M.Blocks(), unit)
	if len(unknown) > 0 {
		return ex, fmt.Errorf("%s %s: instructions without memory facts: %v", a.Name, v.Name, unknown)
	}
	n := float64(runs)
	ex.Runs = runs
	ex.Emulated = ExactCosts{m.Instructions / n, m.Loads / n, m.Stores / n, m.LoadBytes / n, m.StoreBytes / n}
	c := ec.Counts()[0]
	ex.Independent = ExactCosts{float64(c.Instructions) / n, float64(c.Loads) / n, float64(c.Stores) / n,
		float64(c.LoadBytes) / n, float64(c.StoreBytes) / n}
	return ex, nil
}

// ExactAll runs Exact for every registry variant of the arches.
func ExactAll(arches []*regs.Arch) ([]Exactness, error) {
	var out []Exactness
	for _, a := range arches {
		for _, v := range harness.VariantsOf(a, "") {
			e, err := Exact(a, v)
			if err != nil {
				return out, err
			}
			out = append(out, e)
		}
	}
	return out, nil
}
