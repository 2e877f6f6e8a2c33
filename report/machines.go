package report

import (
	"fmt"
	"sort"
	"strings"

	"trampemu/native"
)

// MachineRun is one machine's native answers as its last report gave them:
// the headline, the fprobe return paths and the rerun experiment it read.
// docs/numbers.json keeps one per machine (Quoted.Machines), so a
// conclusion that holds on one machine and not on another is shown with
// both runs (the native-machines block).
type MachineRun struct {
	Machine   string               `json:"machine"`
	Date      string               `json:"date"`
	Headline  []native.HeadlineRow `json:"native_headline"`
	Fprobe    *QuotedFprobe        `json:"fprobe,omitempty"`
	Stability *RerunSummary        `json:"stability,omitempty"`
}

// RerunSummary is what the native-machines block quotes of a machine's
// rerun experiment (native.Stability): its size and date, the A/A
// control, the graph-mode intervals' coverage of the other runs' median,
// and the fprobe return paths' spread (the headline rows carry their own).
type RerunSummary struct {
	Date     string  `json:"date"`
	Runs     int     `json:"runs"`
	BudgetS  float64 `json:"budget_s"`
	AAPasses int     `json:"aa_passes"`
	// Covered of Intervals: the graph-mode comparisons' (A/A excepted).
	Covered   int            `json:"covered"`
	Intervals int            `json:"intervals"`
	Fprobe    *native.Reruns `json:"fprobe,omitempty"`
}

// summarize is s's RerunSummary, with the spread of the fprobe
// comparison f (nil for none); nil without an experiment.
func summarize(s *native.Stability, f *QuotedFprobe) *RerunSummary {
	if s == nil {
		return nil
	}
	out := &RerunSummary{Date: s.Date, Runs: s.Runs, BudgetS: s.BudgetS, AAPasses: s.AAPasses}
	out.Covered, out.Intervals = s.GraphCoverage()
	if f != nil && f.Diff != nil {
		out.Fprobe = s.Reruns(f.Diff.A, f.Diff.B)
	}
	return out
}

// run is q's own native run as a MachineRun.
func (q *Quoted) run() MachineRun {
	return MachineRun{Machine: q.Machine, Date: q.Date, Headline: q.Headline, Fprobe: q.Fprobe, Stability: summarize(q.Stability, q.Fprobe)}
}

// KeepMachines takes the machines of the previous snapshot prev (nil for
// none) into q: every machine's last run, prev's own run counted as one
// (a snapshot from before Machines existed), q's own run replacing the
// run of its machine; ordered by date.
func (q *Quoted) KeepMachines(prev *Quoted) {
	byMachine := map[string]MachineRun{}
	if prev != nil {
		for _, m := range prev.Machines {
			byMachine[m.Machine] = m
		}
		if prev.Machine != "" && len(prev.Headline) > 0 {
			if _, ok := byMachine[prev.Machine]; !ok {
				byMachine[prev.Machine] = prev.run()
			}
		}
	}
	byMachine[q.Machine] = q.run()
	q.Machines = q.Machines[:0]
	for _, m := range byMachine {
		q.Machines = append(q.Machines, m)
	}
	sort.Slice(q.Machines, func(i, j int) bool {
		if q.Machines[i].Date != q.Machines[j].Date {
			return q.Machines[i].Date < q.Machines[j].Date
		}
		return q.Machines[i].Machine < q.Machines[j].Machine
	})
}

// Settled is the share of reruns at or beyond which a rerun experiment's
// answer is taken as the machine's: significant in at least 80% of the
// runs is a difference, in at most 20% none; between, the machine's answer
// is split.
const Settled = 0.8

// answer is one machine's conclusion on one comparison: "B slower", "B
// faster" or "no significant difference" from the reruns when there are
// (significant in >= Settled of them, or in <= 1-Settled), "split" when the
// reruns disagree; from the one run otherwise.
func answer(diff float64, significant bool, r *native.Reruns) string {
	dir := func(d float64) string {
		if d > 0 {
			return "B slower"
		}
		return "B faster"
	}
	if r != nil && r.Runs > 0 {
		f := float64(r.Significant) / float64(r.Runs)
		switch {
		case f >= Settled:
			return dir(r.Median)
		case f <= 1-Settled:
			return "no significant difference"
		}
		return fmt.Sprintf("split (significant in %d of %d reruns)", r.Significant, r.Runs)
	}
	if significant {
		return dir(diff)
	}
	return "no significant difference"
}

// machineComparison is one comparison on the machines that ran it: the
// cell of each (by machine) and their answers in machine order.
type machineComparison struct {
	label    string
	cells    map[string]string
	answers  []string
	machines []string
}

func (c *machineComparison) add(machine, cell, ans string) {
	c.machines = append(c.machines, machine)
	c.cells[machine] = cell
	c.answers = append(c.answers, ans)
}

// conclusion says whether the machines agree.
func (c *machineComparison) conclusion() string {
	if len(c.answers) == 0 {
		return "not measured"
	}
	if len(c.answers) == 1 {
		return c.answers[0] + " (one machine)"
	}
	same := true
	for _, a := range c.answers {
		same = same && a == c.answers[0] && !strings.HasPrefix(a, "split")
	}
	if same {
		return c.answers[0] + " on every machine"
	}
	var parts []string
	for i, a := range c.answers {
		parts = append(parts, fmt.Sprintf("%s on %s", a, shortMachine(c.machines[i])))
	}
	return "**differs**: " + strings.Join(parts, "; ")
}

// shortMachine is a machine's name without the CPU count and OS.
func shortMachine(m string) string {
	s, _, _ := strings.Cut(m, ",")
	return s
}

// rerunsText is a headline row's reruns in a cell.
func rerunsText(r *native.Reruns) string {
	if r == nil {
		return "no reruns"
	}
	return fmt.Sprintf("reruns %+.2f, SD %.2f, significant in %d of %d", r.Median, r.SD, r.Significant, r.Runs)
}

// machinesComparisons lists the headline comparisons and the fprobe
// return paths under one entry, in the order of the first machine that
// has them, with every machine's cell.
func machinesComparisons(ms []MachineRun) []*machineComparison {
	var order []string
	rows := map[string]*machineComparison{}
	get := func(key, label string) *machineComparison {
		c, ok := rows[key]
		if !ok {
			c = &machineComparison{label: label, cells: map[string]string{}}
			rows[key] = c
			order = append(order, key)
		}
		return c
	}
	for _, m := range ms {
		for _, h := range m.Headline {
			cell := fmt.Sprintf("%+.2f [%+.2f, %+.2f] %s; %s", h.DiffNs, h.CI95[0], h.CI95[1], native.Verdict(h.Significant, h.Negligible), rerunsText(h.Reruns))
			get(h.A+" "+h.B, fmt.Sprintf("%s: `%s` minus `%s`", h.Label, h.B, h.A)).add(m.Machine, cell, answer(h.DiffNs, h.Significant, h.Reruns))
		}
		if m.Fprobe == nil || m.Fprobe.Diff == nil {
			continue
		}
		d := m.Fprobe.Diff
		var r *native.Reruns
		if m.Stability != nil {
			r = m.Stability.Fprobe
		}
		cell := fmt.Sprintf("%+.2f [%+.2f, %+.2f] %s (p %.3g); %s", d.DiffNs, d.CI95[0], d.CI95[1], native.Verdict(d.Significant, false), d.P, rerunsText(r))
		get(d.A+" "+d.B, fmt.Sprintf("fprobe's return paths under one entry: `%s` minus `%s`", d.B, d.A)).add(m.Machine, cell, answer(d.DiffNs, d.Significant, r))
	}
	out := make([]*machineComparison, 0, len(order))
	for _, k := range order {
		out = append(out, rows[k])
	}
	return out
}

// machinesBlock renders the native-machines block: every native
// comparison on every machine of the snapshot, the run's median [95%
// interval] and verdict with its reruns, and whether the machines agree.
func machinesBlock(q *Quoted) string {
	ms := q.Machines
	if len(ms) == 0 {
		ms = []MachineRun{q.run()}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Each machine's last `make report` (ns per traced return, B minus A, graph user): the run's median [95%% interval] and verdict; the reruns' median, SD and how many of them called it significant (`make bench-stability`). A machine's answer is its reruns' when they agree (significant in at least %.0f%% of them, or in at most %.0f%%), else split; without reruns, the run's.\n\n", 100*Settled, 100*(1-Settled))
	for i, m := range ms {
		fmt.Fprintf(&b, "- machine %d: %s, report of %s", i+1, m.Machine, m.Date)
		if s := m.Stability; s != nil {
			fmt.Fprintf(&b, "; %d reruns of %.0f s (%s): A/A control passed in %d of %d, graph intervals covered the other runs' median in %d of %d", s.Runs, s.BudgetS, s.Date, s.AAPasses, s.Runs, s.Covered, s.Intervals)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n| comparison |")
	for i := range ms {
		fmt.Fprintf(&b, " machine %d |", i+1)
	}
	b.WriteString(" answer |\n|---|")
	for range ms {
		b.WriteString("---|")
	}
	b.WriteString("---|\n")
	for _, c := range machinesComparisons(ms) {
		fmt.Fprintf(&b, "| %s |", c.label)
		for _, m := range ms {
			cell, ok := c.cells[m.Machine]
			if !ok {
				cell = "not measured"
			}
			fmt.Fprintf(&b, " %s |", cell)
		}
		fmt.Fprintf(&b, " %s |\n", c.conclusion())
	}
	return b.String()
}
