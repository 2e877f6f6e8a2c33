package check

import (
	"trampemu/harness"
	"trampemu/kernel"
)

// markKnown makes each error finding that is a known kernel bug of the
// kernel model a file was judged by a Known finding with its citation:
// the bug of the trampoline's own code, or of its partner's when the
// partner is a file too (an entry's row shows its return_to_handler's
// bug on the workloads that return through it). Only an exact match
// (kernel.KnownBug.Matches: kind, symbol, slot, register) with a bug of
// the file's model that the file has (kernel.Choice.KnownBugs) counts;
// every other finding stays an error. A file's registry partner (a lone
// mcount-dyn.S paired with its era's return_to_handler) counts as the
// file's other role for the bugs its model lists the variant as written
// with (kernel.PartnerKnown). Registry variants on their own (no side
// with a Model) keep their findings as they are.
func markKnown(res *Result, sides ...harness.Tramp) {
	var file *harness.Tramp
	for i := range sides {
		if sides[i].Variant == nil && sides[i].Model != nil {
			file = &sides[i]
			break
		}
	}
	for i := range res.Findings {
		f := &res.Findings[i]
		if f.Severity != Error || file == nil {
			continue
		}
		for _, t := range sides {
			var b *kernel.KnownBug
			switch {
			case t.Variant == nil && t.Model != nil:
				b = t.Model.Known(t.Role, t.Symbol, string(f.Kind), f.Slot, f.Register, f.Summary, res.Workload)
			case t.Variant != nil:
				b = kernel.PartnerKnown(file.Model.Model, t.Variant.Name, t.Role, t.Symbol, string(f.Kind), f.Slot, f.Register, f.Summary, res.Workload)
			}
			if b != nil {
				f.Severity, f.Known, f.Citation = Known, b, b.Citation()
				break
			}
		}
	}
}
