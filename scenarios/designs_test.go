package scenarios

import (
	"slices"
	"strings"
	"testing"

	"trampemu/ftrace"
	"trampemu/harness"
	"trampemu/regs"
)

// TestBothDesigns: every fprobe selftest passes on the rethook design
// (v5.18-v6.13) and on fgraph (v6.14+), on every arch, each with its
// design's nmissed behaviour.
func TestBothDesigns(t *testing.T) {
	want := map[string]map[ftrace.FprobeDesign]map[string]int64{
		"fprobe-nest": {
			ftrace.DesignRethook: {"nmissed": 1, "entry_handler_calls": 1, "exit_handler_calls": 1},
			ftrace.DesignFgraph:  {"nmissed": 0, "entry_handler_calls": 2, "exit_handler_calls": 2},
		},
		"overflow": {
			// 1 address x 2 possible CPUs x 2 nodes; the rest of the 131
			// levels count nmissed.
			ftrace.DesignRethook: {"rethook_pool_nodes": 4, "rethook_first_nmissed_level": 5, "rethook_nmissed": 127},
		},
		"recursion": {ftrace.DesignRethook: {"nmissed": 1, "recursion_refused": 1}},
	}
	if n := len(DesignNames()); n != 9 {
		t.Fatalf("%d scenarios run on both designs, want 9: %v", n, DesignNames())
	}
	for _, a := range regs.Arches {
		for _, name := range DesignNames() {
			for _, d := range harness.FprobeDesignsOf(a) {
				t.Run(a.Name+"/"+name+"/"+d.String(), func(t *testing.T) {
					s, err := Find(name)
					if err != nil {
						t.Fatal(err)
					}
					o, err := s.RunDesign(a, ftrace.HeaderMerged, d, nil)
					if err != nil {
						t.Fatal(err)
					}
					if !o.OK || o.Design != d.String() {
						t.Fatalf("design %s: ok=%v: %s", o.Design, o.OK, strings.Join(o.Findings, "; "))
					}
					for k, v := range want[name][d] {
						if o.Counters[k] != v {
							t.Errorf("%s = %d, want %d", k, o.Counters[k], v)
						}
					}
				})
			}
		}
	}
	s, _ := Find("storage-single")
	if _, err := s.RunDesign(regs.X86_64, ftrace.HeaderMerged, ftrace.DesignRethook, nil); err == nil {
		t.Error("an fgraph-only scenario ran on rethook")
	}
}

// TestRethookV518Recursion: before v6.4 fprobe_exit_handler took no
// recursion lock (it came with Ze Gao's 3cc4e2c5fbae series), so an exit
// handler that calls a traced function recurses until the scenario's cap
// of 8 calls, on every arch; the v6.4+ forms stop at one nested pass.
func TestRethookV518Recursion(t *testing.T) {
	s, err := Find("recursion")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range regs.Arches {
		if !slices.Contains(harness.FprobeDesignsOf(a), ftrace.DesignRethook) {
			continue // no arch_rethook_trampoline in the registry (riscv64 yet)
		}
		o, err := s.RunForm(a, ftrace.HeaderMerged, ftrace.DesignRethook, ftrace.RethookV518, nil)
		if err != nil {
			t.Fatal(err)
		}
		if o.OK || o.Counters["exit_handler_calls"] != 8 || o.Counters["recursion_refused"] != 0 {
			t.Errorf("%s: ok=%v exit calls %d refused %d; want the unbounded recursion (8 calls, none refused)", a.Name, o.OK, o.Counters["exit_handler_calls"], o.Counters["recursion_refused"])
		}
	}
}
