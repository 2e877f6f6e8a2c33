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
// differences; benchmath summarises those over the generations.
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
	// them the run stops when every comparison's 95% interval (every row's
	// when there are no comparisons) has a half-width of at most TargetNs
	// (0: 1 ns), or when Budget (0: 20 s) is spent.
	MinGenerations, MaxGenerations int
	TargetNs                       float64
	Budget                         time.Duration
	// CPU the children are pinned to (-1: the highest this process may
	// use).
	CPU int
}

// Row is one pairing in one mode: the median ns per call of add(1, 2)
// over the generations (each the median of its process's samples, each
// sample the mean over Calls calls) with its 95% confidence interval
// (benchmath.AssumeNothing: distribution-free, on order statistics).
type Row struct {
	Entry      string   `json:"entry"`
	Exit       string   `json:"exit"`
	Mode       Mode     `json:"mode"`
	Experiment bool     `json:"experiment,omitempty"`
	MedianNs   float64  `json:"median_ns"`
	CI95       Interval `json:"ci95"`
	// Samples is the number of timed samples, Processes the number of
	// child processes (generations) they came from.
	Samples   int `json:"samples"`
	Processes int `json:"processes"`
}

// Comparison is B minus A in one mode: the median over the generations of
// each generation's median per-round difference (A and B sampled in the
// same round, moments apart) with its 95% interval, and the p value of
// benchmath's Mann-Whitney U test of those per-generation differences
// against as many zeros (a paired test: the load on the machine moves A
// and B together and cancels); Significant says IsSignificant: p < 0.05
// and the 95% interval excludes zero. A equal to B is the A/A control
// (two child processes of the same pairing in every generation): it must
// not be significant.
type Comparison struct {
	A           string   `json:"a"`
	B           string   `json:"b"`
	Mode        Mode     `json:"mode"`
	DiffNs      float64  `json:"diff_ns"`
	CI95        Interval `json:"ci95"`
	P           float64  `json:"p"`
	Significant bool     `json:"significant"`
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
// significant only when benchmath's test says so (p < alpha) AND its 95%
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
	CPU            int     `json:"cpu"`
	Generations    int     `json:"generations"`
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
}

// Stats is a run's result.
type Stats struct {
	Rows    []Row        `json:"native"`
	Compare []Comparison `json:"native_compare,omitempty"`
	Info    RunInfo      `json:"native_run"`
	// raw[g][i][m] are generation g's samples of instance i in mode
	// Modes[m], in round order.
	raw [][][][]float64
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
	plans, err := makePlans(jobs)
	if err != nil {
		return nil, err
	}
	st := &Stats{}
	in := instances{index: index, controls: controls}
	start := time.Now()
	for {
		gen, err := runGeneration(jobs, plans, len(st.raw), cpu, rounds, warmup, calls)
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
		if g < minGen {
			continue
		}
		if time.Since(start) >= budget || st.widest(compare, in, len(cfg.Jobs)) <= target {
			break
		}
	}
	st.Info = RunInfo{CPU: cpu, Generations: len(st.raw), Rounds: rounds, CallsPerSample: calls, Warmup: warmup, Seconds: time.Since(start).Seconds(), TargetNs: target}
	for i, j := range cfg.Jobs {
		for m, mode := range Modes {
			sum := summary(st.medians(i, m))
			st.Rows = append(st.Rows, Row{Entry: j.Entry.name(), Exit: j.Exit.name(), Mode: mode, Experiment: j.Experiment(),
				MedianNs: sum.Center, CI95: Interval{sum.Lo, sum.Hi}, Samples: rounds * len(st.raw), Processes: len(st.raw)})
		}
	}
	for _, c := range compare {
		for m, mode := range Modes {
			st.Compare = append(st.Compare, st.compare(c, m, mode, in))
		}
	}
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

// makePlans builds every job's plan once (the control shares its
// pairing's).
func makePlans(jobs []Job) ([]*plan, error) {
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
		p, err := makePlan(j)
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

// compare computes one comparison: per generation the median of the
// per-round differences B - A, summarised over the generations by
// benchmath, and its U test against zero.
func (st *Stats) compare(c [2]string, m int, mode Mode, in instances) Comparison {
	ia, ib := in.of(c[0], false), in.of(c[1], c[0] == c[1])
	diffs := make([]float64, len(st.raw))
	for g, gen := range st.raw {
		a, b := gen[ia][m], gen[ib][m]
		d := make([]float64, min(len(a), len(b)))
		for r := range d {
			d[r] = b[r] - a[r]
		}
		diffs[g] = summary(d).Center
	}
	sum := summary(diffs)
	// Paired: the differences against as many zeros (what no effect
	// looks like), so that the generations' common ups and downs cancel.
	sd := benchmath.NewSample(slices.Clone(diffs), &benchmath.DefaultThresholds)
	sz := benchmath.NewSample(make([]float64, len(diffs)), &benchmath.DefaultThresholds)
	cmp := benchmath.AssumeNothing.Compare(sz, sd)
	return Comparison{A: c[0], B: c[1], Mode: mode, DiffNs: sum.Center, CI95: Interval{sum.Lo, sum.Hi}, P: cmp.P, Significant: IsSignificant(cmp.P, cmp.Alpha, Interval{sum.Lo, sum.Hi}),
		Negligible: sum.Lo >= -EquivalenceNs && sum.Hi <= EquivalenceNs}
}

// widest is the largest half-width over the comparisons (over the first
// rows rows without comparisons).
func (st *Stats) widest(compare [][2]string, in instances, rows int) float64 {
	w := 0.0
	if len(compare) == 0 {
		for i := range rows {
			for m := range Modes {
				s := summary(st.medians(i, m))
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
