package native

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"time"

	"golang.org/x/perf/benchmath"
)

// Config is a native timing run.
//
// The run is made of generations: each starts a fresh child process per
// pairing (and one more for the A/A control), samples them in interleaved
// rounds (every pairing, every mode, once per round; the children pinned
// to one CPU), and ends them. Processes are the unit of the statistics:
// the same code at the same addresses runs at one of a few speeds that
// stay fixed for a process's lifetime (on the AMD EPYC this was developed
// on, graph mode of one pairing ran 19.45 or 21.03 ns per call, whichever
// the process drew), so samples of one process are not independent
// evidence about the pairing. Each generation contributes its median per
// pairing and mode, and per comparison the median of its per-round
// differences.
//
// The machine drifts during a run (other load comes and goes: on the
// 2-core VM the per-generation medians had a lag-1 autocorrelation of
// 0.63), so consecutive generations are not independent either. The run
// therefore spends its whole budget, and its generations are grouped by
// start time into Blocks blocks spread evenly over it; a block's value is
// the median of its generations', and the intervals (benchmath's
// distribution-free interval of the median) and the paired test
// (SignedRank) are over the blocks, so that the drift within the run is
// in the interval as variation between blocks.
type Config struct {
	// Jobs are the pairings to time (each once; a repeated name is an
	// error).
	Jobs []Job
	// Compare lists pairs of job names (Job.Name), [A, B]: the run reports
	// B minus A per mode. A comparison of a pairing with itself is an A/A
	// control: the pairing is timed in a second child process of its own
	// in every generation. When Compare is not empty and holds no A/A
	// pair, the first A is controlled against itself.
	Compare [][2]string
	// Calls per sample (0: 2,000) after Warmup untimed calls (0: 500).
	Calls, Warmup int
	// Rounds per generation (0: 40).
	Rounds int
	// Generations: at least MinGenerations (0: 6, the fewest for a 95%
	// interval of a median), at most MaxGenerations (0: no limit); between
	// them the run continues until Budget (0: 20 s) is spent: it does not
	// stop early when the intervals are narrow (stopping on the data would
	// bias them), TargetNs (0: 1 ns) is the half-width it is reported to
	// have reached or not.
	MinGenerations, MaxGenerations int
	TargetNs                       float64
	Budget                         time.Duration
	// Blocks is the number of blocks the generations are grouped into by
	// start time (0: 10; a run of fewer generations has one block per
	// generation).
	Blocks int
	// Shifts are the trampolines' offsets within their cache lines, one
	// layout per generation in turn (LayoutOf; nil: Shifts, 0/16/32/48).
	// Functions are aligned as the kernel aligns them (FunctionAlign).
	Shifts []int
	// CPU the children are pinned to (-1: the highest this process may
	// use).
	CPU int
}

// Row is one pairing in one mode: the median ns per call of add(1, 2)
// over the blocks (each the median of its generations', each of those the
// median of its process's samples, each sample the mean over Calls calls)
// with its 95% confidence interval (benchmath.AssumeNothing:
// distribution-free, on order statistics) and the range of the blocks.
type Row struct {
	Entry      string   `json:"entry"`
	Exit       string   `json:"exit"`
	Mode       Mode     `json:"mode"`
	Experiment bool     `json:"experiment,omitempty"`
	MedianNs   float64  `json:"median_ns"`
	CI95       Interval `json:"ci95"`
	// BlockRange is the smallest and the largest block value: the drift
	// within the run.
	BlockRange Interval `json:"block_range"`
	// Samples is the number of timed samples, Processes the number of
	// child processes (generations) they came from, Blocks the number of
	// blocks.
	Samples   int `json:"samples"`
	Processes int `json:"processes"`
	Blocks    int `json:"blocks"`
}

// Comparison is B minus A in one mode: per generation the median of the
// per-round differences (A and B sampled in the same round, moments
// apart), per block the median of its generations', and over the blocks
// their median with its 95% interval and the p value of the Wilcoxon
// signed-rank test of the block differences (SignedRank: paired, as each
// block's A and B ran side by side, so the load on the machine moves them
// together and cancels); Significant says IsSignificant: p < 0.05 and the
// 95% interval excludes zero. A equal to B is the A/A control (two child
// processes of the same pairing in every generation): it must not be
// significant.
type Comparison struct {
	A      string   `json:"a"`
	B      string   `json:"b"`
	Mode   Mode     `json:"mode"`
	DiffNs float64  `json:"diff_ns"`
	CI95   Interval `json:"ci95"`
	// Confidence is the interval's actual level (an order-statistic
	// interval's is at least 0.95, e.g. 0.979 for 10 blocks).
	Confidence float64  `json:"confidence"`
	BlockRange Interval `json:"block_range"`
	// ShiftRange is the smallest and the largest of the per-layout
	// differences (RunInfo.LayoutShifts): the layout's effect.
	ShiftRange Interval `json:"shift_range"`
	Test       string   `json:"test"`
	P          float64  `json:"p"`
	// MinP is the smallest p the test can give with N blocks (N non-zero
	// block differences): 2/2^N, so N < 6 can never be significant.
	MinP        float64 `json:"min_p"`
	N           int     `json:"n"`
	Significant bool    `json:"significant"`
	// Negligible: the whole interval lies within ±EquivalenceNs. With
	// intervals this narrow a real but immaterial difference between two
	// processes of the same code (a few picoseconds) can be significant;
	// the A/A control fails only when its difference is significant and
	// not negligible.
	Negligible bool `json:"negligible"`
}

// EquivalenceNs is the margin below which a difference counts as none for
// the A/A control: a twentieth of the default 1 ns target precision.
const EquivalenceNs = 0.05

// IsSignificant is the one rule every verdict uses: a difference is
// significant only when the paired test says so (p < alpha) AND its 95%
// interval excludes zero (an interval that contains zero does not tell the
// sign of the difference, whatever p says).
func IsSignificant(p, alpha float64, ci Interval) bool {
	return p < alpha && (ci[0] > 0 || ci[1] < 0)
}

// ControlFailed reports whether c, an A/A control, shows a difference.
func (c Comparison) ControlFailed() bool { return c.A == c.B && c.Significant && !c.Negligible }

// HalfWidth is half the interval's width.
func (c Comparison) HalfWidth() float64 { return (c.CI95[1] - c.CI95[0]) / 2 }

// RunInfo says how a run went.
type RunInfo struct {
	// Machine and Date (UTC) say where and when the run was made.
	Machine        string  `json:"machine"`
	Date           string  `json:"date"`
	CPU            int     `json:"cpu"`
	Generations    int     `json:"generations"`
	Blocks         int     `json:"blocks"`
	Rounds         int     `json:"rounds_per_generation"`
	CallsPerSample int     `json:"calls_per_sample"`
	Warmup         int     `json:"warmup_calls"`
	Seconds        float64 `json:"seconds"`
	TargetNs       float64 `json:"target_half_width_ns"`
	// MaxHalfWidthNs is the widest comparison interval's half-width (the
	// widest row's without comparisons) when the run stopped; null when
	// too few generations leave an interval infinite.
	MaxHalfWidthNs *float64 `json:"max_half_width_ns"`
	ReachedTarget  bool     `json:"reached_target"`
	// FunctionAlign is the functions' alignment (FunctionAlign);
	// LayoutShifts the comparisons per layout.
	FunctionAlign int           `json:"function_align"`
	LayoutShifts  []LayoutShift `json:"layout_shifts"`
}

// LayoutShift is one layout's comparisons: per comparison the median over
// the generations run at that layout of their differences, with its 95%
// interval.
type LayoutShift struct {
	Layout
	Generations int         `json:"generations"`
	Compare     []ShiftDiff `json:"compare"`
}

// ShiftDiff is one comparison at one layout.
type ShiftDiff struct {
	A      string   `json:"a"`
	B      string   `json:"b"`
	Mode   Mode     `json:"mode"`
	DiffNs float64  `json:"diff_ns"`
	CI95   Interval `json:"ci95"`
}

// Stats is a run's result.
type Stats struct {
	Rows    []Row        `json:"native"`
	Compare []Comparison `json:"native_compare,omitempty"`
	Info    RunInfo      `json:"native_run"`
	// raw[g][i][m] are generation g's samples of instance i in mode
	// Modes[m], in round order; at[g] is when generation g started,
	// seconds into the run, and layout[g] its layout (an index into
	// shifts' layouts); blocks the number of blocks asked for.
	raw    [][][][]float64
	at     []float64
	layout []int
	shifts []int
	blocks int
	in     instances
}

// Row returns the row of a pairing and mode.
func (s *Stats) Row(name string, m Mode) (Row, bool) {
	for _, r := range s.Rows {
		if r.Entry+"+"+r.Exit == name && r.Mode == m {
			return r, true
		}
	}
	return Row{}, false
}

// Comparison returns the comparison of B with A in mode m.
func (s *Stats) Comparison(a, b string, m Mode) (Comparison, bool) {
	for _, c := range s.Compare {
		if c.A == a && c.B == b && c.Mode == m {
			return c, true
		}
	}
	return Comparison{}, false
}

// ReturnCost is a pairing's ns per traced return: per round the graph-mode
// sample minus the function-mode sample of the same child (taken moments
// apart: the return-address swap of the stand-in and the whole return
// path, exit trampoline and stand-in), per generation the median, per
// block the median of its generations', and over the blocks benchmath's
// median with its 95% interval.
type ReturnCost struct {
	Pairing string   `json:"pairing"`
	Ns      float64  `json:"ns"`
	CI95    Interval `json:"ci95"`
	Blocks  int      `json:"blocks"`
}

// ReturnCost returns a timed pairing's ns per traced return.
func (s *Stats) ReturnCost(name string) (ReturnCost, bool) {
	i, ok := s.in.index[name]
	if !ok {
		return ReturnCost{}, false
	}
	bv := s.blockValues(s.roundDiffs(i, slices.Index(Modes, Function), i, slices.Index(Modes, Graph)))
	sum := summary(bv)
	return ReturnCost{Pairing: name, Ns: sum.Center, CI95: Interval{sum.Lo, sum.Hi}, Blocks: len(bv)}, true
}

// Run times the pairings (see Config).
func Run(cfg Config) (*Stats, error) {
	if len(cfg.Jobs) == 0 {
		return nil, fmt.Errorf("native: no pairings to time")
	}
	calls, warmup, rounds := or(cfg.Calls, 2000), or(cfg.Warmup, 500), or(cfg.Rounds, 40)
	minGen, target := or(cfg.MinGenerations, 6), cfg.TargetNs
	if target <= 0 {
		target = 1
	}
	budget := cfg.Budget
	if budget <= 0 {
		budget = 20 * time.Second
	}
	nBlocks := or(cfg.Blocks, 10)
	// Instances: one per job, then the A/A control's second instance.
	index := map[string]int{}
	jobs := slices.Clone(cfg.Jobs)
	for i, j := range jobs {
		if _, dup := index[j.Name()]; dup {
			return nil, fmt.Errorf("native: pairing %s listed twice", j.Name())
		}
		index[j.Name()] = i
	}
	compare := slices.Clone(cfg.Compare)
	controls := map[string]int{} // A/A pairing -> its second instance
	for _, c := range compare {
		for _, n := range c {
			if _, ok := index[n]; !ok {
				return nil, fmt.Errorf("native: comparison %s,%s names %s, which is not among the pairings timed", c[0], c[1], n)
			}
		}
		if _, ok := controls[c[0]]; c[0] == c[1] && !ok {
			controls[c[0]] = len(jobs)
			jobs = append(jobs, jobs[index[c[0]]])
		}
	}
	if len(compare) > 0 && len(controls) == 0 {
		control := compare[0][0]
		compare = append([][2]string{{control, control}}, compare...)
		controls[control] = len(jobs)
		jobs = append(jobs, jobs[index[control]])
	}
	cpu := cfg.CPU
	if cpu < 0 {
		var err error
		if cpu, err = hostCPU(); err != nil {
			return nil, err
		}
	}
	shifts := cfg.Shifts
	if len(shifts) == 0 {
		shifts = Shifts
	}
	plans := make([][]*plan, len(shifts))
	for k := range shifts {
		l := LayoutOf(k, shifts)
		var err error
		if plans[k], err = makePlans(jobs, &l); err != nil {
			return nil, err
		}
	}
	in := instances{index: index, controls: controls}
	st := &Stats{blocks: nBlocks, shifts: shifts, in: in}
	start := time.Now()
	for {
		st.at = append(st.at, time.Since(start).Seconds())
		k := len(st.raw) % len(shifts)
		st.layout = append(st.layout, k)
		gen, err := runGeneration(jobs, plans[k], len(st.raw), cpu, rounds, warmup, calls)
		if err != nil {
			return nil, err
		}
		// A control's two processes trade places at random, so that
		// neither is systematically the first started or the one the
		// other comparisons use.
		for name, second := range controls {
			if rand.N(2) == 1 {
				a := index[name]
				gen[a], gen[second] = gen[second], gen[a]
			}
		}
		st.raw = append(st.raw, gen)
		g := len(st.raw)
		if cfg.MaxGenerations > 0 && g >= cfg.MaxGenerations {
			break
		}
		if g >= minGen && time.Since(start) >= budget {
			break
		}
	}
	st.Info = RunInfo{Machine: Machine(), Date: start.UTC().Format("2006-01-02 15:04 UTC"), CPU: cpu, Generations: len(st.raw), Blocks: len(st.blockOf()), Rounds: rounds, CallsPerSample: calls, Warmup: warmup, Seconds: time.Since(start).Seconds(), TargetNs: target}
	for i, j := range cfg.Jobs {
		for m, mode := range Modes {
			bv := st.blockValues(st.medians(i, m))
			sum := summary(bv)
			st.Rows = append(st.Rows, Row{Entry: j.Entry.name(), Exit: j.Exit.name(), Mode: mode, Experiment: j.Experiment(),
				MedianNs: sum.Center, CI95: Interval{sum.Lo, sum.Hi}, BlockRange: rangeOf(bv), Samples: rounds * len(st.raw), Processes: len(st.raw), Blocks: len(bv)})
		}
	}
	for _, c := range compare {
		for m, mode := range Modes {
			st.Compare = append(st.Compare, st.compare(c, m, mode, in))
		}
	}
	st.Info.FunctionAlign = FunctionAlign
	st.Info.LayoutShifts = st.layoutShifts()
	w := st.widest(compare, in, len(cfg.Jobs))
	if !math.IsInf(w, 0) && !math.IsNaN(w) {
		st.Info.MaxHalfWidthNs = &w
	}
	st.Info.ReachedTarget = w <= target
	return st, nil
}

// instances maps a comparison's names to instances: an A/A control's
// second side is its own child.
type instances struct {
	index    map[string]int
	controls map[string]int
}

func (in instances) of(name string, second bool) int {
	if i, ok := in.controls[name]; second && ok {
		return i
	}
	return in.index[name]
}

// makePlans builds every job's plan at layout l once (the control shares
// its pairing's).
func makePlans(jobs []Job, l *Layout) ([]*plan, error) {
	plans := make([]*plan, len(jobs))
	byName := map[string]*plan{}
	for i, j := range jobs {
		if p, ok := byName[j.Name()]; ok {
			plans[i] = p
			continue
		}
		if _, err := checkCanStart(j); err != nil {
			return nil, err
		}
		p, err := makePlan(j, l)
		if err != nil {
			return nil, err
		}
		plans[i], byName[j.Name()] = p, p
	}
	return plans, nil
}

// runGeneration starts a child per job, samples them in interleaved
// rounds (the order shuffled by seed) and ends them; it returns
// [instance][mode][]samples.
func runGeneration(jobs []Job, plans []*plan, seed, cpu, rounds, warmup, calls int) ([][][]float64, error) {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x6e6174697665))
	kids, err := startChildren(jobs, plans, rng.Perm(len(jobs)), cpu)
	if err != nil {
		return nil, err
	}
	defer closeAll(kids)
	gen := make([][][]float64, len(jobs))
	for i := range gen {
		gen[i] = make([][]float64, len(Modes))
	}
	// Every round visits the children in a fresh random order, so that
	// no pairing always follows the same neighbour (a child's sample is
	// slightly faster or slower depending on what ran before it).
	for range rounds {
		for _, i := range rng.Perm(len(kids)) {
			k := kids[i]
			for m, mode := range Modes {
				v, err := k.sample(mode, warmup, calls)
				if err != nil {
					return nil, err
				}
				gen[i][m] = append(gen[i][m], v)
			}
		}
	}
	return gen, nil
}

func or(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}

// startChildren starts one child per job, two at a time, in the given
// order.
func startChildren(jobs []Job, plans []*plan, order []int, cpu int) ([]*child, error) {
	kids := make([]*child, len(jobs))
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for _, i := range order {
		j := jobs[i]
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			kids[i], errs[i] = startChild(j, plans[i], cpu)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			closeAll(kids)
			return nil, errs[i]
		}
	}
	return kids, nil
}

// closeAll ends the children (nil ones skipped) in parallel.
func closeAll(kids []*child) {
	var wg sync.WaitGroup
	for _, k := range kids {
		if k != nil {
			wg.Add(1)
			go func() {
				defer wg.Done()
				k.close()
			}()
		}
	}
	wg.Wait()
}

// summary is benchmath's median with its 95% interval (NewSample sorts,
// so it gets a copy).
func summary(xs []float64) benchmath.Summary {
	return benchmath.AssumeNothing.Summary(benchmath.NewSample(slices.Clone(xs), &benchmath.DefaultThresholds), 0.95)
}

// medians is instance i's median in mode m per generation.
func (st *Stats) medians(i, m int) []float64 {
	out := make([]float64, len(st.raw))
	for g, gen := range st.raw {
		out[g] = summary(gen[i][m]).Center
	}
	return out
}

// blockOf groups the generations into blocks by start time: the run's
// span [first start, last start] cut into st.blocks equal parts (fewer
// when there are fewer generations), empty parts dropped. Without start
// times (a run made in a test) the generations are cut by index.
func (st *Stats) blockOf() [][]int {
	n := len(st.raw)
	b := or(st.blocks, 10)
	if n <= b {
		out := make([][]int, n)
		for g := range out {
			out[g] = []int{g}
		}
		return out
	}
	pos := func(g int) float64 { return float64(g) / float64(n) }
	if len(st.at) == n && st.at[n-1] > st.at[0] {
		span := st.at[n-1] - st.at[0]
		// The last generation starts at the end of the span: place every
		// start at its share of a span one mean generation longer, so the
		// blocks are of equal duration.
		span += span / float64(n-1)
		pos = func(g int) float64 { return (st.at[g] - st.at[0]) / span }
	}
	out := make([][]int, b)
	for g := range n {
		k := min(int(pos(g)*float64(b)), b-1)
		out[k] = append(out[k], g)
	}
	return slices.DeleteFunc(out, func(gs []int) bool { return len(gs) == 0 })
}

// blockValues is the median of per-generation values per block.
func (st *Stats) blockValues(perGen []float64) []float64 {
	var out []float64
	for _, gs := range st.blockOf() {
		xs := make([]float64, len(gs))
		for i, g := range gs {
			xs[i] = perGen[g]
		}
		out = append(out, summary(xs).Center)
	}
	return out
}

// rangeOf is [min, max] of xs.
func rangeOf(xs []float64) Interval {
	if len(xs) == 0 {
		return Interval{math.NaN(), math.NaN()}
	}
	return Interval{slices.Min(xs), slices.Max(xs)}
}

// genDiffs is per generation the median of the per-round differences
// B - A of instances ia and ib in mode m.
func (st *Stats) genDiffs(ia, ib, m int) []float64 { return st.roundDiffs(ia, m, ib, m) }

// roundDiffs is per generation the median of the per-round differences of
// instance ib in mode mb minus instance ia in mode ma.
func (st *Stats) roundDiffs(ia, ma, ib, mb int) []float64 {
	diffs := make([]float64, len(st.raw))
	for g, gen := range st.raw {
		a, b := gen[ia][ma], gen[ib][mb]
		d := make([]float64, min(len(a), len(b)))
		for r := range d {
			d[r] = b[r] - a[r]
		}
		diffs[g] = summary(d).Center
	}
	return diffs
}

// compare computes one comparison: per generation the median of the
// per-round differences B - A, per block the median of those, summarised
// over the blocks by benchmath and tested by SignedRank.
func (st *Stats) compare(c [2]string, m int, mode Mode, in instances) Comparison {
	ia, ib := in.of(c[0], false), in.of(c[1], c[0] == c[1])
	gd := st.genDiffs(ia, ib, m)
	cmp := compareBlocks(c, mode, st.blockValues(gd))
	var per []float64
	for _, xs := range st.byLayout(gd) {
		if len(xs) > 0 {
			per = append(per, summary(xs).Center)
		}
	}
	cmp.ShiftRange = rangeOf(per)
	return cmp
}

// byLayout splits per-generation values by the generations' layouts.
func (st *Stats) byLayout(perGen []float64) [][]float64 {
	n := max(len(st.shifts), 1)
	out := make([][]float64, n)
	for g, v := range perGen {
		k := 0
		if g < len(st.layout) {
			k = st.layout[g]
		}
		out[k] = append(out[k], v)
	}
	return out
}

// layoutShifts is every comparison per layout (st.Compare must be
// computed).
func (st *Stats) layoutShifts() []LayoutShift {
	out := make([]LayoutShift, len(st.shifts))
	for k := range out {
		out[k].Layout = LayoutOf(k, st.shifts)
	}
	for g := range st.raw {
		out[st.layout[g]].Generations++
	}
	for _, c := range st.Compare {
		ia, ib := st.in.of(c.A, false), st.in.of(c.B, c.A == c.B)
		m := slices.Index(Modes, c.Mode)
		for k, xs := range st.byLayout(st.genDiffs(ia, ib, m)) {
			if len(xs) == 0 {
				continue
			}
			sum := summary(xs)
			out[k].Compare = append(out[k].Compare, ShiftDiff{A: c.A, B: c.B, Mode: c.Mode, DiffNs: sum.Center, CI95: Interval{sum.Lo, sum.Hi}})
		}
	}
	return out
}

// compareBlocks summarises and tests the block differences of c.
func compareBlocks(c [2]string, mode Mode, diffs []float64) Comparison {
	sum := summary(diffs)
	p, minP, n := SignedRank(diffs)
	ci := Interval{sum.Lo, sum.Hi}
	return Comparison{A: c[0], B: c[1], Mode: mode, DiffNs: sum.Center, CI95: ci, Confidence: sum.Confidence, BlockRange: rangeOf(diffs),
		Test: SignedRankTest, P: p, MinP: minP, N: n, Significant: IsSignificant(p, 0.05, ci),
		Negligible: sum.Lo >= -EquivalenceNs && sum.Hi <= EquivalenceNs}
}

// widest is the largest half-width over the comparisons (over the first
// rows rows without comparisons).
func (st *Stats) widest(compare [][2]string, in instances, rows int) float64 {
	w := 0.0
	if len(compare) == 0 {
		for i := range rows {
			for m := range Modes {
				s := summary(st.blockValues(st.medians(i, m)))
				w = math.Max(w, (s.Hi-s.Lo)/2)
			}
		}
		return w
	}
	for _, c := range compare {
		for m, mode := range Modes {
			w = math.Max(w, st.compare(c, m, mode, in).HalfWidth())
		}
	}
	return w
}

// Interval is a 95% confidence interval [lo, hi]; a bound that too few
// samples leave infinite is null in JSON.
type Interval [2]float64

// MarshalJSON writes [lo, hi] with null for an infinite bound.
func (iv Interval) MarshalJSON() ([]byte, error) {
	var b []byte
	b = append(b, '[')
	for i, v := range iv {
		if i > 0 {
			b = append(b, ',')
		}
		if math.IsInf(v, 0) || math.IsNaN(v) {
			b = append(b, "null"...)
			continue
		}
		b = strconv.AppendFloat(b, v, 'g', -1, 64)
	}
	return append(b, ']'), nil
}

// UnmarshalJSON reads what MarshalJSON writes (null: -Inf or +Inf).
func (iv *Interval) UnmarshalJSON(data []byte) error {
	var v [2]*float64
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	for i, p := range v {
		switch {
		case p != nil:
			iv[i] = *p
		case i == 0:
			iv[i] = math.Inf(-1)
		default:
			iv[i] = math.Inf(1)
		}
	}
	return nil
}
