package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"trampemu/check"
	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
)

// loopFiles are the broken entry trampolines that resume at their call
// site, so that every return re-enters it (issue 20), one per arch.
var loopFiles = map[string]string{"x86_64": "x86_entry_loops.S", "s390x": "s390x_entry_loops.S", "arm64": "arm64_entry_loops.S", "riscv64": "riscv64_entry_loops.S"}

// TestLoopingEntryStopsAtItsFirstReturn: a looping entry trampoline is
// stopped at its first wrong return on every workload (one run of it, one
// control error, the machine state, "the kernel would loop here forever"
// where control went straight back into the call site), and the next
// workload still runs; every arch.
func TestLoopingEntryStopsAtItsFirstReturn(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			t.Parallel()
			tr, err := harness.FromFile(a, filepath.Join("testdata/broken", loopFiles[a.Name]), trampolines.Entry)
			if err != nil {
				t.Fatal(err)
			}
			rs := runCheck(t, check.Config{Arch: a, Tramp: tr, Calls: 8, Seed: 5})
			if len(rs) != len(harness.WorkloadNames(a)) {
				t.Fatalf("%d results for %d workloads", len(rs), len(harness.WorkloadNames(a)))
			}
			for _, r := range rs {
				if r.Errors() != 1 || !r.Has(check.Control, "") {
					t.Errorf("%s: want one control error%s", r.Workload, findings(r))
					continue
				}
				if r.Metrics.Calls != 1 {
					t.Errorf("%s: %d runs of the trampoline, want the first only", r.Workload, r.Metrics.Calls)
				}
				var msg string
				for _, f := range r.Findings {
					if f.Kind == check.Control {
						msg = f.Message
					}
				}
				want := []string{"did not return where it should", "the call stopped there", a.Name + " pc 0x", "registers: "}
				if r.Workload == "add" {
					want = append(want, "the kernel would loop here forever")
				}
				for _, w := range want {
					if !strings.Contains(msg, w) {
						t.Errorf("%s: %q lacks %q", r.Workload, msg, w)
					}
				}
			}
		})
	}
}

// TestRunawayStopsAtThePerCallLimit: a return_to_handler that spins is
// stopped at CleanFactor times the instructions of a clean call of the
// workload, a limit the finding states, on every workload; every arch.
func TestRunawayStopsAtThePerCallLimit(t *testing.T) {
	spin := map[string]string{
		"x86_64":  "SYM_FUNC_START(return_to_handler)\n1:\tjmp 1b\nSYM_FUNC_END(return_to_handler)\n",
		"s390x":   "SYM_FUNC_START(return_to_handler)\n0:\tj 0b\nSYM_FUNC_END(return_to_handler)\n",
		"arm64":   "SYM_CODE_START(return_to_handler)\n1:\tb 1b\nSYM_CODE_END(return_to_handler)\n",
		"riscv64": "SYM_CODE_START(return_to_handler)\n1:\tj 1b\nSYM_CODE_END(return_to_handler)\n",
	}
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			t.Parallel()
			p := filepath.Join(t.TempDir(), "spin.S")
			if err := os.WriteFile(p, []byte(spin[a.Name]), 0o644); err != nil {
				t.Fatal(err)
			}
			tr, err := harness.FromFile(a, p, trampolines.Exit)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range runCheck(t, check.Config{Arch: a, Tramp: tr, Calls: 4, Seed: 5, Workloads: []string{"add", "fib"}}) {
				if r.Errors() != 1 || !r.Has(check.Control, "") {
					t.Errorf("%s: want one control error%s", r.Workload, findings(r))
					continue
				}
				msg := r.Findings[0].Message
				for _, w := range []string{"per call reached (64 x the ", "instructions of a clean call of " + r.Workload + " through ", a.Name + " pc 0x"} {
					if !strings.Contains(msg, w) {
						t.Errorf("%s: %q lacks %q", r.Workload, msg, w)
					}
				}
				// The spin ran about the limit, not 50 million instructions.
				if r.Metrics.Instructions > 64*20000 {
					t.Errorf("%s: %.0f instructions in the spinning trampoline", r.Workload, r.Metrics.Instructions)
				}
			}
		})
	}
}
