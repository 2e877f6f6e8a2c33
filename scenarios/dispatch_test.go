package scenarios

import (
	"strings"
	"testing"

	"trampemu/ftrace"
	"trampemu/regs"
)

// TestDispatchForms: every scenario on the fgraph design (the fgraph and
// fprobe selftests) passes under each fgraph dispatch form, on every arch,
// and the counters that do not depend on the form are the merged form's.
func TestDispatchForms(t *testing.T) {
	for _, a := range regs.Arches {
		for _, s := range All() {
			var merged Outcome
			for _, d := range ftrace.GraphDispatches {
				t.Run(a.Name+"/"+s.Name+"/"+d.String(), func(t *testing.T) {
					o, err := s.RunDispatch(a, ftrace.HeaderMerged, d, nil)
					if err != nil {
						t.Fatal(err)
					}
					if !o.OK || o.Dispatch != d.String() {
						t.Fatalf("dispatch %s: ok=%v: %s", o.Dispatch, o.OK, strings.Join(o.Findings, "; "))
					}
					if d == ftrace.DispatchMerged {
						merged = o
						return
					}
					for k, v := range merged.Counters {
						if got := o.Counters[k]; got != v && !dispatchDependent(s.Name, k, d) {
							t.Errorf("%s = %d, merged %d", k, got, v)
						}
					}
				})
			}
		}
	}
}

// dispatchDependent names the counters a dispatch form changes on
// purpose: slot 0's foreign returns (no BIT(0) in the per-ops draft's
// frames), the stale bits only the loop over every bit sees, and the
// per-ops draft's index-reuse, where its frame reuse misfires.
func dispatchDependent(scenario, counter string, d ftrace.GraphDispatch) bool {
	switch {
	case scenario == "fgraph-multi" && counter == "u0_foreign_returns":
		return d == ftrace.DispatchPerOpsDraft
	case scenario == "index-reuse" && d == ftrace.DispatchPerOpsDraft && strings.HasPrefix(counter, "lru_"):
		// The draft's frame reuse misfires: the scenario asserts it.
		return true
	case scenario == "index-reuse" && strings.HasSuffix(counter, "stale_bits_skipped"):
		// The merged form's direct mode (N alone after the swap) looks
		// only at N's bit; the drafts loop over every set bit.
		return true
	}
	return false
}

// TestDispatchDifferences pins what the drafts' forms change, on every
// arch: no BIT(0) in the per-ops draft's frames (slot 0 sees no foreign
// returns), and its frame reuse misfiring when a user that did not accept
// a recursive function's outer frame accepts the inner one.
func TestDispatchDifferences(t *testing.T) {
	multi, _ := Find("fgraph-multi")
	reuse, _ := Find("index-reuse")
	for _, a := range regs.Arches {
		for _, d := range ftrace.GraphDispatches {
			o, err := multi.RunDispatch(a, ftrace.HeaderMerged, d, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := int64(180)
			if d == ftrace.DispatchPerOpsDraft {
				want = 0
			}
			if o.Counters["u0_foreign_returns"] != want {
				t.Errorf("%s %s: u0_foreign_returns %d, want %d", a.Name, d, o.Counters["u0_foreign_returns"], want)
			}
			o, err = reuse.RunDispatch(a, ftrace.HeaderMerged, d, nil)
			if err != nil {
				t.Fatal(err)
			}
			frames, wrong := int64(2), int64(0)
			if d == ftrace.DispatchPerOpsDraft {
				frames, wrong = 1, 1
			}
			if o.Counters["lru_n_entry_frames"] != frames || o.Counters["lru_draft_reuse_went_wrong"] != wrong {
				t.Errorf("%s %s: lru frames at N's entry %d, went wrong %d; want %d, %d", a.Name, d,
					o.Counters["lru_n_entry_frames"], o.Counters["lru_draft_reuse_went_wrong"], frames, wrong)
			}
		}
	}
}
