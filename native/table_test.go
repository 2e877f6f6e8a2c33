package native_test

import (
	"bytes"
	"strings"
	"testing"

	"trampemu/native"
)

// The A/A control fails when its difference is significant and not
// negligible, and passes otherwise; an ordinary comparison is "different"
// when significant.
func TestWriteCompareControl(t *testing.T) {
	base := native.BasePairing
	for _, c := range []struct {
		cmp  native.Comparison
		want string
	}{
		{native.Comparison{A: base, B: base, Mode: native.Graph, DiffNs: 0.4, CI95: native.Interval{0.2, 0.6}, P: 0.001, Significant: true}, "FAILED"},
		{native.Comparison{A: base, B: base, Mode: native.Graph, DiffNs: 0.001, CI95: native.Interval{0, 0.002}, P: 0.01, Significant: true, Negligible: true}, "negligible (the interval lies within ±0.05 ns) (A/A control: passes)"},
		{native.Comparison{A: base, B: base, Mode: native.Off, DiffNs: 0, CI95: native.Interval{-0.1, 0.1}, P: 0.6}, "no significant difference (A/A control: passes)"},
		{native.Comparison{A: base, B: "ftrace_caller+rth-fixed", Mode: native.Graph, DiffNs: 2, CI95: native.Interval{1, 3}, P: 0.001, Significant: true}, "| different |"},
	} {
		var b bytes.Buffer
		if err := native.WriteCompare(&b, &native.Stats{Compare: []native.Comparison{c.cmp}}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("%+v: want %q in\n%s", c.cmp, c.want, b.String())
		}
		if got := c.cmp.ControlFailed(); got != (c.want == "FAILED") {
			t.Errorf("%+v: ControlFailed = %v", c.cmp, got)
		}
	}
}

// The headline states the difference with its interval, its share of the
// base pairing's graph cost, and the exact emulated differences.
func TestHeadline(t *testing.T) {
	full := "ftrace_caller+rth-full-fregs"
	st := &native.Stats{
		Rows: []native.Row{
			{Entry: "ftrace_caller", Exit: "rth-merged", Mode: native.Off, MedianNs: 2},
			{Entry: "ftrace_caller", Exit: "rth-merged", Mode: native.Graph, MedianNs: 22},
		},
		Compare: []native.Comparison{{A: native.BasePairing, B: full, Mode: native.Graph, DiffNs: 0.6, CI95: native.Interval{0.5, 0.7}, P: 0.001, MinP: 0.002, N: 10, BlockRange: native.Interval{0.4, 0.8}, ShiftRange: native.Interval{0.55, 0.65}, Significant: true}},
	}
	cost := map[string]native.EmulatedCost{"rth-merged": {13, 6, 48}, "rth-full-fregs": {20, 12, 96}}
	hs := native.Headline(st, []native.Effect{{Label: "full", A: native.BasePairing, B: full}, {Label: "absent", A: native.BasePairing, B: "x+y"}}, cost)
	if len(hs) != 1 {
		t.Fatalf("%d rows, want the one effect that was measured", len(hs))
	}
	var b bytes.Buffer
	if err := native.WriteHeadline(&b, hs); err != nil {
		t.Fatal(err)
	}
	want := "- full: **+0.60 ns [+0.50, +0.70] per traced return**, 3% of the graph cost of rth-merged (20.00 ns); exactly +7 instructions, +6 stores, +48 bytes stored (different, p = 0.001, Wilcoxon signed-rank over 10 blocks, smallest attainable p 0.002; the 10 blocks of the run ranged +0.40 to +0.80, the layout shifts +0.55 to +0.65; between-run spread not measured: make bench-stability)\n"
	if b.String() != want {
		t.Errorf("got  %q\nwant %q", b.String(), want)
	}
	// With the rerun experiment: three runs, one with a failed A/A
	// control.
	var runs []*native.Stats
	for _, c := range [][3]float64{{0.30, 0.25, 0.40}, {0.35, 0.32, 0.45}, {0.50, 0.30, 0.55}} {
		runs = append(runs, &native.Stats{Compare: []native.Comparison{
			{A: native.BasePairing, B: native.BasePairing, Mode: native.Graph, CI95: native.Interval{-1, 1}},
			{A: native.BasePairing, B: full, Mode: native.Graph, DiffNs: c[0], CI95: native.Interval{c[1], c[2]}, Significant: true},
		}})
	}
	runs[1].Compare[0].Significant = true // a failed A/A control
	runs[1].Compare[0].DiffNs, runs[1].Compare[0].CI95 = 0.2, native.Interval{0.1, 0.3}
	s := native.Evaluate(runs)
	r, ok := s.Spread(native.BasePairing, full, native.Graph)
	// Others' medians: run 1 (0.35+0.50)/2 = 0.425 not in [0.25, 0.40];
	// run 2 0.40 in [0.32, 0.45]; run 3 0.325 in [0.30, 0.55].
	if !ok || r.Covered != 2 || r.Median != 0.35 || r.Min != 0.30 || r.Max != 0.50 || s.AAPasses != 2 || len(s.AAFailures) != 1 || r.Significant != 3 {
		t.Errorf("evaluation %+v, spread %+v", s, r)
	}
	native.AttachReruns(hs, s)
	b.Reset()
	if err := native.WriteHeadline(&b, hs); err != nil {
		t.Fatal(err)
	}
	if want := "; between 3 reruns (" + s.Machine + ", " + s.Date + "): median +0.35, SD 0.10, range +0.30 to +0.50, significant in 3)\n"; !strings.HasSuffix(b.String(), want) {
		t.Errorf("got %q, want the suffix %q", b.String(), want)
	}
}
