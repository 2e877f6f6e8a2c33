package report

import (
	"bytes"
	"image/png"
	"os"
	"strings"
	"testing"

	"trampemu/check"
	"trampemu/scenarios"
)

func TestExactnessAndEmulationGolden(t *testing.T) {
	c := check.ExactCosts{Instructions: 13, Loads: 3, Stores: 6, LoadBytes: 24, StoreBytes: 48}
	bad := c
	bad.Stores = 5
	vg := check.ValgrindCosts{Instructions: 13, Loads: 3, Stores: 6}
	vgBad := check.ValgrindCosts{Instructions: 13, Loads: 2, Stores: 6} // a dead load VEX dropped
	rows := []check.Exactness{
		{Arch: "x86_64", Variant: "rth-merged", Role: "exit", Runs: 8, Emulated: c, Independent: c, Valgrind: &vg},
		{Arch: "x86_64", Variant: "rth-broken", Role: "exit", Runs: 8, Emulated: c, Independent: bad},
		{Arch: "s390x", Variant: "rth-merged", Role: "exit", Runs: 8, Emulated: c, Independent: c},
		{Arch: "x86_64", Variant: "rth-vg", Role: "exit", Runs: 8, Emulated: c, Independent: c, Valgrind: &vgBad},
	}
	ems := []check.Emulation{{Arch: "x86_64", Entry: "ftrace_caller", Exit: "rth-fixed", TracedCallsPerS: 561204,
		RawUnicornRatio: 1.68, GraphNs: check.Spread{Median: 1782, Min: 1756, Max: 1900},
		ChecksOnNs: check.Spread{Median: 3100, Min: 3000, Max: 3300}, ChecksOnRatio: 1.74, ChecksOnSpread: check.Spread{Median: 1.74, Min: 1.70, Max: 1.81}, FunctionNs: check.Spread{Median: 1595, Min: 1583, Max: 1700},
		RawNs: check.Spread{Median: 951, Min: 894, Max: 1000}, BlocksNs: check.Spread{Median: 1200, Min: 1100, Max: 1300}, InsnsPerCall: 48, Calls: 2000, Repeats: 3}}
	var b bytes.Buffer
	if err := ExactnessTable(&b, rows); err != nil {
		t.Fatal(err)
	}
	b.WriteString("\n")
	if err := EmulationTable(&b, ems); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"| 13 / 13 / 13 | 3 / 3 | 6 / 6 |", "| 13 / 13 / - |", "6 / 5", "NO: stores", "NO: loads: block counters 3, valgrind 2", "1.68x", "| 3100 [3000-3300] | 1.74x (1.70-1.81) |"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	golden(t, "exact.md", b.Bytes())
}

func TestWriteChartsSVGAndPNG(t *testing.T) {
	dir := t.TempDir()
	rows := []scenarios.MeasureRow{
		{Arch: "x86_64", Header: "-", Probes: 0, DataBytes: 0, WordsPerCall: 4, MaxDepth: 122},
		{Arch: "x86_64", Header: "merged", Probes: 1, DataBytes: 0, WordsPerCall: 6, MaxDepth: 81},
		{Arch: "x86_64", Header: "merged", Probes: 1, DataBytes: 8, WordsPerCall: 7, MaxDepth: 70},
		{Arch: "s390x", Header: "merged", Probes: 1, DataBytes: 0, WordsPerCall: 6, MaxDepth: 81},
	}
	charts, err := WriteCharts(dir, sample(), rows)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, c := range charts {
		names[c.Name] = true
		if len(c.Files) != len(ChartFormats) {
			t.Errorf("%s: files %v", c.Name, c.Files)
		}
		for _, f := range c.Files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case strings.HasSuffix(f, ".png"):
				if _, err := png.Decode(bytes.NewReader(data)); err != nil {
					t.Errorf("%s: %v", f, err)
				}
			case strings.HasSuffix(f, ".svg"):
				if !bytes.Contains(data, []byte("<svg")) || !bytes.Contains(data, []byte("rth-merged")) && strings.HasPrefix(c.Name, "cost-") {
					t.Errorf("%s: not an SVG with the variant names", f)
				}
			}
		}
	}
	for _, want := range []string{"cost-x86_64", "cost-s390x", "shadow-words-x86_64", "traced-depth-x86_64", "shadow-words-s390x", "traced-depth-s390x"} {
		if !names[want] {
			t.Errorf("no chart %s (got %v)", want, names)
		}
	}
}
