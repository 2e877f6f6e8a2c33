package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
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
	for _, c := range []struct{ arch, variant string }{{"x86_64", "rth-merged"}, {"s390x", "rth-merged"}} {
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
