package scenarios

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"trampemu/ftrace"
	"trampemu/harness"
	"trampemu/trampolines"

	"trampemu/regs"
)

// TestCompareFprobe runs a reduced comparison on every arch and asserts
// exact cells: one probe with an exit handler on each design, eight on
// one function on rethook (the list function visits and tests every ops),
// 64 exit probes on one function on fgraph (the 32-word reservation fails:
// every call counts nmissed for every probe), and the merged dispatch's
// direct mode against its loop.
func TestCompareFprobe(t *testing.T) {
	c, err := CompareFprobe(CompareConfig{Probes: []int{1, 8, 64}, MaxUsers: 2, Calls: 2})
	if err != nil {
		t.Fatal(err)
	}
	designs := 0
	for _, a := range regs.Arches {
		designs += len(harness.FprobeDesignsOf(a))
	}
	if want := designs * 2 * 3 * 3; len(c.FprobeDesigns) != want {
		t.Fatalf("%d design rows, want %d", len(c.FprobeDesigns), want)
	}
	exitInsns := map[string][2]float64{"x86_64": {41, 16}, "s390x": {16, 12}, "arm64": {50, 15}, "riscv64": {66, 16}}
	// fgraph words per call: frame, meta, DATA word and header written;
	// the same read back (arm64 frames carry the HAVE_FUNCTION_GRAPH_FP_TEST
	// word both ways).
	// riscv64 likewise (HAVE_FUNCTION_GRAPH_FP_TEST); its rethook design
	// runs arch_rethook_trampoline with the v6.8-v6.10 ftrace_regs_caller.
	fgraphWords := map[string]float64{"x86_64": 14, "s390x": 14, "arm64": 16, "riscv64": 16}
	for _, a := range regs.Arches {
		fg, ok2 := c.Cell(a.Name, "fgraph", "one", 1, true, 0)
		if !ok2 {
			t.Fatalf("%s: fgraph cells missing", a.Name)
		}
		if fg.ExitCost.Trampoline != "return_to_handler" || fg.ExitCost.Instructions != exitInsns[a.Name][1] {
			t.Errorf("%s fgraph exit %+v, want return_to_handler with %v instructions", a.Name, fg.ExitCost, exitInsns[a.Name][1])
		}
		if want := (CSide{OpsVisited: 1, HashLookups: 2, ShadowWords: fgraphWords[a.Name]}); fg.CSide != want {
			t.Errorf("%s fgraph c_side %+v, want %+v", a.Name, fg.CSide, want)
		}
		rh, ok1 := c.Cell(a.Name, "rethook", "one", 1, true, 0)
		if !slices.Contains(harness.FprobeDesignsOf(a), ftrace.DesignRethook) {
			if ok1 {
				t.Errorf("%s: a rethook cell without an arch_rethook_trampoline", a.Name)
			}
			continue
		}
		if !ok1 {
			t.Fatalf("%s: cells missing", a.Name)
		}
		if rh.ExitCost.Trampoline != "arch_rethook_trampoline" || rh.ExitCost.Instructions != exitInsns[a.Name][0] {
			t.Errorf("%s rethook exit %+v, want arch_rethook_trampoline with %v instructions", a.Name, rh.ExitCost, exitInsns[a.Name][0])
		}
		if fg.ExitCost.Trampoline != "return_to_handler" || fg.ExitCost.Instructions != exitInsns[a.Name][1] {
			t.Errorf("%s fgraph exit %+v, want return_to_handler with %v instructions", a.Name, fg.ExitCost, exitInsns[a.Name][1])
		}
		if want := (CSide{OpsVisited: 1, PoolOps: 2, Atomics: 2}); rh.CSide != want {
			t.Errorf("%s rethook c_side %+v, want %+v", a.Name, rh.CSide, want)
		}
		if want := (CSide{OpsVisited: 1, HashLookups: 2, ShadowWords: fgraphWords[a.Name]}); fg.CSide != want {
			t.Errorf("%s fgraph c_side %+v, want %+v", a.Name, fg.CSide, want)
		}
		// 16 CPUs: 32 nodes of 64 bytes, 16 rings of 32 entries, 16 slot
		// pointers; 1000 tasks of 4096 bytes.
		if rh.MemoryBytes != 32*64+16*(16+32*8)+16*8 || fg.MemoryBytes != 1000*4096 {
			t.Errorf("%s memory %d / %d", a.Name, rh.MemoryBytes, fg.MemoryBytes)
		}
		if r, _ := c.Cell(a.Name, "rethook", "one", 8, true, 8); r.CSide.OpsVisited != 8 || r.CSide.HashLookups != 8 || r.CSide.PoolOps != 16 {
			t.Errorf("%s rethook x8 on one function: %+v", a.Name, r.CSide)
		}
		if r, _ := c.Cell(a.Name, "rethook", "different", 8, true, 8); r.CSide.OpsVisited != 1 || r.CSide.HashLookups != 0 {
			t.Errorf("%s rethook x8 on different functions: %+v", a.Name, r.CSide)
		}
		if r, _ := c.Cell(a.Name, "fgraph", "one", 64, true, 0); r.NMissed != 64 || r.ExitCost.Instructions != 0 {
			t.Errorf("%s fgraph x64 exit probes on one function: nmissed %v per call, exit %v", a.Name, r.NMissed, r.ExitCost)
		}
		if r, _ := c.Cell(a.Name, "rethook", "one", 64, true, 0); r.NMissed != 0 || r.CSide.PoolOps != 128 {
			t.Errorf("%s rethook x64 exit probes on one function: nmissed %v, %+v", a.Name, r.NMissed, r.CSide)
		}
	}
	// Dispatch forms, two graph users on add: ftrace_ops visited, hash
	// lookups, shadow-stack words (the frame and BITMAP word written, four
	// words read back at the return; the per-ops draft's second user reads
	// three words to find the frame reusable and read-modify-writes the
	// BITMAP word; arm64 frames have the FP-test word), and the loop's exit
	// trampoline on the arch's ftrace_graph_caller pairing.
	type modeWant struct{ visited, lookups, words float64 }
	wantModes := map[string]map[string]modeWant{
		"merged":        {"x86_64": {1, 2, 9}, "s390x": {1, 2, 9}, "arm64": {1, 2, 11}, "riscv64": {1, 2, 11}},
		"per-ops-draft": {"x86_64": {2, 2, 14}, "s390x": {2, 2, 14}, "arm64": {2, 2, 16}, "riscv64": {2, 2, 16}},
		"loop":          {"x86_64": {0, 2, 9}, "s390x": {0, 2, 9}, "arm64": {0, 2, 11}, "riscv64": {0, 2, 11}},
	}
	loopExit := map[string]float64{"x86_64": 10, "s390x": 13, "arm64": 14, "riscv64": 17}
	modes := map[string]ModeRow{}
	for _, m := range c.FgraphModes {
		modes[fmt.Sprintf("%s/%s/%d", m.Arch, m.Mode, m.Users)] = m
	}
	for _, a := range regs.Arches {
		// The loop form runs on the arch's ftrace_graph_caller pairing
		// (riscv64: the v6.3-v6.7 ftrace_caller with rth-legacy).
		hasLoop := false
		for _, v := range harness.VariantsOf(a, trampolines.Entry) {
			hasLoop = hasLoop || v.Graph == trampolines.GraphViaCaller
		}
		for mode, per := range wantModes {
			if mode == "loop" && !hasLoop {
				continue
			}
			m, ok := modes[fmt.Sprintf("%s/%s/2", a.Name, mode)]
			w := per[a.Name]
			if !ok || m.OpsVisited != w.visited || m.HashLookups != w.lookups || m.ShadowWords != w.words {
				t.Errorf("%s %s, 2 users: %+v, want visited %v lookups %v words %v", a.Name, mode, m, w.visited, w.lookups, w.words)
			}
		}
		lone, po, loop := modes[a.Name+"/merged/1"], modes[a.Name+"/per-ops-draft/1"], modes[a.Name+"/loop/2"]
		if lone.OpsVisited != 1 || lone.HashLookups != 0 || po.OpsVisited != 1 || po.HashLookups != 0 {
			t.Errorf("%s: a lone user is called without a lookup in the merged form (direct) and the per-ops draft (its own trampoline): %+v %+v", a.Name, lone, po)
		}
		if po.Entry != lone.Entry || hasLoop && (loop.Exit.Instructions != loopExit[a.Name] || !strings.Contains(loop.Pairing, "+")) {
			t.Errorf("%s: per-ops entry %+v (merged %+v), loop exit %+v on %s", a.Name, po.Entry, lone.Entry, loop.Exit, loop.Pairing)
		}
	}
	if len(c.DispatchScenarios) != len(regs.Arches)*3 {
		t.Errorf("%d dispatch scenario runs, want 3 per arch", len(c.DispatchScenarios))
	}
	for _, r := range c.DispatchScenarios {
		if r.Run != len(All()) || r.Passed != r.Run {
			t.Errorf("%s %s: %d of %d scenarios passed: %v", r.Arch, r.Dispatch, r.Passed, r.Run, r.Failed)
		}
	}
	var buf bytes.Buffer
	if err := c.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"fprobe_designs", "fgraph_modes", "dispatch_scenarios"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON has no %s", k)
		}
	}
}
