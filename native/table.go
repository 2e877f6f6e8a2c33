package native

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"

	"trampemu/trampolines"
)

// RegistryJobs lists one job per x86-64 registry variant in its intended
// pairing (a pairing named by two variants is timed once), in registry
// order; experiments included, and the kernel's arch_rethook_trampoline
// (the rethook return path: its twins are not timed).
func RegistryJobs() []Job {
	var out []Job
	seen := map[[2]string]bool{}
	for _, v := range trampolines.Variants {
		if v.Arch != Arch.Name || v.Pair == "" || v.Role == trampolines.Rethook && !v.Kernel {
			// The rethook twins never return or unbalance the stack: they
			// are the emulator's to catch, not timed.
			continue
		}
		entry, exit := v.Name, v.Pair
		if v.Role.Returns() {
			entry, exit = v.Pair, v.Name
		}
		if seen[[2]string{entry, exit}] {
			continue
		}
		seen[[2]string{entry, exit}] = true
		out = append(out, Job{Arch: Arch.Name, Entry: Spec{Variant: entry}, Exit: Spec{Variant: exit}})
	}
	return out
}

// Effect is one difference the report states: B minus A in graph mode,
// per traced return (the entry is the same on both sides).
type Effect struct {
	Label string
	A, B  string // pairings (Job.Name)
	// Of is the pairing whose graph cost the effect is a share of ("": A).
	Of string
}

// The pairings the headline compares: every exit under ftrace_caller, so
// the entry path is the same and the graph-mode difference is the exit
// trampoline's alone.
const (
	BasePairing = "ftrace_caller+rth-merged"
)

// The two return paths of the fprobe question under the same entry (the
// SAVE_REGS entry the rethook-era fprobe ops goes through), so the
// graph-mode difference is the return paths' alone: fgraph's
// return_to_handler (rth-fixed, the current one) against
// arch_rethook_trampoline.
const (
	RethookBase    = "ftrace_regs_caller+rth-fixed"
	RethookPairing = "ftrace_regs_caller+rethook"
)

// HeadlineEffects are the report's comparisons: the exit trampolines
// against rth-merged (the question of the v7 thread: what saving every
// argument register in return_to_handler costs), then the experiments that
// isolate the return sequence and the extra stores (a 2x2 design:
// {rth-merged's 3 saves, rth-full-fregs' 9} x {call; mov %rdi,(%rsp); ret,
// jmp *%rdi}).
var HeadlineEffects = []Effect{
	{"rth-full-fregs (rejected v7: every argument register, rbp, RSP)", BasePairing, "ftrace_caller+rth-full-fregs", ""},
	{"rth-legacy (<= v6.4: rax, rdx; jmp *%rdi)", BasePairing, "ftrace_caller+rth-legacy", ""},
	{"rth-fixed (after v6.19: + RSP)", BasePairing, "ftrace_caller+rth-fixed", ""},
	{"experiment: the v6.5+ return sequence alone, 3 saves (rth-merged minus rth-merged-jmp)", "ftrace_caller+rth-merged-jmp", BasePairing, BasePairing},
	{"experiment: the v6.5+ return sequence alone, 9 saves (rth-full-fregs minus rth-full-fregs-jmp)", "ftrace_caller+rth-full-fregs-jmp", "ftrace_caller+rth-full-fregs", BasePairing},
	{"experiment: the extra saves alone, jmp return (rth-full-fregs-jmp minus rth-merged-jmp)", "ftrace_caller+rth-merged-jmp", "ftrace_caller+rth-full-fregs-jmp", BasePairing},
}

// ReportConfig is the report's run: every registry pairing plus
// rth-legacy under ftrace_caller (its registry pairing has the v5.10
// entry), compared as HeadlineEffects say, with the A/A control of the
// base pairing: at least 10 generations and the whole budget, the target
// half-width 0.25 ns reported as reached or not.
func ReportConfig() Config {
	jobs := RegistryJobs()
	extra, _ := ParsePairing("ftrace_caller+rth-legacy")
	jobs = append(jobs, extra)
	cfg := Config{Jobs: jobs, CPU: -1, Compare: [][2]string{{BasePairing, BasePairing}, {RethookBase, RethookPairing}}, MinGenerations: 10, TargetNs: 0.25}
	for _, e := range HeadlineEffects {
		cfg.Compare = append(cfg.Compare, [2]string{e.A, e.B})
	}
	return cfg
}

// EmulatedCost is a trampoline's exact cost per traced call from the
// emulated check (check.Metrics).
type EmulatedCost struct {
	Instructions, Stores, StoreBytes float64
}

// HeadlineRow is one effect with its interval, its share of the base
// pairing's graph cost, and the exact exit-trampoline differences.
type HeadlineRow struct {
	Label  string   `json:"label"`
	A      string   `json:"a"`
	B      string   `json:"b"`
	DiffNs float64  `json:"diff_ns"`
	CI95   Interval `json:"ci95"`
	// BlockRange, Test, P, MinP and N are the comparison's
	// (Comparison).
	BlockRange  Interval `json:"block_range"`
	Test        string   `json:"test"`
	P           float64  `json:"p"`
	MinP        float64  `json:"min_p"`
	N           int      `json:"n"`
	Significant bool     `json:"significant"`
	Negligible  bool     `json:"negligible"`
	// ShiftRange is the comparison's range over the layout shifts
	// (Comparison.ShiftRange).
	ShiftRange Interval `json:"shift_range"`
	// Reruns is the between-run spread of the same effect in the rerun
	// experiment (make bench-stability), when one was read
	// (AttachReruns); nil otherwise.
	Reruns *Reruns `json:"reruns,omitempty"`
	// GraphCostNs is the graph cost (median graph minus median off) of
	// pairing Of (A, or the kernel pairing an experiment isolates a part
	// of); Percent is DiffNs as a share of it.
	Of          string  `json:"share_of"`
	GraphCostNs float64 `json:"graph_cost_ns"`
	Percent     float64 `json:"percent_of_graph_cost"`
	// Instructions, Stores and StoreBytes are B's exit trampoline minus
	// A's, per traced return, exact (emulated check); nil without them.
	Instructions *float64 `json:"instructions,omitempty"`
	Stores       *float64 `json:"stores,omitempty"`
	StoreBytes   *float64 `json:"store_bytes,omitempty"`
}

// Headline computes the effects from a run; cost (may be nil) maps exit
// variant names to their emulated costs.
func Headline(st *Stats, effects []Effect, cost map[string]EmulatedCost) []HeadlineRow {
	var out []HeadlineRow
	for _, e := range effects {
		c, ok := st.Comparison(e.A, e.B, Graph)
		if !ok {
			continue
		}
		h := HeadlineRow{Label: e.Label, A: e.A, B: e.B, DiffNs: c.DiffNs, CI95: c.CI95, BlockRange: c.BlockRange, Test: c.Test, P: c.P, MinP: c.MinP, N: c.N,
			Significant: c.Significant, Negligible: c.Negligible, ShiftRange: c.ShiftRange}
		of := e.Of
		if of == "" {
			of = e.A
		}
		h.Of = of
		g, ok1 := st.Row(of, Graph)
		o, ok2 := st.Row(of, Off)
		if ok1 && ok2 && g.MedianNs > o.MedianNs {
			h.GraphCostNs = g.MedianNs - o.MedianNs
			h.Percent = 100 * c.DiffNs / h.GraphCostNs
			if math.Abs(h.Percent) < 0.5 {
				h.Percent = 0 // printed "0%", not "-0%"
			}
		}
		ca, oka := cost[exitOf(e.A)]
		cb, okb := cost[exitOf(e.B)]
		if oka && okb {
			i, s, sb := cb.Instructions-ca.Instructions, cb.Stores-ca.Stores, cb.StoreBytes-ca.StoreBytes
			h.Instructions, h.Stores, h.StoreBytes = &i, &s, &sb
		}
		out = append(out, h)
	}
	return out
}

// Reruns is one effect's between-run spread in the rerun experiment.
type Reruns struct {
	Runs    int     `json:"runs"`
	Machine string  `json:"machine"`
	Date    string  `json:"date"`
	Median  float64 `json:"median"`
	SD      float64 `json:"sd"`
	Min     float64 `json:"min"`
	Max     float64 `json:"max"`
	// Covered: the runs whose interval contained the median of the
	// others'; Significant: the runs that called it significant (a
	// conclusion that flips between runs shows here).
	Covered     int `json:"covered"`
	Significant int `json:"significant"`
}

// AttachReruns adds the rerun experiment's spread (s may be nil) to the
// headline rows of the same effect in graph mode.
func AttachReruns(hs []HeadlineRow, s *Stability) {
	for i, h := range hs {
		if r := s.Reruns(h.A, h.B); r != nil {
			hs[i].Reruns = r
		}
	}
}

// Reruns is the between-run spread of B minus A in graph mode over the
// experiment (s may be nil), nil when it did not compare them.
func (s *Stability) Reruns(a, b string) *Reruns {
	r, ok := s.Spread(a, b, Graph)
	if !ok {
		return nil
	}
	return &Reruns{Runs: s.Runs, Machine: s.Machine, Date: s.Date, Median: r.Median, SD: r.SD, Min: r.Min, Max: r.Max, Covered: r.Covered, Significant: r.Significant}
}

// GraphCoverage counts, over the graph-mode comparisons but the A/A
// control, the runs whose interval covered the other runs' median, of
// all their runs.
func (s *Stability) GraphCoverage() (covered, runs int) {
	for _, r := range s.Compare {
		if r.Mode == Graph && r.A != r.B {
			covered, runs = covered+r.Covered, runs+len(r.DiffNs)
		}
	}
	return covered, runs
}

func exitOf(pairing string) string {
	_, x, _ := strings.Cut(pairing, "+")
	return x
}

// ns formats a time with its interval.
func ns(v float64, ci Interval) string {
	return fmt.Sprintf("%.2f [%.2f, %.2f]", v, ci[0], ci[1])
}

func signed(v float64, ci Interval) string {
	return fmt.Sprintf("%+.3f [%+.3f, %+.3f]", v, ci[0], ci[1])
}

// WriteTable prints the rows as a Markdown table, one line per pairing.
func WriteTable(w io.Writer, st *Stats) error {
	var b strings.Builder
	b.WriteString("| entry | exit | off ns/call [95% CI] | function tracer ns/call [95% CI] | graph user ns/call [95% CI] | function cost | graph cost | samples (processes) |\n")
	b.WriteString("|---|---|--:|--:|--:|--:|--:|--:|\n")
	for i := 0; i+len(Modes) <= len(st.Rows); i += len(Modes) {
		o, f, g := st.Rows[i], st.Rows[i+1], st.Rows[i+2]
		exit := o.Exit
		if o.Experiment {
			exit += " (experiment)"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | +%.2f | +%.2f | %d (%d) |\n", o.Entry, exit, ns(o.MedianNs, o.CI95), ns(f.MedianNs, f.CI95),
			ns(g.MedianNs, g.CI95), f.MedianNs-o.MedianNs, g.MedianNs-o.MedianNs, o.Samples, o.Processes)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// VerdictRule states the rule of Verdict for table headers.
var VerdictRule = fmt.Sprintf("different: p < 0.05 and the 95%% interval excludes 0; negligible: that, but within ±%.2g ns", EquivalenceNs)

// Verdict is the word for a difference, the same in the headline and the
// comparison table: significant is IsSignificant's answer, negligible that
// the whole interval lies within ±EquivalenceNs.
func Verdict(significant, negligible bool) string {
	switch {
	case !significant:
		return "no significant difference"
	case negligible:
		return fmt.Sprintf("negligible (the interval lies within ±%.2g ns)", EquivalenceNs)
	}
	return "different"
}

// WriteCompare prints the comparisons as a Markdown table; the A/A control
// is marked.
func WriteCompare(w io.Writer, st *Stats) error {
	var b strings.Builder
	b.WriteString("| A | B | mode | B - A ns/call [95% CI] | blocks: range (n non-zero) | p (Wilcoxon signed-rank, paired; smallest attainable) | verdict (" + VerdictRule + ") |\n")
	b.WriteString("|---|---|---|--:|--:|--:|---|\n")
	for _, c := range st.Compare {
		verdict := Verdict(c.Significant, c.Negligible)
		switch {
		case c.A == c.B && c.ControlFailed():
			verdict += " (A/A control: FAILED, the machine is too noisy)"
		case c.A == c.B && c.Significant:
			verdict += " (A/A control: passes)"
		case c.A == c.B:
			verdict += " (A/A control: passes)"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | [%+.3f, %+.3f] (%d) | %.3g (%.2g) | %s |\n", c.A, c.B, c.Mode, signed(c.DiffNs, c.CI95), c.BlockRange[0], c.BlockRange[1], c.N, c.P, c.MinP, verdict)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteHeadline prints the effects as Markdown bullets.
func WriteHeadline(w io.Writer, hs []HeadlineRow) error {
	var b strings.Builder
	for _, h := range hs {
		fmt.Fprintf(&b, "- %s: **%+.2f ns [%+.2f, %+.2f] per traced return**, %.0f%% of the graph cost of %s (%.2f ns)", h.Label, h.DiffNs, h.CI95[0], h.CI95[1], h.Percent, exitOf(h.Of), h.GraphCostNs)
		if h.Instructions != nil {
			fmt.Fprintf(&b, "; exactly %+g instructions, %+g stores, %+g bytes stored", *h.Instructions, *h.Stores, *h.StoreBytes)
		}
		fmt.Fprintf(&b, " (%s, p = %.2g, %s", Verdict(h.Significant, h.Negligible), h.P, pNote(h.N, h.MinP))
		fmt.Fprintf(&b, "; the %d blocks of the run ranged %+.2f to %+.2f", h.N, h.BlockRange[0], h.BlockRange[1])
		if !math.IsNaN(h.ShiftRange[0]) && h.ShiftRange != (Interval{}) {
			fmt.Fprintf(&b, ", the layout shifts %+.2f to %+.2f", h.ShiftRange[0], h.ShiftRange[1])
		}
		if r := h.Reruns; r != nil {
			fmt.Fprintf(&b, "; between %d reruns (%s, %s): median %+.2f, SD %.2f, range %+.2f to %+.2f, significant in %d)\n", r.Runs, r.Machine, r.Date, r.Median, r.SD, r.Min, r.Max, r.Significant)
		} else {
			b.WriteString("; between-run spread not measured: make bench-stability)\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// pNote names the test and, when few blocks limit it, its smallest
// attainable p.
func pNote(n int, minP float64) string {
	if minP >= 0.05 {
		return fmt.Sprintf("Wilcoxon signed-rank over %d blocks, whose smallest attainable p is %.2g: too few to be significant", n, minP)
	}
	return fmt.Sprintf("Wilcoxon signed-rank over %d blocks, smallest attainable p %.2g", n, minP)
}

// WriteInfo says in one sentence how the run was made.
func WriteInfo(w io.Writer, st *Stats) error {
	in := st.Info
	reached := "reached"
	if !in.ReachedTarget {
		reached = "not reached"
	}
	widest := "infinite (too few rounds)"
	if in.MaxHalfWidthNs != nil {
		widest = fmt.Sprintf("±%.2f ns", *in.MaxHalfWidthNs)
	}
	_, err := fmt.Fprintf(w, "Run on %s, %s. Timed in %d generations of fresh child processes (one per pairing, all pinned to CPU %d), each sampled in %d interleaved rounds (every pairing, every mode, once per round, the pairings in a fresh random order), %.1f s in all; a sample is %d calls after %d warm-up calls. Each generation gives its median per pairing and mode (and per comparison its median per-round difference); the generations are grouped by start time into %d blocks spread over the whole run, each block's value the median of its generations', so that the machine's drift during the run is variation between blocks; functions are aligned to %d bytes as the kernel aligns them, and the generations place the entry and the exit trampolines at the offsets %v of a 64-byte line in turn (the layout shifts); golang.org/x/perf/benchmath gives the median over the blocks with its distribution-free 95%% interval, and the Wilcoxon signed-rank test of the block differences the p; widest interval %s (target ±%.2g ns: %s).\n",
		in.Machine, in.Date, in.Generations, in.CPU, in.Rounds, in.Seconds, in.CallsPerSample, in.Warmup, in.Blocks, in.FunctionAlign, shiftsOf(in.LayoutShifts), widest, in.TargetNs, reached)
	return err
}

// shiftsOf lists the exit offsets of the layouts.
func shiftsOf(ls []LayoutShift) []int {
	var out []int
	for _, l := range ls {
		out = append(out, l.Exit)
	}
	return out
}

// WriteBench prints one Go benchmark line per block per pairing and mode
// (BenchmarkNative/entry=E/exit=X/mode=M), its value the block's median
// ns per call: the block is the run's unit, so benchstat on two runs (a
// tree before and after a patch) summarises the same values as the run's
// own interval (benchstat's is benchmath's median interval too).
func WriteBench(w io.Writer, st *Stats) error {
	var b strings.Builder
	fmt.Fprintf(&b, "goos: %s\ngoarch: %s\npkg: trampemu/native\n", runtime.GOOS, runtime.GOARCH)
	for i := 0; i+len(Modes) <= len(st.Rows); i += len(Modes) {
		r := st.Rows[i]
		for m, mode := range Modes {
			for _, v := range st.blockValues(st.medians(i/len(Modes), m)) {
				fmt.Fprintf(&b, "BenchmarkNative/entry=%s/exit=%s/mode=%s \t%d\t%.3f ns/op\n", benchName(r.Entry), benchName(r.Exit), mode, st.Info.CallsPerSample, v)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// benchName keeps a name one benchmark-name field: no spaces, no slashes
// (a file path becomes its base name).
func benchName(s string) string {
	if i := strings.LastIndex(s, "/"); i >= 0 {
		s = s[i+1:]
	}
	return strings.ReplaceAll(s, " ", "_")
}
