package check

import "trampemu/harness"

// markKnown makes each error finding that is a known kernel bug of the
// kernel model a file was judged by a Known finding with its citation:
// the bug of the trampoline's own code, or of its partner's when the
// partner is a file too (an entry's row shows its return_to_handler's
// bug on the workloads that return through it). Only an exact match
// (kernel.KnownBug.Matches: kind, symbol, slot, register) with a bug of
// the file's model that the file has (kernel.Choice.KnownBugs) counts;
// every other finding stays an error. Registry variants (Model nil)
// keep their findings as they are.
func markKnown(res *Result, sides ...harness.Tramp) {
	for i := range res.Findings {
		f := &res.Findings[i]
		if f.Severity != Error {
			continue
		}
		for _, t := range sides {
			if t.Variant != nil || t.Model == nil {
				continue
			}
			if b := t.Model.Known(t.Role, t.Symbol, string(f.Kind), f.Slot, f.Register, f.Summary, res.Workload); b != nil {
				f.Severity, f.Known, f.Citation = Known, b, b.Citation()
				break
			}
		}
	}
}
