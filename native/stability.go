package native

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"
)

// Stability is the rerun experiment: the same run made Runs times in a
// row on one machine, and per comparison how the runs agree. A run's
// interval "covers" when it contains the median of the other runs'
// differences (with 10 runs, the median of the other nine): the rate at
// which it does is what a reader checking the number by running the
// command again would see, to be set against the interval's nominal
// confidence. The A/A control passes when it fails in none of its modes.
type Stability struct {
	Machine  string  `json:"machine"`
	Date     string  `json:"date"`
	Runs     int     `json:"runs"`
	BudgetS  float64 `json:"budget_s"`
	AAPasses int     `json:"aa_passes"`
	// AAFailures lists the failed controls, one line each.
	AAFailures []string      `json:"aa_failures,omitempty"`
	Compare    []RerunSpread `json:"compare"`
}

// RerunSpread is one comparison over the reruns.
type RerunSpread struct {
	A    string `json:"a"`
	B    string `json:"b"`
	Mode Mode   `json:"mode"`
	// DiffNs and CI95 are every run's.
	DiffNs []float64  `json:"diff_ns"`
	CI95   []Interval `json:"ci95"`
	// Covered counts the runs whose interval contains the median of the
	// others'; Nominal is the intervals' nominal confidence (the
	// order-statistic interval's actual level at the runs' block count,
	// their median).
	Covered int     `json:"covered"`
	Nominal float64 `json:"nominal"`
	// Median, SD, Min and Max of the runs' differences: the between-run
	// spread; MedianHalfWidth the runs' median interval half-width, for
	// comparison.
	Median          float64 `json:"median"`
	SD              float64 `json:"sd"`
	Min             float64 `json:"min"`
	Max             float64 `json:"max"`
	MedianHalfWidth float64 `json:"median_half_width"`
	// Significant counts the runs that called the difference significant.
	Significant int `json:"significant"`
}

// Rerun makes cfg's run runs times and evaluates the agreement (see
// Stability); progress, when not nil, is called after every run.
func Rerun(cfg Config, runs int, progress func(i int, st *Stats)) (*Stability, error) {
	var all []*Stats
	for i := range runs {
		st, err := Run(cfg)
		if err != nil {
			return nil, fmt.Errorf("rerun %d of %d: %w", i+1, runs, err)
		}
		all = append(all, st)
		if progress != nil {
			progress(i, st)
		}
	}
	s := Evaluate(all)
	s.BudgetS = cfg.Budget.Seconds()
	return s, nil
}

// Evaluate compares the runs' comparisons (the runs must be of one
// configuration).
func Evaluate(all []*Stats) *Stability {
	s := &Stability{Machine: Machine(), Date: time.Now().UTC().Format("2006-01-02 15:04 UTC"), Runs: len(all)}
	if len(all) == 0 {
		return s
	}
	for _, st := range all {
		pass := true
		for _, c := range st.Compare {
			if c.ControlFailed() {
				pass = false
				s.AAFailures = append(s.AAFailures, fmt.Sprintf("%s %s: %s (p = %.2g)", c.A, c.Mode, signed(c.DiffNs, c.CI95), c.P))
			}
		}
		if pass {
			s.AAPasses++
		}
	}
	for k, c0 := range all[0].Compare {
		r := RerunSpread{A: c0.A, B: c0.B, Mode: c0.Mode}
		var conf, hw []float64
		for _, st := range all {
			c := st.Compare[k]
			r.DiffNs = append(r.DiffNs, c.DiffNs)
			r.CI95 = append(r.CI95, c.CI95)
			conf = append(conf, c.Confidence)
			hw = append(hw, c.HalfWidth())
			if c.Significant {
				r.Significant++
			}
		}
		for i := range r.DiffNs {
			others := slices.Delete(slices.Clone(r.DiffNs), i, i+1)
			if len(others) == 0 {
				break
			}
			m := median(others)
			if r.CI95[i][0] <= m && m <= r.CI95[i][1] {
				r.Covered++
			}
		}
		r.Nominal, r.MedianHalfWidth = median(conf), median(hw)
		r.Median, r.Min, r.Max = median(r.DiffNs), slices.Min(r.DiffNs), slices.Max(r.DiffNs)
		r.SD = sd(r.DiffNs)
		s.Compare = append(s.Compare, r)
	}
	return s
}

// ReadStability reads the rerun experiment's JSON (make bench-stability
// writes out/stability.json); nil and no error when there is none.
func ReadStability(path string) (*Stability, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var s Stability
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: not the JSON of make bench-stability (%v): run it again or remove the file", path, err)
	}
	return &s, nil
}

// Spread returns the comparison of b with a in mode m.
func (s *Stability) Spread(a, b string, m Mode) (RerunSpread, bool) {
	if s == nil {
		return RerunSpread{}, false
	}
	for _, r := range s.Compare {
		if r.A == a && r.B == b && r.Mode == m {
			return r, true
		}
	}
	return RerunSpread{}, false
}

// WriteStability prints the experiment as Markdown.
func WriteStability(w *strings.Builder, s *Stability) {
	fmt.Fprintf(w, "%d reruns of %.0f s each on %s, %s. A/A control passed in %d of %d.\n\n", s.Runs, s.BudgetS, s.Machine, s.Date, s.AAPasses, s.Runs)
	for _, f := range s.AAFailures {
		fmt.Fprintf(w, "- A/A failed: %s\n", f)
	}
	w.WriteString("\n| A | B | mode | median of runs | between-run SD | range | median half-width | interval covers the others' median | nominal | significant |\n|---|---|---|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, r := range s.Compare {
		fmt.Fprintf(w, "| %s | %s | %s | %+.3f | %.3f | [%+.3f, %+.3f] | %.3f | %d of %d | %.1f%% | %d of %d |\n",
			r.A, r.B, r.Mode, r.Median, r.SD, r.Min, r.Max, r.MedianHalfWidth, r.Covered, len(r.DiffNs), 100*r.Nominal, r.Significant, len(r.DiffNs))
	}
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func sd(xs []float64) float64 {
	if len(xs) < 2 {
		return math.NaN()
	}
	m := 0.0
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	v := 0.0
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	return math.Sqrt(v / float64(len(xs)-1))
}

// Machine names this host: the CPU model, the CPUs online and the OS.
func Machine() string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	return fmt.Sprintf("%s, %d CPUs, %s/%s", model, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH)
}
