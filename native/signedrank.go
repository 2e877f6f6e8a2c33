package native

import (
	"math"
	"slices"
)

// SignedRankTest names the paired test of the comparisons, as the output
// and the JSON (native_compare[].test) state it.
const SignedRankTest = "Wilcoxon signed-rank (two-sided, exact) of the per-block differences"

// exactSignedRankMax is the largest n the signed-rank p is computed
// exactly for (the distribution of the rank sum by dynamic programming,
// n²/2 steps per rank); above it the normal approximation with the tie
// and continuity corrections is used, which is accurate to well under
// 0.001 there.
const exactSignedRankMax = 200

// SignedRank is the two-sided Wilcoxon signed-rank test of the paired
// differences d against a distribution symmetric about zero: zeros are
// dropped (Wilcoxon's convention), the |d| are ranked with average ranks
// for ties, and p is twice the smaller tail of the exact permutation
// distribution of W+ (every sign pattern equally likely under H0, the
// tied ranks as they are). n is the number of non-zero differences and
// minP the smallest p any data of that n could give, 2/2^n: below 6
// non-zero differences p < 0.05 is impossible, which the output states.
//
// benchmath (golang.org/x/perf) has no paired test: its Mann-Whitney U
// test compares two independent samples.
func SignedRank(d []float64) (p, minP float64, n int) {
	type obs struct {
		abs float64
		pos bool
	}
	var xs []obs
	for _, v := range d {
		if v != 0 && !math.IsNaN(v) {
			xs = append(xs, obs{math.Abs(v), v > 0})
		}
	}
	n = len(xs)
	if n == 0 {
		return 1, 1, 0
	}
	minP = math.Min(1, math.Ldexp(1, 1-n))
	slices.SortFunc(xs, func(a, b obs) int {
		switch {
		case a.abs < b.abs:
			return -1
		case a.abs > b.abs:
			return 1
		}
		return 0
	})
	// Doubled ranks are integers even for average ranks of ties.
	ranks2 := make([]int, n)
	var tie3 float64 // Σ (t³ - t) over the tie groups
	wplus2 := 0
	for i := 0; i < n; {
		j := i
		for j < n && xs[j].abs == xs[i].abs {
			j++
		}
		r2 := i + 1 + j // 2 × the average of ranks i+1..j
		for k := i; k < j; k++ {
			ranks2[k] = r2
			if xs[k].pos {
				wplus2 += r2
			}
		}
		t := float64(j - i)
		tie3 += t*t*t - t
		i = j
	}
	if n > exactSignedRankMax {
		nn := float64(n)
		mean := nn * (nn + 1) / 4
		sd := math.Sqrt(nn*(nn+1)*(2*nn+1)/24 - tie3/48)
		z := (math.Abs(float64(wplus2)/2-mean) - 0.5) / sd
		if z < 0 {
			z = 0
		}
		return math.Min(1, math.Erfc(z/math.Sqrt2)), minP, n
	}
	// dist[s]: probability that the doubled W+ is s, every sign pattern
	// with probability 2^-n.
	total := n * (n + 1)
	dist := make([]float64, total+1)
	dist[0] = 1
	top := 0
	for _, r2 := range ranks2 {
		top += r2
		for s := top; s >= 0; s-- {
			v := dist[s] / 2
			if s >= r2 {
				v += dist[s-r2] / 2
			}
			dist[s] = v
		}
	}
	lo, hi := 0.0, 0.0
	for s, q := range dist {
		if s <= wplus2 {
			lo += q
		}
		if s >= wplus2 {
			hi += q
		}
	}
	return math.Min(1, 2*math.Min(lo, hi)), minP, n
}
