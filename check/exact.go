package check

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"trampemu/asm"
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
	// Unhooked is what the per-instruction count got from static facts
	// for instructions Unicorn's memory hooks cannot see (per traced
	// call), with the reason; zero when there were none.
	Unhooked       ExactCosts `json:"unhooked"`
	UnhookedReason string     `json:"unhooked_reason,omitempty"`
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

// Exact returns the figures of a result's metrics the exactness proof
// compares (what the tables publish per call).
func (m Metrics) Exact() ExactCosts {
	return ExactCosts{m.Instructions, m.Loads, m.Stores, m.LoadBytes, m.StoreBytes}
}

// noReturnLimit bounds a NoReturn variant's runs (instructions per batch).
const noReturnLimit = 1_000_000

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
	opts := harness.Options{Checks: true, Timeout: 60 * time.Second}
	if v.NoReturn {
		opts.Limit = noReturnLimit // it ends at the limit: reach it soon
	}
	h, err := harness.Start(setup, opts, sc)
	if err != nil {
		return ex, err
	}
	defer h.Close()
	unit := h.EntryUnit()
	if v.Role.Returns() {
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
			if inv.Role == slotRole(v.Role) {
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
	// The block-counter figure goes through per(), the division every
	// table's figure takes (analyzer.fill): a slip there shows as a
	// difference from the independent count.
	ex.Runs = runs
	ex.Emulated = m.per(runs).Exact()
	c := ec.Counts()[0]
	n := float64(runs)
	ex.Independent = ExactCosts{float64(c.Instructions) / n, float64(c.Loads) / n, float64(c.Stores) / n,
		float64(c.LoadBytes) / n, float64(c.StoreBytes) / n}
	conv, err := conventionOf(a)
	if err != nil {
		return ex, err
	}
	if u, why := unhookedCost(h.Image, h.M.Blocks(), unit, conv.unhooked); u.Loads+u.Stores > 0 {
		ex.Unhooked = ExactCosts{0, u.Loads / n, u.Stores / n, u.LoadBytes / n, u.StoreBytes / n}
		ex.UnhookedReason = why
		ex.Independent.Loads += ex.Unhooked.Loads
		ex.Independent.Stores += ex.Unhooked.Stores
		ex.Independent.LoadBytes += ex.Unhooked.LoadBytes
		ex.Independent.StoreBytes += ex.Unhooked.StoreBytes
	}
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

// unhookedCost is the static cost of the executed instructions of u whose
// mnemonic is in unhooked, and the reasons given for them.
func unhookedCost(im *asm.Image, blocks []emu.Block, u asm.Unit, unhooked map[string]string) (Metrics, string) {
	var m Metrics
	var why []string
	if len(unhooked) == 0 {
		return m, ""
	}
	d := asm.ForImage(im)
	for _, b := range blocks {
		if b.Count == 0 || !u.Contains(b.Addr) {
			continue
		}
		ins, _ := asm.Listing(im, d, b.Addr, b.Addr+uint64(b.Size))
		for _, in := range ins {
			mn, _, _ := strings.Cut(strings.TrimSpace(in.Text), " ")
			r, ok := unhooked[mn]
			if !ok {
				continue
			}
			c := float64(b.Count)
			m.Loads += c * float64(in.Loads)
			m.Stores += c * float64(in.Stores)
			m.LoadBytes += c * float64(in.LoadBytes)
			m.StoreBytes += c * float64(in.StoreBytes)
			if !slices.Contains(why, mn+": "+r) {
				why = append(why, mn+": "+r)
			}
		}
	}
	return m, strings.Join(why, "; ")
}
