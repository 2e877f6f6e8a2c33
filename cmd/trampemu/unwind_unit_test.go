package main

import (
	"bytes"
	"encoding/json"
	"testing"
)

// The unwind boundaries of a row are counted over the code its cost
// counts: workload add runs straight-line code, so every row's boundaries
// equal its instructions per traced call; ftrace_graph_caller's row
// (x86-64's old graph path) counts its own instructions, not the whole
// ftrace_caller path it is reached through. Both arches.
func TestUnwindBoundariesOverTheCostUnit(t *testing.T) {
	for _, c := range []struct {
		arch, file string
		graphRow   bool
	}{
		{"x86_64", "x86_64_v5.15.S", true},
		{"x86_64", "x86_64_v5.10.S", true},
		{"s390x", "s390x_v6.13.S", false},
	} {
		var out, errb bytes.Buffer
		if code := run([]string{"check", "--arch", c.arch, "--file", kdata + c.file, "--workload", "add", "--calls", "2", "--json"}, &out, &errb); code != 0 {
			t.Fatalf("%s: exit %d: %s", c.file, code, errb.String())
		}
		var got checkOutput
		if err := json.Unmarshal(out.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		sawGraph := false
		for _, r := range got.Results {
			m := r.Metrics
			if m.Boundaries == 0 || float64(m.Boundaries) != m.Instructions {
				t.Errorf("%s: %d boundaries, %g instructions per traced call; want them equal and not 0", r.Variant, m.Boundaries, m.Instructions)
			}
			sawGraph = sawGraph || r.Variant == c.file+":ftrace_graph_caller"
		}
		if sawGraph != c.graphRow {
			t.Errorf("%s: ftrace_graph_caller row %v, want %v", c.file, sawGraph, c.graphRow)
		}
	}
}
