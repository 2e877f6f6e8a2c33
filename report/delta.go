package report

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"trampemu/check"
)

// Delta is what a patch changes for one trampoline: the cost per traced
// call of the delta workload (after - before) and the findings that
// appear or disappear over all workloads.
type Delta struct {
	Trampoline   string  `json:"trampoline"`
	Role         string  `json:"role"`
	Instructions float64 `json:"instructions"`
	Loads        float64 `json:"loads"`
	Stores       float64 `json:"stores"`
	StoreBytes   float64 `json:"store_bytes"`
	StackBytes   int     `json:"stack_bytes"`
	// SlotsAdded and SlotsRemoved are the ftrace_regs / pt_regs slots the
	// trampoline fills after and not before, and before and not after (in
	// the delta workload, in layout order).
	// UnwindLost and ORCLost are the interrupt model's lost boundaries of
	// the delta workload before and after ("7/13"; ORC "-" in a
	// frame-pointer build): the old rule's unrecoverable_insns and the
	// ORC walk's orc_unrecoverable_insns.
	UnwindLost      [2]string    `json:"unwind_lost"`
	ORCLost         [2]string    `json:"orc_lost"`
	SlotsAdded      []string     `json:"slots_added"`
	SlotsRemoved    []string     `json:"slots_removed"`
	FindingsAdded   []check.Kind `json:"findings_added"`
	FindingsRemoved []check.Kind `json:"findings_removed"`
	// Added and Removed name each finding (kind and slot or register).
	Added   []string `json:"added,omitempty"`
	Removed []string `json:"removed,omitempty"`
}

// PatchReport is check --patch's JSON.
type PatchReport struct {
	Before []check.Result `json:"before"`
	After  []check.Result `json:"after"`
	Delta  []Delta        `json:"delta"`
}

// DeltaWorkload is the workload whose costs the delta compares.
const DeltaWorkload = "add"

// PatchDelta compares the results before and after a patch, trampoline by
// trampoline (by arch, name and role).
func PatchDelta(before, after []check.Result) []Delta {
	type key struct{ arch, name, role string }
	var order []key
	byKey := map[key]*[2][]check.Result{}
	add := func(rs []check.Result, i int) {
		for _, r := range rs {
			k := key{r.Arch, r.Variant, r.Role}
			if byKey[k] == nil {
				byKey[k] = &[2][]check.Result{}
				order = append(order, k)
			}
			byKey[k][i] = append(byKey[k][i], r)
		}
	}
	add(before, 0)
	add(after, 1)
	var out []Delta
	for _, k := range order {
		b, a := byKey[k][0], byKey[k][1]
		d := Delta{Trampoline: k.name, Role: k.role, SlotsAdded: []string{}, SlotsRemoved: []string{}}
		if mb, ok := workloadMetrics(b); ok {
			if ma, ok := workloadMetrics(a); ok {
				d.SlotsAdded, d.SlotsRemoved = missingFrom(ma.Written, mb.Written), missingFrom(mb.Written, ma.Written)
				d.Instructions = ma.Instructions - mb.Instructions
				d.Loads = ma.Loads - mb.Loads
				d.Stores = ma.Stores - mb.Stores
				d.StoreBytes = ma.StoreBytes - mb.StoreBytes
				d.StackBytes = ma.StackBytes - mb.StackBytes
				d.UnwindLost = [2]string{lostText(mb, false), lostText(ma, false)}
				d.ORCLost = [2]string{lostText(mb, true), lostText(ma, true)}
			}
		}
		fb, fa := findingKeys(b), findingKeys(a)
		d.Added, d.FindingsAdded = diffKeys(fa, fb)
		d.Removed, d.FindingsRemoved = diffKeys(fb, fa)
		out = append(out, d)
	}
	return out
}

// lostText is a result's lost boundaries as the check table prints them.
func lostText(m check.Metrics, orc bool) string {
	switch {
	case m.Boundaries == 0:
		return "-"
	case orc && !m.HasORC:
		return "-"
	case orc:
		return fmt.Sprintf("%d/%d", m.ORCUnrecoverableInsns, m.Boundaries)
	}
	return fmt.Sprintf("%d/%d", m.UnrecoverableInsns, m.Boundaries)
}

// lostChange is "before -> after", or "=" when the patch changes nothing.
func lostChange(x [2]string) string {
	if x[0] == x[1] {
		return "="
	}
	return x[0] + " -> " + x[1]
}

// missingFrom lists the names of x that y lacks, in x's order (never nil).
func missingFrom(x, y []string) []string {
	out := []string{}
	for _, n := range x {
		if !slices.Contains(y, n) {
			out = append(out, n)
		}
	}
	return out
}

func workloadMetrics(rs []check.Result) (check.Metrics, bool) {
	for _, r := range rs {
		if r.Workload == DeltaWorkload {
			return r.Metrics, true
		}
	}
	return check.Metrics{}, false
}

// findingKeys names each finding of the results by kind and slot or
// register ("unused-store RCX").
func findingKeys(rs []check.Result) map[string]check.Kind {
	out := map[string]check.Kind{}
	for _, r := range rs {
		for _, f := range r.Findings {
			name := string(f.Kind)
			if f.Slot != "" {
				name += " " + f.Slot
			} else if f.Register != "" {
				name += " %" + f.Register
			} else {
				name += ": " + f.Summary
			}
			out[name] = f.Kind
		}
	}
	return out
}

// diffKeys lists what x has and y has not, and its distinct kinds.
func diffKeys(x, y map[string]check.Kind) ([]string, []check.Kind) {
	var names []string
	seen := map[check.Kind]bool{}
	kinds := []check.Kind{}
	for n, k := range x {
		if _, ok := y[n]; ok {
			continue
		}
		names = append(names, n)
		if !seen[k] {
			seen[k] = true
			kinds = append(kinds, k)
		}
	}
	sort.Strings(names)
	sort.Slice(kinds, func(i, j int) bool { return kinds[i] < kinds[j] })
	return names, kinds
}

// DeltaTable renders the delta, the table a reviewer pastes under a patch.
func DeltaTable(w io.Writer, ds []Delta) error {
	fmt.Fprintf(w, "Change per traced call (%s), after - before:\n", DeltaWorkload)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TRAMPOLINE\tROLE\tINSNS\tLOADS\tSTORES\tST B\tSTACK\tSLOTS ADDED\tSLOTS REMOVED\tFINDINGS ADDED\tFINDINGS REMOVED")
	for _, d := range ds {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%+d\t%s\t%s\t%s\t%s\n", d.Trampoline, d.Role, signed(d.Instructions), signed(d.Loads),
			signed(d.Stores), signed(d.StoreBytes), d.StackBytes, slotText(d.SlotsAdded), slotText(d.SlotsRemoved), findingText(d.Added), findingText(d.Removed))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return lostTable(w, ds)
}

// lostTable lists, under the delta table, the trampolines whose lost
// interrupt boundaries (the old rule's UNWIND LOST, the ORC walk's ORC
// LOST) the patch changes, before -> after; nothing when none changes.
func lostTable(w io.Writer, ds []Delta) error {
	var changed []Delta
	for _, d := range ds {
		if d.UnwindLost[0] != d.UnwindLost[1] || d.ORCLost[0] != d.ORCLost[1] {
			changed = append(changed, d)
		}
	}
	if len(changed) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nLost interrupt boundaries (%s), before -> after:\n", DeltaWorkload)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TRAMPOLINE\tROLE\tUNWIND LOST\tORC LOST")
	for _, d := range changed {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", d.Trampoline, d.Role, lostChange(d.UnwindLost), lostChange(d.ORCLost))
	}
	return tw.Flush()
}

func signed(v float64) string {
	s := num(v)
	if v > 0 {
		return "+" + s
	}
	return s
}

func slotText(xs []string) string {
	if len(xs) == 0 {
		return "-"
	}
	return strings.Join(xs, " ")
}

// findingText is listText with the findings that name no slot or
// register (kind: summary, one per workload for a kind such as unwind)
// counted per kind when there are more than two of a kind: "unwind x12".
func findingText(xs []string) string {
	count := map[string]int{}
	for _, x := range xs {
		if k, _, ok := strings.Cut(x, ": "); ok {
			count[k]++
		}
	}
	var out []string
	done := map[string]bool{}
	for _, x := range xs {
		k, _, ok := strings.Cut(x, ": ")
		switch {
		case !ok || count[k] <= 2:
			out = append(out, x)
		case !done[k]:
			done[k] = true
			out = append(out, fmt.Sprintf("%s x%d", k, count[k]))
		}
	}
	return listText(out)
}

func listText(xs []string) string {
	if len(xs) == 0 {
		return "-"
	}
	return strings.Join(xs, ", ")
}
