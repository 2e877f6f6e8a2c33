package report

import (
	"fmt"
	"io"

	"trampemu/check"
)

// ExactnessTable renders the exactness proof in Markdown: per variant the
// block-counter cost, the per-instruction count and valgrind's count
// (x86-64, when the caller filled it in: instructions, data reads and
// writes); "equal" says all of them agree.
func ExactnessTable(w io.Writer, rows []check.Exactness) error {
	fmt.Fprintln(w, "| arch | variant | insns (block counters / per-instruction / valgrind) | loads (/ valgrind) | stores (/ valgrind) | bytes loaded | bytes stored | equal |")
	fmt.Fprintln(w, "|---|---|--:|--:|--:|--:|--:|---|")
	for _, e := range rows {
		vg, vl, vs := "-", "", ""
		if v := e.Valgrind; v != nil {
			vg, vl, vs = num(v.Instructions), " / "+num(v.Loads), " / "+num(v.Stores)
		}
		pair := func(a, b float64) string {
			if a == b {
				return num(a)
			}
			return num(a) + " / " + num(b)
		}
		eq := "yes"
		if !e.Equal() {
			eq = "NO: " + e.Diff()
		}
		x, y := e.Emulated, e.Independent
		fmt.Fprintf(w, "| %s | %s | %s / %s / %s | %s%s | %s%s | %s | %s | %s |\n", e.Arch, e.Variant,
			num(x.Instructions), num(y.Instructions), vg, pair(x.Loads, y.Loads), vl, pair(x.Stores, y.Stores), vs,
			pair(x.LoadBytes, y.LoadBytes), pair(x.StoreBytes, y.StoreBytes), eq)
	}
	return nil
}

// EmulationTable renders the emulator's speed against raw Unicorn.
func EmulationTable(w io.Writer, ems []check.Emulation) error {
	fmt.Fprintln(w, "| arch | pairing | traced calls/s (graph, median round) | ns/call graph | ns/call graph, checks on | checks on / off (median of the rounds' ratios (range)) | ns/call function tracer | ns/call block hook only | ns/call raw Unicorn | overhead vs raw (median of the rounds' ratios [quartiles] (range)) | insns/call (PC trace compared on both machines, calls) |")
	fmt.Fprintln(w, "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
	sp := func(s check.Spread) string { return fmt.Sprintf("%.0f [%.0f-%.0f]", s.Median, s.Min, s.Max) }
	for _, e := range ems {
		fmt.Fprintf(w, "| %s | %s + %s | %.0f | %s | %s | %.2fx (%.2f-%.2f) | %s | %s | %s | %.2fx [%.2f-%.2f] (%.2f-%.2f) | %s (%d) |\n", e.Arch, e.Entry, e.Exit, e.TracedCallsPerS,
			sp(e.GraphNs), sp(e.ChecksOnNs), e.ChecksOnRatio, e.ChecksOnSpread.Min, e.ChecksOnSpread.Max, sp(e.FunctionNs), sp(e.BlocksNs), sp(e.RawNs), e.RawUnicornRatio, e.RatioIQR[0], e.RatioIQR[1], e.RatioSpread.Min, e.RatioSpread.Max, num(e.InsnsPerCall), e.StreamCalls)
	}
	return nil
}
