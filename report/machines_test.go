package report

import (
	"strings"
	"testing"

	"trampemu/native"
	"trampemu/scenarios"
)

// A snapshot from before Machines counts its own run as one machine; a
// report of the same machine replaces that machine's run, one of another
// machine is added; the machines are ordered by date.
func TestKeepMachines(t *testing.T) {
	old := quotedExample() // "a 2-CPU VM", 2026-12-01
	q := quotedExample()
	q.Machine, q.Date = "AMD EPYC, 2 CPUs, linux/amd64", "2026-12-02 18:40 UTC"
	q.KeepMachines(old)
	if len(q.Machines) != 2 || q.Machines[0].Machine != "a 2-CPU VM" || q.Machines[1].Machine != q.Machine {
		t.Fatalf("machines %+v", q.Machines)
	}
	again := quotedExample()
	again.Machine, again.Date = q.Machine, "2026-12-03 09:00 UTC"
	again.Headline = []native.HeadlineRow{{Label: "x", A: "a", B: "b", DiffNs: 1}}
	again.KeepMachines(q)
	if len(again.Machines) != 2 || again.Machines[1].Date != "2026-12-03 09:00 UTC" || again.Machines[1].Headline[0].Label != "x" {
		t.Fatalf("the same machine's newer run: %+v", again.Machines)
	}
	first := quotedExample()
	first.KeepMachines(nil)
	if len(first.Machines) != 1 || first.Machines[0].Date != first.Date {
		t.Fatalf("no previous snapshot: %+v", first.Machines)
	}
}

// A machine's answer: its reruns' when they agree (>= 80% significant: the
// median's sign; <= 20%: none), split between; the run's without reruns.
func TestMachineAnswer(t *testing.T) {
	for _, c := range []struct {
		diff float64
		sig  bool
		r    *native.Reruns
		want string
	}{
		{0.5, true, nil, "B slower"},
		{-0.5, true, nil, "B faster"},
		{0.5, false, nil, "no significant difference"},
		{0.5, false, &native.Reruns{Runs: 20, Median: -10, Significant: 20}, "B faster"},
		{0.5, true, &native.Reruns{Runs: 20, Median: 0.3, Significant: 16}, "B slower"},
		{0.5, true, &native.Reruns{Runs: 20, Median: 0.3, Significant: 15}, "split (significant in 15 of 20 reruns)"},
		{0.5, true, &native.Reruns{Runs: 20, Median: 0.3, Significant: 5}, "split (significant in 5 of 20 reruns)"},
		{0.5, true, &native.Reruns{Runs: 20, Median: 0.3, Significant: 4}, "no significant difference"},
	} {
		if got := answer(c.diff, c.sig, c.r); got != c.want {
			t.Errorf("answer(%v, %v, %+v) = %q, want %q", c.diff, c.sig, c.r, got, c.want)
		}
	}
}

// The block shows every comparison on every machine, says which agree and
// names the machines where one differs; the fprobe return paths take their
// reruns from the machine's rerun experiment.
func TestMachinesBlock(t *testing.T) {
	intel := MachineRun{Machine: "Intel Xeon, 2 CPUs", Date: "2026-12-01 21:43 UTC",
		Headline: []native.HeadlineRow{
			{Label: "rth-legacy", A: "p+m", B: "p+l", DiffNs: -10.5, CI95: native.Interval{-11.6, -10.1}, Significant: true, Reruns: &native.Reruns{Runs: 20, Median: -10.5, SD: 1.1, Significant: 20}},
			{Label: "rth-fixed", A: "p+m", B: "p+f", DiffNs: 0.09, CI95: native.Interval{0.02, 0.3}, Significant: true, Reruns: &native.Reruns{Runs: 20, Median: 0.08, SD: 0.11, Significant: 2}},
		},
		Fprobe: &QuotedFprobe{Diff: &scenarios.NativeDiff{A: "r+f", B: "r+r", DiffNs: 0.62, CI95: [2]float64{-0.41, 1.56}, P: 0.0645}}}
	amd := MachineRun{Machine: "AMD EPYC, 2 CPUs", Date: "2026-12-02 18:40 UTC",
		Headline: []native.HeadlineRow{
			{Label: "rth-legacy", A: "p+m", B: "p+l", DiffNs: -7.6, CI95: native.Interval{-8, -7}, Significant: true},
			{Label: "rth-fixed", A: "p+m", B: "p+f", DiffNs: 0.4, CI95: native.Interval{0.2, 0.6}, Significant: true, Reruns: &native.Reruns{Runs: 20, Median: 0.4, SD: 0.1, Significant: 19}},
		},
		Fprobe: &QuotedFprobe{Diff: &scenarios.NativeDiff{A: "r+f", B: "r+r", DiffNs: 5.35, CI95: [2]float64{4, 6}, P: 0.002, Significant: true}},
		Stability: summarize(&native.Stability{Runs: 20, BudgetS: 20, Date: "2026-12-02 18:35 UTC", AAPasses: 19, Compare: []native.RerunSpread{
			{A: "r+f", B: "r+r", Mode: native.Graph, DiffNs: make([]float64, 20), Covered: 18, Median: 5.1, SD: 0.4, Significant: 20},
			{A: "r+f", B: "r+r", Mode: native.Off, DiffNs: make([]float64, 20), Covered: 3},
			{A: "p+m", B: "p+m", Mode: native.Graph, DiffNs: make([]float64, 20), Covered: 5}}},
			&QuotedFprobe{Diff: &scenarios.NativeDiff{A: "r+f", B: "r+r"}})}
	q := quotedExample()
	q.Machines = []MachineRun{intel, amd}
	got := machinesBlock(q)
	for _, want := range []string{
		"- machine 1: Intel Xeon, 2 CPUs, report of 2026-12-01 21:43 UTC\n",
		"- machine 2: AMD EPYC, 2 CPUs, report of 2026-12-02 18:40 UTC; 20 reruns of 20 s (2026-12-02 18:35 UTC): A/A control passed in 19 of 20, graph intervals covered the other runs' median in 18 of 20\n",
		"| comparison | machine 1 | machine 2 | answer |\n|---|---|---|---|\n",
		"| rth-legacy: `p+l` minus `p+m` | -10.50 [-11.60, -10.10] different; reruns -10.50, SD 1.10, significant in 20 of 20 | -7.60 [-8.00, -7.00] different; no reruns | B faster on every machine |",
		"| rth-fixed: `p+f` minus `p+m` | +0.09 [+0.02, +0.30] different; reruns +0.08, SD 0.11, significant in 2 of 20 | +0.40 [+0.20, +0.60] different; reruns +0.40, SD 0.10, significant in 19 of 20 | **differs**: no significant difference on Intel Xeon; B slower on AMD EPYC |",
		"| fprobe's return paths under one entry: `r+r` minus `r+f` | +0.62 [-0.41, +1.56] no significant difference (p 0.0645); no reruns | +5.35 [+4.00, +6.00] different (p 0.002); reruns +5.10, SD 0.40, significant in 20 of 20 | **differs**: no significant difference on Intel Xeon; B slower on AMD EPYC |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("block lacks %q:\n%s", want, got)
		}
	}
	// one machine, its own run: the answer says so
	q.Machines = nil
	if got := machinesBlock(q); !strings.Contains(got, "| split (significant in 11 of 20 reruns) (one machine) |") || !strings.Contains(got, "machine 1: a 2-CPU VM") {
		t.Errorf("one machine:\n%s", got)
	}
}
