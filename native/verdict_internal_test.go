package native

import (
	"strings"
	"testing"
)

// statsOf builds a run of len(diffs) generations of one round each: A
// takes 10 ns in every mode, B 10 ns plus the generation's difference.
func statsOf(diffs []float64) *Stats {
	st := &Stats{}
	for _, d := range diffs {
		gen := make([][][]float64, 2)
		for i := range gen {
			gen[i] = make([][]float64, len(Modes))
			for m := range Modes {
				gen[i][m] = []float64{10 + float64(i)*d}
			}
		}
		st.raw = append(st.raw, gen)
	}
	return st
}

// A difference is significant only when the paired test says so and the
// 95% interval excludes zero: eight positive blocks and two small negative
// ones give p = 10/1024 but an interval [2nd, 9th] that contains zero
// (the QA case: +0.645 [-0.087, +1.691], p = 0.0476, called "different");
// the headline and the comparison table say the same; five blocks can
// never be significant (smallest attainable p 1/16).
func TestVerdictNeedsIntervalExcludingZero(t *testing.T) {
	in := instances{index: map[string]int{"a": 0, "b": 1}, controls: map[string]int{}}
	for _, c := range []struct {
		diffs []float64
		want  string
	}{
		{[]float64{-0.087, -0.09, 0.5, 0.645, 0.7, 1.2, 1.691, 0.8, 0.9, 1.0}, "no significant difference"},
		{[]float64{0.4, 0.5, 0.645, 0.7, 1.2, 1.691}, "different"},
		{[]float64{0.4, 0.5, 0.645, 0.7, 1.2}, "no significant difference"},
		{[]float64{0.001, 0.002, 0.003, 0.004, 0.005, 0.006}, "negligible"},
		{[]float64{-0.2, 0.3, -0.1, 0.2, 0.1, -0.3}, "no significant difference"},
	} {
		st := statsOf(c.diffs)
		cmp := st.compare([2]string{"a", "b"}, 2, Graph, in)
		got := Verdict(cmp.Significant, cmp.Negligible)
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("%v: %+v: verdict %q, want %q", c.diffs, cmp, got, c.want)
		}
		if c.diffs[0] == -0.087 && (cmp.P >= 0.05 || cmp.N != 10 || cmp.Test != SignedRankTest) {
			t.Errorf("%v: p = %g: the case must have p < 0.05 to prove the interval rule", c.diffs, cmp.P)
		}
		st.Compare = []Comparison{cmp}
		var table, head strings.Builder
		if err := WriteCompare(&table, st); err != nil {
			t.Fatal(err)
		}
		if err := WriteHeadline(&head, Headline(st, []Effect{{Label: "x", A: "a", B: "b"}}, nil)); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(table.String(), "| "+got+" |") || !strings.Contains(head.String(), "("+got+", p = ") {
			t.Errorf("%v: table and headline disagree on %q:\n%s\n%s", c.diffs, got, table.String(), head.String())
		}
	}
}
