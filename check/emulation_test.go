package check

import (
	"strings"
	"testing"

	"trampemu/harness"
	"trampemu/regs"
)

func TestEmulationAgainstRawUnicorn(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			// MeasureEmulation fails when the raw run's stream differs from
			// the hooked one's (checked with the per-instruction counter).
			em, err := MeasureEmulation(a, 500, 1)
			if err != nil {
				t.Fatal(err)
			}
			if em.InsnsPerCall == 0 || em.RawNs.Median <= 0 || em.FunctionNs.Median <= 0 || em.RawUnicornRatio <= 0 {
				t.Fatalf("nothing measured: %+v", em)
			}
			// The ratio is the median of the rounds', within their range;
			// a call's PC trace is as long as the counter's instructions
			// per call.
			if r := em.RatioSpread; r.Median != em.RawUnicornRatio || r.Min > em.RatioIQR[0] || em.RatioIQR[0] > r.Median || r.Median > em.RatioIQR[1] || em.RatioIQR[1] > r.Max || em.StreamCalls != 16 {
				t.Errorf("ratio %v, spread %+v, %d calls compared", em.RawUnicornRatio, r, em.StreamCalls)
			}
			if float64(em.PCTrace.Count) != em.InsnsPerCall {
				t.Errorf("a call's PC trace has %d instructions, the counter %v per call", em.PCTrace.Count, em.InsnsPerCall)
			}
		})
	}
}

func TestQuantile(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3}
	for _, c := range []struct{ q, want float64 }{{0, 1}, {0.25, 2}, {0.5, 3}, {0.75, 4}, {1, 5}, {0.125, 1.5}} {
		if got := quantile(xs, c.q); got != c.want {
			t.Errorf("quantile %v of %v = %v, want %v", c.q, xs, got, c.want)
		}
	}
	if quantile(nil, 0.5) != 0 {
		t.Error("no values")
	}
}

func TestSpreadOf(t *testing.T) {
	if s := spreadOf([]float64{3, 1, 2}); s != (Spread{2, 1, 3}) {
		t.Errorf("odd: %+v", s)
	}
	if s := spreadOf([]float64{4, 1, 2, 3}); s != (Spread{2.5, 1, 4}) {
		t.Errorf("even: %+v", s)
	}
}

// The stream check catches a raw run that is not the hooked call's stream
// (the graph call runs the exit trampoline, the raw function call does not)
// and passes the raw twin of the function-tracer call.
func TestSameStreamCatchesADifferentStream(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			start := func(scenario string, raw bool) *harness.Harness {
				h := currentHarness(t, a, scenario, harness.Options{})
				if raw {
					if err := h.M.GoRaw(); err != nil {
						t.Fatal(err)
					}
				}
				return h
			}
			if _, _, err := sameStream(start("function-graph", false), start("function", true), 4); err == nil || !strings.Contains(err.Error(), "PC trace") {
				t.Errorf("a graph call passed as the raw function-tracer call's stream: %v", err)
			}
			if _, tr, err := sameStream(start("function", false), start("function", true), 4); err != nil || tr.Count == 0 {
				t.Error(err)
			}
		})
	}
}
