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
			// Checks on is a checked call's thread CPU time per call: more
			// than nothing, and within 20x of the same call with checks off
			// (2-3x on every arch here): a sum or product of the clock
			// readings, or a round that returned no time, is far outside.
			if c, g := em.ChecksOnNs.Median, em.GraphNs.Median; c <= 0 || g <= 0 || c/g > 20 || em.ChecksOnRatio <= 0 || em.ChecksOnRatio > 20 {
				t.Errorf("checks on %v ns, off %v ns, ratio %v: not a per-call time", c, g, em.ChecksOnRatio)
			}
			if r := em.ChecksOnSpread; r.Median != em.ChecksOnRatio || r.Min > r.Median || r.Median > r.Max {
				t.Errorf("checks-on ratio %v, spread %+v", em.ChecksOnRatio, r)
			}
			// Each round's ratio is its function-tracer time over its raw
			// time (its checks-on time over its checks-off time), so their
			// median lies between the extreme times' quotients.
			within := func(name string, ratio float64, num, den Spread) {
				if lo, hi := num.Min/den.Max, num.Max/den.Min; ratio < lo || ratio > hi {
					t.Errorf("%s ratio %v outside [%v, %v], the quotients of %+v over %+v", name, ratio, lo, hi, num, den)
				}
			}
			within("raw Unicorn", em.RawUnicornRatio, em.FunctionNs, em.RawNs)
			within("checks-on", em.ChecksOnRatio, em.ChecksOnNs, em.GraphNs)
			// Traced calls per second: a second over a traced call's time.
			if got := em.TracedCallsPerS * em.GraphNs.Median; got < 1e9*(1-1e-9) || got > 1e9*(1+1e-9) {
				t.Errorf("%v traced calls/s at %v ns each", em.TracedCallsPerS, em.GraphNs.Median)
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
	// Between order statistics further apart than 1: the interpolation
	// weighs the gap.
	if got := quantile([]float64{40, 10, 20}, 0.25); got != 15 {
		t.Errorf("quantile 0.25 of 10 20 40 = %v, want 15", got)
	}
	if got := quantile([]float64{40, 10, 20}, 0.75); got != 30 {
		t.Errorf("quantile 0.75 of 10 20 40 = %v, want 30", got)
	}
	if quantile(nil, 0.5) != 0 {
		t.Error("no values")
	}
}

func TestPerCall(t *testing.T) {
	if got := perCall(1_000_000, 1_600_000, 200); got != 3000 {
		t.Errorf("perCall(1e6, 1.6e6, 200) = %v, want 3000", got)
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
			// Every graph call runs the exit trampoline: the first one
			// (call 1) already differs.
			if _, _, err := sameStream(start("function-graph", false), start("function", true), 4); err == nil || !strings.Contains(err.Error(), "PC trace") || !strings.Contains(err.Error(), ": call 1 executed") {
				t.Errorf("a graph call passed as the raw function-tracer call's stream: %v", err)
			}
			if _, tr, err := sameStream(start("function", false), start("function", true), 4); err != nil || tr.Count == 0 {
				t.Error(err)
			}
		})
	}
}
