package native

import (
	"math/rand/v2"
	"testing"
)

// nullRun simulates a run of gens generations of rounds rounds of two
// child processes of the same code (no real difference): the machine's
// level drifts from generation to generation (AR(1), lag-1 correlation
// 0.63 as measured on the 2-core VM), each process draws one of two speeds
// for its lifetime (+1.5 ns or not), every sample has Gaussian noise and
// now and then a preemption spike (+5 to +25 ns) of its own.
func nullRun(rng *rand.Rand, gens, rounds int) *Stats {
	st := &Stats{blocks: 10}
	level := 0.0
	for g := range gens {
		level = 0.63*level + rng.NormFloat64()
		gen := make([][][]float64, 2)
		for i := range gen {
			speed := 0.0
			if rng.IntN(2) == 1 {
				speed = 1.5
			}
			gen[i] = make([][]float64, len(Modes))
			for m := range Modes {
				for range rounds {
					v := 30 + level + speed + 0.3*rng.NormFloat64()
					if rng.IntN(20) == 0 {
						v += 5 + 20*rng.Float64()
					}
					gen[i][m] = append(gen[i][m], v)
				}
			}
		}
		st.raw = append(st.raw, gen)
		st.at = append(st.at, float64(g)*(1+0.2*rng.Float64()))
	}
	return st
}

// With no real difference the paired test gives p < 0.05 in at most about
// 5% of runs, whatever the number of generations (the unpaired U test
// against zeros it replaces gave 21% at 6 generations and about 11% at 10
// to 30), and the interval contains zero in about 95% or more; the verdict
// rule (p < 0.05 and the interval excludes zero) is then rarer still. The
// seed is fixed: the test is deterministic.
func TestNullCalibration(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 2026))
	in := instances{index: map[string]int{"a": 0}, controls: map[string]int{"a": 1}}
	for _, gens := range []int{6, 10, 30, 100} {
		const runs = 1000
		reject, covered, significant := 0, 0, 0
		for range runs {
			st := nullRun(rng, gens, 8)
			c := st.compare([2]string{"a", "a"}, 2, Graph, in)
			if c.P < 0.05 {
				reject++
			}
			if c.CI95[0] <= 0 && 0 <= c.CI95[1] {
				covered++
			}
			if c.Significant {
				significant++
			}
		}
		rate, cover := float64(reject)/runs, float64(covered)/runs
		t.Logf("%d generations: p < 0.05 in %.1f%%, interval covers 0 in %.1f%%, significant in %.1f%%", gens, 100*rate, 100*cover, 100*float64(significant)/runs)
		if rate > 0.065 || cover < 0.93 || significant > reject {
			t.Errorf("%d generations: p < 0.05 in %.1f%% of %d null runs (want at most about 5%%), interval covers 0 in %.1f%% (want about 95%% or more)", gens, 100*rate, runs, 100*cover)
		}
	}
}
