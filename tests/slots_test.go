package tests

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"trampemu/check"
	"trampemu/harness"
	"trampemu/internal/golden"
	"trampemu/mutate"
	"trampemu/regs"
	"trampemu/trampolines"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

// slotsGolden pins, per registry variant, every slot's deleted-save
// outcome and the cost columns of the original and of each deleted-save
// variant.
const slotsGolden = "testdata/slots.golden"

// Outcomes of a slot whose save was deleted.
const (
	// slotStale: a reader (callback or kernel) got stale-read of the slot.
	slotStale = "stale-read"
	// slotUnread: nobody reads the slot under the default scenario (the
	// original's unused-store info names it); its save deleted, no finding
	// names it, and the unused-store info on it is gone.
	slotUnread = "unread"
	// slotNotSaved: the variant never writes the slot.
	slotNotSaved = "not saved"
)

// costText renders a result's cost columns as the tables show them.
func costText(m check.Metrics) string {
	return fmt.Sprintf("insns %g loads %g stores %g load_bytes %g store_bytes %g stack %d cache_lines %g",
		m.Instructions, m.Loads, m.Stores, m.LoadBytes, m.StoreBytes, m.StackBytes, m.CacheLines)
}

// everyReader is the user set the deleted saves are judged under: every
// reader of ftrace_regs there is (every accessor at entry and at return,
// arguments past the registers included) and the kprobe-style user that
// reads every pt_regs slot when arch_ftrace_get_regs gives it one.
var everyReader = harness.UserSet{Name: "every-reader", Function: true, Regs: true, Graph: true,
	EntryReads:    []string{"ip", "sp", "fp", "retval", "ra", "arg0", "arg1", "arg2", "arg3", "arg4", "arg5", "arg6", "arg7"},
	GraphRetReads: []string{"retval", "fp", "sp", "ip", "ra", "arg0", "arg1", "arg2", "arg3", "arg4", "arg5", "arg6", "arg7"}}

// slotRun is one check of the add workload as the deleted-save test runs
// it: two calls, no interrupt model (its extra runs depend on the
// boundaries, which a deleted line changes); sc "" is the default
// scenario. It returns the result and the frame slots C code read.
func slotRun(a *regs.Arch, t harness.Tramp, sc harness.UserSet) (check.Result, map[string]bool, error) {
	read := map[string]bool{}
	rs, err := check.Run(check.Config{Arch: a, Tramp: t, Workloads: []string{"add"}, Calls: 2, Seed: 3,
		NoInterrupts: true, Limit: 2_000_000, Scenario: sc, Observe: func(c *harness.Call) {
			for _, inv := range c.Invocations {
				if inv.Role != t.Role {
					continue
				}
				for _, rd := range inv.Reads {
					if rd.Slot != "" {
						read[rd.Slot] = true
					}
				}
			}
		}})
	if err != nil {
		return check.Result{}, nil, err
	}
	return rs[0], read, nil
}

// frameLayout is the structure the variant's C calls get, as check names
// its slots (an exit of the fgraph_ret_regs ABI: that struct).
func frameLayout(a *regs.Arch, t harness.Tramp) *regs.Layout {
	if t.Role == trampolines.Exit && t.ExitABI == trampolines.ExitRetRegs {
		return a.RetRegs
	}
	return t.FrameLayout(a)
}

// deletedSave is a delete mutant and the slots its deletion stops the
// trampoline writing.
type deletedSave struct {
	m       mutate.Mutant
	res     check.Result
	read    map[string]bool // the slots C read
	removed []string
}

// TestEverySlotSaveDeleted is the test of the stale-read rule per slot and
// per arch: for every registry variant of every arch (each of its kernel
// era and layout: pt_regs, arm64's ftrace_regs or pt_regs, fgraph_ret_regs)
// and every slot of the layout its C calls get, the variant with that
// slot's save deleted (the delete mutant of package mutate whose line, when
// deleted, stops the fewest slots being written, the slot among them) gives
// stale-read of the slot, or, where nobody reads the slot (the original's
// unused-store info), no finding about it at all. Every outcome and every
// cost column of the original and of each deleted-save variant is pinned
// in testdata/slots.golden (-update rewrites it); every slot of every
// layout of regs is saved and deleted by some variant or listed there as
// saved by none.
func TestEverySlotSaveDeleted(t *testing.T) {
	var mu sync.Mutex
	lines := map[string][]string{} // arch/variant -> its golden lines
	tested := map[string]map[string][]string{}
	t.Run("variants", func(t *testing.T) {
		for _, a := range regs.Arches {
			for _, v := range harness.VariantsOf(a, "") {
				if v.Role == trampolines.Rethook {
					// Not this rule's subject: arch_rethook_trampoline
					// hands a whole pt_regs to its callback, which writes
					// the ip slot (rethook_trampoline_handler) rather than
					// reading the saves; its twins and costs are tested in
					// TestVariantsInTheirPairing and variants.golden.
					continue
				}
				a, v := a, v
				key := a.Name + "/" + v.Name
				t.Run(key, func(t *testing.T) {
					t.Parallel()
					out, saved := slotOutcomes(t, a, v)
					mu.Lock()
					defer mu.Unlock()
					lines[key] = out
					for lay, slots := range saved {
						k := a.Name + " " + lay
						if tested[k] == nil {
							tested[k] = map[string][]string{}
						}
						for _, s := range slots {
							tested[k][s] = append(tested[k][s], v.Name)
						}
					}
				})
			}
		}
	})
	total := 0 // the variants the subtests cover: every one but the rethook trampolines
	for _, a := range regs.Arches {
		for _, v := range harness.VariantsOf(a, "") {
			if v.Role != trampolines.Rethook {
				total++
			}
		}
	}
	if t.Failed() || len(lines) != total {
		return // failed, or a -run subset: the golden file is the whole table
	}
	var b strings.Builder
	b.WriteString("# Every slot's save deleted, per registry variant (TestEverySlotSaveDeleted; go test ./tests -run TestEverySlotSaveDeleted -update).\n")
	b.WriteString("# variant: cost of the original (add workload, default scenario, per traced call)\n")
	b.WriteString("#   slot: outcome, the deleted line, the deleted-save variant's cost\n")
	keys := make([]string, 0, len(lines))
	for k := range lines {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, l := range lines[k] {
			b.WriteString(l + "\n")
		}
	}
	b.WriteString("# Per layout of regs: the variants whose deleted save tests each slot.\n")
	for _, a := range regs.Arches {
		for _, lay := range []*regs.Layout{a.Frame, a.PtRegs, a.RetRegs} {
			if lay == nil {
				continue
			}
			k := a.Name + " " + lay.Name
			for _, s := range lay.Slots {
				vs := tested[k][s.Name]
				sort.Strings(vs)
				who := strings.Join(vs, ", ")
				if who == "" {
					who = "saved by no variant"
				}
				fmt.Fprintf(&b, "%s %s: %s\n", k, s.Name, who)
			}
		}
	}
	compareGolden(t, slotsGolden, b.String())
}

// slotOutcomes checks one variant and its deleted-save variants and returns
// its golden lines and, per layout name, the slots whose deleted save it
// tested.
func slotOutcomes(t *testing.T, a *regs.Arch, v *trampolines.Variant) ([]string, map[string][]string) {
	tr := variant(t, a, v.Name)
	pub, _, err := slotRun(a, tr, harness.UserSet{})
	if v.NoReturn {
		// A known bug that never gets back to the traced function's
		// caller (riscv64 rth-v6.14's "Bad frame pointer", arm64's -pg
		// twins): no cost and no deleted save to judge, but the runs
		// must fail as the registry says (an error finding, or a run
		// stopped under the readers of every slot).
		_, _, errAll := slotRun(a, tr, everyReader)
		if err == nil && errAll == nil && pub.Errors() == 0 {
			t.Fatalf("a NoReturn variant (%s) ran to its end without an error%s", v.Bug, findings(pub))
		}
		return []string{fmt.Sprintf("%s/%s: never returns (known bug: %s)", a.Name, v.Name, v.Bug)}, nil
	}
	if err != nil {
		t.Fatal(err)
	}
	orig, _, err := slotRun(a, tr, everyReader)
	if err != nil {
		t.Fatal(err)
	}
	if pub.Metrics.Calls == 0 || orig.Metrics.Calls == 0 {
		t.Fatalf("the variant never ran%s", findings(orig))
	}
	// The published figure (through check's per(), as every table) is
	// the independent per-instruction count of the same code.
	ex, err := check.Exact(a, v)
	if err != nil {
		t.Fatal(err)
	}
	if got := pub.Metrics.Exact(); got != ex.Independent {
		t.Errorf("published cost per call %+v, the per-instruction count %+v", got, ex.Independent)
	}
	lay := frameLayout(a, tr)
	out := []string{fmt.Sprintf("%s/%s: %s", a.Name, v.Name, costText(pub.Metrics))}
	if len(orig.Metrics.Written) == 0 {
		out = append(out, "  (fills no slot)")
		return out, nil
	}
	ms, err := mutate.Mutants(a, tr)
	if err != nil {
		t.Fatal(err)
	}
	var dels []deletedSave
	for _, m := range ms {
		if m.Kind != mutate.KindDelete {
			continue
		}
		r, read, err := slotRun(a, m.Apply(tr), everyReader)
		if err != nil {
			continue // stillborn: the line cannot go (a label, a macro)
		}
		var removed []string
		for _, s := range orig.Metrics.Written {
			if !slices.Contains(r.Metrics.Written, s) {
				removed = append(removed, s)
			}
		}
		if len(removed) > 0 {
			dels = append(dels, deletedSave{m, r, read, removed})
		}
	}
	unused := map[string]bool{}
	for _, f := range orig.Findings {
		if f.Kind == check.UnusedStore {
			unused[f.Slot] = true
		}
	}
	saved := map[string][]string{}
	for _, s := range lay.Slots {
		if !slices.Contains(orig.Metrics.Written, s.Name) {
			out = append(out, fmt.Sprintf("  %s: %s", s.Name, slotNotSaved))
			continue
		}
		var best *deletedSave
		for i := range dels {
			d := &dels[i]
			if slices.Contains(d.removed, s.Name) && (best == nil || len(d.removed) < len(best.removed)) {
				best = d
			}
		}
		if best == nil {
			t.Errorf("%s: written, but no deleted line stops its save", s.Name)
			continue
		}
		r := best.res
		outcome := ""
		switch {
		case orig.Has(check.StaleRead, s.Name):
			t.Errorf("%s: written, yet the original reads it stale%s", s.Name, findings(orig))
		case best.read[s.Name]:
			// C read the slot its save left unwritten: stale-read, always.
			outcome = slotStale
			if !r.Has(check.StaleRead, s.Name) {
				t.Errorf("%s: read by C with its save deleted (%s, %s), and no stale-read of it%s", s.Name, best.m.Where(), best.m.Desc, findings(r))
				outcome = "MISSED"
			}
		case unused[s.Name]:
			outcome = slotUnread
			for _, f := range r.Findings {
				if f.Slot == s.Name {
					t.Errorf("%s: nobody reads it, yet with its save deleted (%s): %s", s.Name, best.m.Where(), f)
				}
			}
		default:
			// Nobody in C reads it, yet it is not unused: the trampoline
			// reloads it (or the unwinder walks it); the deleted save must
			// show as an error there.
			kinds := r.KindSet(check.Error)
			if len(kinds) == 0 {
				t.Errorf("%s: not read by C, not unused, and its save deleted (%s, %s) gives no error%s", s.Name, best.m.Where(), best.m.Desc, findings(r))
				outcome = "MISSED"
				break
			}
			outcome = fmt.Sprintf("not read by C; %v", kinds)
		}
		also := ""
		if len(best.removed) > 1 {
			also = " (with " + strings.Join(slices.DeleteFunc(slices.Clone(best.removed), func(x string) bool { return x == s.Name }), " ") + ")"
		}
		out = append(out, fmt.Sprintf("  %s: %s, %s %s%s: %s", s.Name, outcome, best.m.Where(), best.m.Desc, also, costText(r.Metrics)))
		saved[lay.Name] = append(saved[lay.Name], s.Name)
	}
	return out, saved
}

// compareGolden compares got with the golden file (rewrites it under
// -update).
func compareGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tests -update to write it)", err)
	}
	for _, d := range golden.Diff(string(want), got, 20) {
		t.Errorf("%s:%d:\n  want %s\n  got  %s", path, d.N, d.Want, d.Got)
	}
}
