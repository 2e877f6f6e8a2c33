package scenarios

import (
	"testing"
	"time"

	"trampemu/ftrace"
	"trampemu/regs"
)

// BenchmarkFprobe measures traced calls of `add` through the arch's
// current trampolines with one fprobe (entry and exit handler, 8 bytes of
// entry data, merged header), all b.N calls in one emulator run of the fast
// driver with checks off. Metrics: ns per traced call and calls/s (the
// whole call: fentry, entry trampoline, Go kernel, add, return_to_handler);
// the Go time of the entry and exit handler bodies and of the whole fprobe
// fgraph callbacks around them (reservation, headers, walk), each averaged
// over the calls and including one time.Now pair.
func BenchmarkFprobe(b *testing.B) {
	for _, a := range regs.Arches {
		b.Run(a.Name, func(b *testing.B) {
			h, err := newMachine(a, ftrace.DesignFgraph, ftrace.DispatchMerged)
			if err != nil {
				b.Fatal(err)
			}
			defer h.Close()
			fps, err := ftrace.NewFprobes(ftrace.FprobesConfig{Graph: h.K.Graph, Symbols: Symbols(h), Header: ftrace.HeaderMerged, Ftrace: h.K.Ftrace})
			if err != nil {
				b.Fatal(err)
			}
			mem := h.K.Mem
			var entryT, exitT, fpEntryT, fpExitT time.Duration
			var entries, exits, bad uint64
			fp := &ftrace.Fprobe{Name: "bench", EntryDataSize: 8,
				EntryHandler: func(_ *ftrace.Fprobe, _, _ uint64, fregs *regs.Frame, data uint64) int {
					t0 := time.Now()
					v, _ := fregs.Argument(0)
					mem.WriteWord(data, v)
					entries++
					entryT += time.Since(t0)
					return 0
				},
				ExitHandler: func(_ *ftrace.Fprobe, _, _ uint64, fregs *regs.Frame, data uint64) {
					t0 := time.Now()
					ret, _ := fregs.ReturnValue()
					if mem.ReadWord(data)+2 != ret {
						bad++
					}
					exits++
					exitT += time.Since(t0)
				},
			}
			// Time the shared fgraph callbacks of fprobe around the handlers.
			gops := fps.GraphOps()
			entryFn, retFn := gops.EntryFunc, gops.RetFunc
			gops.EntryFunc = func(g *ftrace.Graph, tr *ftrace.GraphEnt, o *ftrace.GraphOps, f *regs.Frame) bool {
				t0 := time.Now()
				ok := entryFn(g, tr, o, f)
				fpEntryT += time.Since(t0)
				return ok
			}
			gops.RetFunc = func(g *ftrace.Graph, tr *ftrace.GraphRet, o *ftrace.GraphOps, f *regs.Frame) {
				t0 := time.Now()
				retFn(g, tr, o, f)
				fpExitT += time.Since(t0)
			}
			if err := fps.Register(fp, "add"); err != nil {
				b.Fatal(err)
			}
			args := []uint64{1, 2}
			if err := h.RunFast("add", args, 1000); err != nil { // warm the translation cache
				b.Fatal(err)
			}
			entries, exits, entryT, exitT, fpEntryT, fpExitT = 0, 0, 0, 0, 0, 0
			n := uint64(b.N)
			b.ResetTimer()
			start := time.Now()
			err = h.RunFast("add", args, n)
			elapsed := time.Since(start)
			b.StopTimer()
			if err != nil {
				b.Fatal(err)
			}
			if entries != n || exits != n || bad != 0 || fp.NMissed() != 0 || h.FastResult() != 3 {
				b.Fatalf("%d calls: %d entries, %d exits, %d bad data, nmissed %d, result %d", n, entries, exits, bad, fp.NMissed(), h.FastResult())
			}
			per := float64(elapsed.Nanoseconds()) / float64(n)
			b.ReportMetric(per, "ns/call")
			b.ReportMetric(1e9/per, "calls/s")
			b.ReportMetric(float64(entryT.Nanoseconds())/float64(n), "entry-handler-ns")
			b.ReportMetric(float64(exitT.Nanoseconds())/float64(n), "exit-handler-ns")
			b.ReportMetric(float64(fpEntryT.Nanoseconds())/float64(n), "fprobe-entry-ns")
			b.ReportMetric(float64(fpExitT.Nanoseconds())/float64(n), "fprobe-exit-ns")
		})
	}
}
