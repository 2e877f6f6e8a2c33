package mutate

import (
	"testing"
	"time"

	"trampemu/check"
	"trampemu/regs"
)

// benchmarkArch mutates every variant of a, as `trampemu mutate --arch a`
// does, and reports the seconds one whole run takes (goal: <= 120 s on 2
// cores) and the number of mutants. Minutes per iteration: run it with
// -benchtime 1x.
func benchmarkArch(b *testing.B, a *regs.Arch) {
	tramps, err := check.Variants(a, "")
	if err != nil {
		b.Fatal(err)
	}
	var mutants, unexplained int
	start := time.Now()
	for i := 0; i < b.N; i++ {
		sums, err := Run(Config{Arch: a, Tramps: tramps})
		if err != nil {
			b.Fatal(err)
		}
		mutants, unexplained = 0, 0
		for _, s := range sums {
			mutants += s.Mutants
			unexplained += s.Unexplained()
		}
	}
	b.ReportMetric(time.Since(start).Seconds()/float64(b.N), "s/arch")
	b.ReportMetric(float64(mutants), "mutants")
	b.ReportMetric(float64(unexplained), "unexplained")
}

func BenchmarkMutateX86_64(b *testing.B) { benchmarkArch(b, regs.X86_64) }
func BenchmarkMutateS390X(b *testing.B)  { benchmarkArch(b, regs.S390X) }
func BenchmarkMutateARM64(b *testing.B)  { benchmarkArch(b, regs.ARM64) }
