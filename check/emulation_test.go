package check

import (
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
		})
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
			if _, err := sameStream(start("function-graph", false), start("function", true), 4); err == nil {
				t.Error("a graph call passed as the raw function-tracer call's stream")
			}
			if _, err := sameStream(start("function", false), start("function", true), 4); err != nil {
				t.Error(err)
			}
		})
	}
}
