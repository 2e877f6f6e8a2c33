package check

import (
	"fmt"
	"strings"
	"testing"

	"trampemu/harness"
	"trampemu/regs"
)

func unvisitedOf(r Result) []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Kind == Unvisited {
			out = append(out, f)
		}
	}
	return out
}

// TestInterruptModelSaysWhatItDidNotVisit: with room for one extra call
// the interrupt model cannot visit every boundary of a merged
// return_to_handler: an info note counts the boundaries left, names the
// first of them and says why; with the default room it visits all and
// says nothing. Every arch.
func TestInterruptModelSaysWhatItDidNotVisit(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			v, err := harness.FindVariant(a, "", mergedExit(a))
			if err != nil {
				t.Fatal(err)
			}
			tr, err := harness.FromVariant(v)
			if err != nil {
				t.Fatal(err)
			}
			full, err := Run(Config{Arch: a, Tramp: tr, Workloads: []string{"add"}, Calls: 2})
			if err != nil {
				t.Fatal(err)
			}
			if u := unvisitedOf(full[0]); len(u) != 0 || full[0].Metrics.Boundaries == 0 {
				t.Fatalf("default limits: %d boundaries visited, notes %v", full[0].Metrics.Boundaries, u)
			}
			short, err := Run(Config{Arch: a, Tramp: tr, Workloads: []string{"add"}, Calls: 2, InterruptCalls: 1})
			if err != nil {
				t.Fatal(err)
			}
			u := unvisitedOf(short[0])
			if len(u) != 1 || u[0].Severity != Info {
				t.Fatalf("one extra call: want one unvisited note, got %v", short[0].Findings)
			}
			visited := short[0].Metrics.Boundaries
			left := full[0].Metrics.Boundaries - visited
			if visited == 0 || left <= 0 {
				t.Fatalf("one extra call visited %d of %d boundaries", visited, full[0].Metrics.Boundaries)
			}
			for _, want := range []string{whyCallLimit + " (1)", "of return_to_handler not interrupted", "return_to_handler+0x"} {
				if !strings.Contains(u[0].Message, want) {
					t.Errorf("note %q lacks %q", u[0].Message, want)
				}
			}
			if !strings.HasPrefix(u[0].Message, fmt.Sprintf("%d executed instruction boundaries", left)) {
				t.Errorf("note %q does not count the %d boundaries left", u[0].Message, left)
			}
		})
	}
}

// TestUnvisitedNote: the note's wording, its cap of four named
// boundaries, and no note when nothing is missing.
func TestUnvisitedNote(t *testing.T) {
	z := &analyzer{t: harness.Tramp{}}
	z.unvisited(nil, whyStopped)
	if len(z.col.order) != 0 {
		t.Fatalf("a note for no missing boundary: %v", z.col.findings())
	}
	z.unvisited([]uint64{0x10, 0x14, 0x18, 0x1c, 0x20, 0x24}, whyStopped)
	fs := z.col.findings()
	if len(fs) != 1 {
		t.Fatalf("want one note, got %v", fs)
	}
	f := fs[0]
	if f.Kind != Unvisited || f.Severity != Info {
		t.Errorf("kind %s severity %s", f.Kind, f.Severity)
	}
	want := "6 executed instruction boundaries of return_to_handler not interrupted: " + whyStopped +
		" (first seen: 0x10, 0x14, 0x18, 0x1c and 2 more)"
	if f.Message != want {
		t.Errorf("message\n%s\nwant\n%s", f.Message, want)
	}
	z = &analyzer{t: harness.Tramp{}}
	z.unvisited([]uint64{0x10}, "")
	if m := z.col.findings()[0].Message; !strings.Contains(m, "1 executed instruction boundaries") || !strings.Contains(m, "no interrupted run reached them") {
		t.Errorf("message %q", m)
	}
}
