package emu

import (
	"testing"
	"trampemu/regs"
)

// BenchmarkHostCall: ns per host call made from a guest loop (guest_loop
// calls host_count N times in one run).
func BenchmarkHostCall(b *testing.B) {
	for _, a := range regs.Arches {
		b.Run(a.Name, func(b *testing.B) {
			m := newTestMachine(b, a)
			m.Bind("host_count", func(m *Machine) error { m.SetReturn(m.Arg(0)); return nil }, clobberBench)
			fn, done := sym(b, m, "guest_loop"), sym(b, m, "done")
			b.ResetTimer()
			if err := m.Call(fn, done, stackTop(a), []uint64{uint64(b.N)}, RunOptions{Limit: 1 << 40, Timeout: 1 << 40}); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/hostcall")
		})
	}
}

// BenchmarkBlockCounters runs the same store-heavy guest loop with block
// counting on and off; the ratio of the two ns/op is the counters' cost.
func BenchmarkBlockCounters(b *testing.B) {
	for _, a := range regs.Arches {
		for _, on := range []bool{false, true} {
			name := a.Name + "/off"
			if on {
				name = a.Name + "/on"
			}
			b.Run(name, func(b *testing.B) {
				m := newTestMachine(b, a)
				m.SetCounting(on)
				fn, done := sym(b, m, "guest_stores"), sym(b, m, "done")
				const iters = 100000
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := m.Call(fn, done, stackTop(a), []uint64{iters}, RunOptions{Limit: 1 << 40}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/iters, "ns/iteration")
			})
		}
	}
}

var clobberBench = true
