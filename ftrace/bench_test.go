package ftrace

import (
	"testing"

	"trampemu/regs"
)

// BenchmarkEnterReturn: one traced call (Enter + Return) with one fprobe
// (entry + exit handler, 8 bytes of entry data) on FlatMemory.
func BenchmarkEnterReturn(b *testing.B) {
	for _, a := range regs.Arches {
		b.Run(a.Name, func(b *testing.B) {
			e := newEnv(b, a)
			m, err := NewFprobes(FprobesConfig{Graph: e.g, Symbols: map[string]uint64{"f": e.fn(0)}})
			if err != nil {
				b.Fatal(err)
			}
			exits := 0
			fp := &Fprobe{Name: "bench", EntryDataSize: 8,
				EntryHandler: func(_ *Fprobe, _, _ uint64, _ *regs.Frame, data uint64) int {
					e.mem.WriteWord(data, 1)
					return 0
				},
				ExitHandler: func(_ *Fprobe, _, _ uint64, _ *regs.Frame, data uint64) {
					exits += int(e.mem.ReadWord(data))
				}}
			if err := m.Register(fp, "f"); err != nil {
				b.Fatal(err)
			}
			ret, fn := e.caller(0), e.fn(0)
			e.setEntry(0, ret)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if !e.g.Enter(ret, fn, 0, e.sp, e.fregs) {
					b.Fatal("not traced")
				}
				if _, err := e.g.Return(e.fregs); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			if exits != b.N {
				b.Fatalf("%d exits for %d calls", exits, b.N)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/call")
			b.ReportMetric(float64(e.g.Stats().LastFrameWords), "words/call")
		})
	}
}
