package native

import (
	"math"
	"math/rand/v2"
	"testing"
)

// signs builds n differences with ranks 1..n, the ranks in neg negative.
func signs(n int, neg ...int) []float64 {
	d := make([]float64, n)
	for i := range d {
		d[i] = float64(i + 1)
	}
	for _, r := range neg {
		d[r-1] = -d[r-1]
	}
	return d
}

// The exact p values of the signed-rank test against the published table
// of critical values (two-sided α = 0.05: W = min(W+, W-) at most T;
// Wilcoxon 1945, as tabled e.g. in Siegel & Castellan, Nonparametric
// Statistics, table H), and exact p values counted by hand: for n = 10,
// 25 of the 1024 sign patterns have W- ≤ 8, p = 50/1024.
func TestSignedRankTable(t *testing.T) {
	for _, c := range []struct {
		d    []float64
		p    float64
		minP float64
	}{
		{signs(5), 0.0625, 0.0625},                            // all positive: the smallest p of n = 5, above 0.05
		{signs(6), 0.03125, 0.03125},                          // n = 6, W = 0
		{signs(8, 3), 10.0 / 256, 1.0 / 128},                  // n = 8, W = 3: {}, {1}, {2}, {3}, {1,2}
		{signs(10, 8), 50.0 / 1024, 1.0 / 512},                // n = 10, W = 8
		{signs(10, 9), 66.0 / 1024, 1.0 / 512},                // W = 9: 25 + 8 patterns
		{[]float64{-1, 1, 2, 2}, 6.0 / 16, 1.0 / 8},           // ties: ranks 1.5, 1.5, 3.5, 3.5, W+ = 8.5
		{[]float64{0, 0, 1, 2, 3, 4, 5, 6}, 0.03125, 0.03125}, // zeros dropped
		{[]float64{0, 0}, 1, 1},
	} {
		p, minP, _ := SignedRank(c.d)
		if math.Abs(p-c.p) > 1e-12 || math.Abs(minP-c.minP) > 1e-12 {
			t.Errorf("%v: p %v (want %v), min p %v (want %v)", c.d, p, c.p, minP, c.minP)
		}
	}
	// The table's critical values T: W = T rejects at 0.05, W = T + 1 does
	// not. W- = T is made by negating ranks that sum to T.
	for n, T := range map[int]int{6: 0, 7: 2, 8: 3, 9: 5, 10: 8, 11: 10, 12: 13, 13: 17, 14: 21, 15: 25, 20: 52, 25: 89, 30: 137} {
		for _, w := range []int{T, T + 1} {
			var neg []int
			for r, left := n, w; left > 0; r-- {
				if r <= left {
					neg, left = append(neg, r), left-r
				}
			}
			p, _, _ := SignedRank(signs(n, neg...))
			if (p <= 0.05) != (w == T) {
				t.Errorf("n = %d, W = %d: p = %.5f; the table's critical value is %d", n, w, p, T)
			}
		}
	}
}

// The normal approximation above exactSignedRankMax agrees with the exact
// distribution where both are computed.
func TestSignedRankNormalApproximation(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		d := make([]float64, exactSignedRankMax)
		for i := range d {
			d[i] = rng.NormFloat64() + 0.1
		}
		exact, _, _ := SignedRank(d)
		approx, _, _ := SignedRank(append(d, 0.00001)) // one more: n above the limit
		if math.Abs(exact-approx) > 0.01 {
			t.Errorf("exact %.4f, normal approximation %.4f", exact, approx)
		}
	}
}

func FuzzSignedRank(f *testing.F) {
	f.Add(1.0, -2.0, 3.0, 3.0, 0.0, 5.0)
	f.Fuzz(func(t *testing.T, a, b, c, d, e, g float64) {
		p, minP, n := SignedRank([]float64{a, b, c, d, e, g})
		if !(p >= minP-1e-12 && p <= 1) || n > 6 {
			t.Fatalf("p %v, min p %v, n %d", p, minP, n)
		}
	})
}
