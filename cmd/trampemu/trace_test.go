package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"trampemu/regs"
)

var update = flag.Bool("update", false, "rewrite the golden trace files")

// TestTraceCommand: a trace shows the stale read it explains (exit 1, with
// the findings), a clean pairing passes, and bad usage names the fix; both
// arches.
func TestTraceCommand(t *testing.T) {
	broken := "../../tests/testdata/broken/"
	runCases(t, []cliCase{
		{[]string{"trace", "--arch", "x86_64", "--variant", "rth-merged", "--scenario", "ret-arg0"}, 1, "STALE: the trampoline never wrote it", ""},
		{[]string{"trace", "--arch", "s390x", "--variant", "rth-merged", "--scenario", "ret-arg1"}, 1, "graph reads gprs[3] through ftrace_regs_get_argument", ""},
		{[]string{"trace", "--arch", "x86_64", "--variant", "ftrace_regs_caller"}, 0, "findings: none", ""},
		{[]string{"trace", "--arch", "s390x", "--variant", "ftrace_caller", "--all"}, 0, "traced code:", ""},
		{[]string{"trace", "--arch", "x86_64", "--variant", "rth-v6.19"}, 1, "wrong-value RSP", ""},
		{[]string{"trace", "--arch", "s390x", "--file", broken + "s390x_rth_no_backchain.S", "--role", "exit"}, 1, "backchain", ""},
		{[]string{"trace", "--arch", "x86_64"}, 2, "", "--variant NAME"},
		{[]string{"trace", "--arch", "s390x", "--variant", "nope"}, 2, "", "valid are"},
		{[]string{"trace", "--arch", "x86_64", "--variant", "rth-merged", "--pair", "rth-fixed"}, 2, "", "valid are"},
		{[]string{"trace", "--arch", "s390x", "--variant", "ftrace_caller", "--workload", "nope"}, 2, "", "valid are add"},
	})
}

// TestTraceGolden pins the whole step-by-step output of one pairing per
// arch (go test ./cmd/trampemu -run TestTraceGolden -update rewrites it).
func TestTraceGolden(t *testing.T) {
	for _, c := range []struct{ arch, variant string }{{"x86_64", "rth-merged"}, {"s390x", "rth-merged"}, {"arm64", "rth-merged"}} {
		t.Run(c.arch, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run([]string{"trace", "--arch", c.arch, "--variant", c.variant}, &out, &errb); code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			golden := filepath.Join("testdata", "trace_"+c.arch+".golden")
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(out.Bytes(), want) {
				t.Errorf("trace differs from %s (rerun with -update if the change is intended):\n%s", golden, out.String())
			}
		})
	}
}

// TestTraceJSON: every step with its unit; the host call of the exit
// trampoline carries what the Go kernel read; the findings come last. Both
// arches.
func TestTraceJSON(t *testing.T) {
	for _, c := range []struct{ arch, scenario, stale string }{{"x86_64", "ret-arg0", "RDI"}, {"s390x", "ret-arg1", "gprs[3]"}} {
		t.Run(c.arch, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run([]string{"trace", "--arch", c.arch, "--variant", "rth-merged", "--scenario", c.scenario, "--json"}, &out, &errb)
			if code != 1 {
				t.Fatalf("exit %d (want 1: a stale read): %s", code, errb.String())
			}
			var tr struct {
				OK    bool
				Steps []struct {
					Unit, Host, Insn string
					Notes            []string
					Stores           []struct{ Slot string }
				}
				Findings []struct{ Kind, Slot string }
			}
			if err := json.Unmarshal(out.Bytes(), &tr); err != nil {
				t.Fatalf("%v: %.300s", err, out.String())
			}
			var sawStale, sawSlotStore bool
			units := map[string]bool{}
			for _, s := range tr.Steps {
				units[s.Unit] = true
				for _, n := range s.Notes {
					sawStale = sawStale || (s.Host == "ftrace_return_to_handler" && bytes.Contains([]byte(n), []byte("STALE")))
				}
				for _, st := range s.Stores {
					sawSlotStore = sawSlotStore || st.Slot != ""
				}
			}
			for _, u := range []string{"entry", "exit", "workloads", "runtime"} {
				if !units[u] {
					t.Errorf("no step in unit %s", u)
				}
			}
			if !sawStale || !sawSlotStore {
				t.Errorf("stale read noted at the return handler: %v; a store named by its slot: %v", sawStale, sawSlotStore)
			}
			found := false
			for _, f := range tr.Findings {
				found = found || (f.Kind == "stale-read" && f.Slot == c.stale)
			}
			if tr.OK || !found {
				t.Errorf("ok %v, findings %+v: want a stale-read of %s", tr.OK, tr.Findings, c.stale)
			}
		})
	}
}

// A runaway trampoline stops at --limit with a control finding, and the
// trace folds the loop instead of printing it 50,000 times. Both arches.
func TestTraceRunaway(t *testing.T) {
	loops := map[string]string{
		"x86_64":  "SYM_CODE_START(return_to_handler)\n1:\tjmp\t1b\nSYM_CODE_END(return_to_handler)\n",
		"s390x":   "SYM_CODE_START(return_to_handler)\n1:\tj\t1b\nSYM_CODE_END(return_to_handler)\n",
		"arm64":   "SYM_CODE_START(return_to_handler)\n1:\tb\t1b\nSYM_CODE_END(return_to_handler)\n",
		"riscv64": "SYM_CODE_START(return_to_handler)\n1:\tj\t1b\nSYM_CODE_END(return_to_handler)\n",
	}
	for _, arch := range []string{"x86_64", "s390x", "arm64", "riscv64"} {
		t.Run(arch, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "loop.S")
			if err := os.WriteFile(p, []byte(loops[arch]), 0o644); err != nil {
				t.Fatal(err)
			}
			runCases(t, []cliCase{
				{[]string{"trace", "--arch", arch, "--file", p, "--role", "exit", "--limit", "20000"}, 1, "the line above", ""},
				{[]string{"trace", "--arch", arch, "--file", p, "--role", "exit", "--limit", "20000"}, 1, "control: instruction limit", ""},
			})
		})
	}
}

// TestTraceNamesOpsLiteral: the CALL_OPS literal ftrace_caller loads is
// named as the traced function's ops literal, not as an offset from
// whatever symbol precedes it; arches without one never print the name.
func TestTraceNamesOpsLiteral(t *testing.T) {
	// riscv64's ftrace_caller (v6.11-v6.15) has no CALL_OPS load.
	want := map[string]string{"x86_64": "", "s390x": "", "arm64": "load [add-0x8 (ops literal)] = 0x", "riscv64": ""}
	for _, a := range regs.Arches {
		w, ok := want[a.Name]
		if !ok {
			t.Fatalf("no expectation for %s", a.Name)
		}
		var out, errb bytes.Buffer
		if code := run([]string{"trace", "--arch", a.Name, "--variant", "ftrace_caller", "--workload", "add"}, &out, &errb); code != 0 {
			t.Fatalf("%s: exit %d: %s", a.Name, code, errb.String())
		}
		s := out.String()
		if w != "" && !strings.Contains(s, w) {
			t.Errorf("%s: trace lacks %q:\n%s", a.Name, w, s)
		}
		if w == "" && strings.Contains(s, "ops literal") {
			t.Errorf("%s: trace names an ops literal the arch does not have:\n%s", a.Name, s)
		}
		if strings.Contains(s, "trampemu_direct+") {
			t.Errorf("%s: trace names a data address by the runtime's trampemu_direct:\n%s", a.Name, s)
		}
	}
}
