package check

import (
	"testing"

	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
)

// BenchmarkRawUnicorn/<arch>/{hooked,raw}: b.N function-tracer traced
// calls of add through the arch's current pairing, checks off (hooked) and
// on raw Unicorn with every trampemu hook removed (raw: the same
// instruction stream, see Emulation). benchstat on the two gives the
// overhead trampemu adds.
func BenchmarkRawUnicorn(b *testing.B) {
	for _, a := range regs.Arches {
		for _, raw := range []bool{false, true} {
			name := a.Name + "/hooked"
			if raw {
				name = a.Name + "/raw"
			}
			b.Run(name, func(b *testing.B) {
				entry, err := harness.Current(a, trampolines.Entry)
				if err != nil {
					b.Fatal(err)
				}
				exit, err := harness.Current(a, trampolines.Exit)
				if err != nil {
					b.Fatal(err)
				}
				sc, err := harness.FindUserSet("function")
				if err != nil {
					b.Fatal(err)
				}
				h, err := harness.Start(harness.Setup{Arch: a, Entry: entry, Exit: exit}, harness.Options{}, sc)
				if err != nil {
					b.Fatal(err)
				}
				defer h.Close()
				if raw {
					if err := h.M.GoRaw(); err != nil {
						b.Fatal(err)
					}
				}
				b.ResetTimer()
				if err := h.RunFast("add", []uint64{1, 2}, uint64(b.N)); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if !raw && h.FunctionHits != uint64(b.N) {
					b.Fatalf("%d function-tracer hits for %d calls", h.FunctionHits, b.N)
				}
				if raw && h.FunctionHits != 0 {
					b.Fatalf("raw run called Go: %d function-tracer hits", h.FunctionHits)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/tracedcall")
			})
		}
	}
}
