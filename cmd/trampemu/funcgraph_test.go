package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFunctionGraphGolden pins `trace --format function_graph` of fib (177
// nested traced calls) per arch (-update rewrites it).
func TestFunctionGraphGolden(t *testing.T) {
	for _, c := range []struct{ arch, variant string }{{"x86_64", "rth-merged"}, {"s390x", "rth-merged"}, {"arm64", "rth-merged"}} {
		t.Run(c.arch, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run([]string{"trace", "--arch", c.arch, "--variant", c.variant, "--workload", "fib", "--format", "function_graph"}, &out, &errb); code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			golden := filepath.Join("testdata", "function_graph_"+c.arch+".golden")
			if *update {
				if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(out.Bytes(), want) {
				t.Errorf("output differs from %s (rerun with -update if the change is intended):\n%s", golden, out.String())
			}
			// fib(10): 177 traced calls, 89 of them leaves (fib(0), fib(1)).
			s := out.String()
			if n := strings.Count(s, "fib(); /* = 0x"); n != 89 {
				t.Errorf("%d leaf lines, want 89", n)
			}
			if n := strings.Count(s, "fib() {"); n != 88 || strings.Count(s, "} /* fib = 0x") != 88 {
				t.Errorf("%d opening lines, %d closing, want 88 each", n, strings.Count(s, "} /* fib = 0x"))
			}
			if !strings.Contains(s, "} /* fib = 0x37 */") { // fib(10) = 55
				t.Errorf("the outermost return value fib(10) = 0x37 is missing")
			}
		})
	}
}

// TestFunctionGraphChainReadable: the chain workload (130 nested calls)
// prints within 120 columns per line, braces balanced, on every arch.
func TestFunctionGraphChainReadable(t *testing.T) {
	for _, arch := range []string{"x86_64", "s390x", "arm64"} {
		t.Run(arch, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run([]string{"trace", "--arch", arch, "--variant", "ftrace_caller", "--workload", "chain", "--format", "function_graph"}, &out, &errb); code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			opens, closes, calls := 0, 0, 0
			for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
				if len(line) > 120 {
					t.Fatalf("line of %d columns: %q", len(line), line)
				}
				if strings.HasPrefix(line, "#") {
					continue
				}
				if !strings.HasPrefix(line, " 0) ") {
					t.Fatalf("line without the CPU column: %q", line)
				}
				switch {
				case strings.Contains(line, "chain() {"):
					opens++
					calls++
				case strings.Contains(line, "chain();"):
					calls++
				case strings.Contains(line, "} /* chain = "):
					closes++
				}
			}
			// Not every level fits on the shadow stack (122 frames of 4
			// words, 98 of arm64's 5 with the FP-test word): what was traced
			// opens and closes in pairs, and goes past the indent cap.
			if calls < 90 || opens != closes {
				t.Errorf("%d traced calls, %d opening and %d closing lines", calls, opens, closes)
			}
			if !strings.Contains(out.String(), "/* depth 90 */") {
				t.Errorf("no line names its depth past the indent cap")
			}
		})
	}
}

func TestFunctionGraphFormatFlag(t *testing.T) {
	runCases(t, []cliCase{
		{[]string{"scenario", "run", "fgraph-multi", "--arch", "s390x", "--format", "function_graph"}, 0, "# graph user:", ""},
		{[]string{"scenario", "run", "fgraph-multi", "--arch", "x86_64", "--format", "function_graph"}, 0, "# tracer: function_graph", ""},
		{[]string{"scenario", "run", "fgraph-multi", "--arch", "x86_64", "--format", "svg"}, 2, "", "valid are text, json, function_graph"},
		{[]string{"trace", "--arch", "s390x", "--variant", "ftrace_caller", "--format", "dot"}, 2, "", "valid are text, json, function_graph"},
	})
}
