package report

import (
	"os"
	"testing"

	"trampemu/check"
	"trampemu/regs"
)

// BenchmarkEmulation/<arch> measures the arch's emulation speed as the
// report does (check.MeasureEmulation: interleaved rounds of the graph
// call with checks off and on, the function-tracer call, the block hook
// alone and raw Unicorn) and reports the ratios to raw Unicorn and of
// checks on to checks off, their spread and the ns of each configuration; after every arch ran, it prints the report's emulation
// table, so `make bench` shows the same table as `make report`.
func BenchmarkEmulation(b *testing.B) {
	var ems []check.Emulation
	for _, a := range regs.Arches {
		b.Run(a.Name, func(b *testing.B) {
			var em check.Emulation
			for i := 0; i < b.N; i++ {
				var err error
				if em, err = check.MeasureEmulation(a, 20000, 7); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(em.RawUnicornRatio, "x-raw")
			b.ReportMetric(em.RatioSpread.Max, "x-raw-max")
			b.ReportMetric(em.FunctionNs.Median, "ns/function-call")
			b.ReportMetric(em.RawNs.Median, "ns/raw-call")
			b.ReportMetric(em.GraphNs.Median, "ns/graph-call")
			b.ReportMetric(em.ChecksOnNs.Median, "ns/checked-call")
			b.ReportMetric(em.ChecksOnRatio, "x-checks-off")
			b.ReportMetric(em.ChecksOnSpread.Max, "x-checks-off-max")
			ems = append(ems, em)
		})
	}
	if len(ems) == len(regs.Arches) {
		if err := EmulationTable(os.Stdout, ems); err != nil {
			b.Fatal(err)
		}
	}
}
