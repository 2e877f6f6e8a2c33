//go:build stability

package native_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"trampemu/native"
)

var (
	stabilityRuns   = flag.Int("stability.runs", 20, "reruns of the report's native run")
	stabilityBudget = flag.Duration("stability.budget", 20*time.Second, "budget of each rerun (the report's default: 20s)")
	stabilityOut    = flag.String("stability.out", "../out", "directory for stability.json and stability.md")
)

// BenchmarkStability is the rerun experiment (make bench-stability): the
// report's native run (native.ReportConfig, every headline comparison and
// the A/A control) made -stability.runs times in a row; it reports how
// often a run's interval contains the median of the other runs' graph-mode
// differences, how often the A/A control passes, and the between-run
// spread, and writes them to stability.json and stability.md. It runs
// once whatever b.N is (each rerun is a whole native run); it is built
// only with -tags stability, so that `make bench` does not run it.
func BenchmarkStability(b *testing.B) {
	cfg := native.ReportConfig()
	cfg.Budget = *stabilityBudget
	s, err := native.Rerun(cfg, *stabilityRuns, func(i int, st *native.Stats) {
		for _, c := range st.Compare {
			if c.Mode == native.Graph {
				b.Logf("run %d: %s - %s: %+.3f [%+.3f, %+.3f] p %.2g (%d generations, %d blocks)", i+1, c.B, c.A, c.DiffNs, c.CI95[0], c.CI95[1], c.P, st.Info.Generations, st.Info.Blocks)
			}
		}
	})
	if err != nil {
		b.Fatal(err)
	}
	covered, total := 0, 0
	for _, r := range s.Compare {
		if r.Mode == native.Graph && r.A != r.B {
			covered += r.Covered
			total += len(r.DiffNs)
		}
		if r.A == native.BasePairing && r.B == "ftrace_caller+rth-full-fregs" && r.Mode == native.Graph {
			b.ReportMetric(r.Median, "ns-full-fregs-median")
			b.ReportMetric(r.SD, "ns-full-fregs-between-run-sd")
			b.ReportMetric(float64(r.Covered)/float64(len(r.DiffNs)), "full-fregs-coverage")
		}
	}
	b.ReportMetric(float64(covered)/float64(total), "graph-coverage")
	b.ReportMetric(float64(s.AAPasses), "aa-passes")
	b.ReportMetric(float64(s.Runs), "runs")
	if err := os.MkdirAll(*stabilityOut, 0o755); err != nil {
		b.Fatal(err)
	}
	js, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		b.Fatal(err)
	}
	var md strings.Builder
	native.WriteStability(&md, s)
	if err := os.WriteFile(filepath.Join(*stabilityOut, "stability.json"), append(js, '\n'), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*stabilityOut, "stability.md"), []byte(md.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Log("\n" + md.String())
}
