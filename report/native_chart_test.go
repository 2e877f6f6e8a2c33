package report

import (
	"bytes"
	"image/png"
	"math"
	"os"
	"strings"
	"testing"

	"trampemu/native"
)

// NativeChart writes an SVG and a PNG with a bar per pairing and mode;
// an interval left infinite by too few samples draws no error bar, and no
// rows is an error.
func TestNativeChart(t *testing.T) {
	var rows []native.Row
	for i, exit := range []string{"rth-merged", "rth-merged-jmp"} {
		for j, m := range native.Modes {
			v := float64(1 + 5*j + i)
			rows = append(rows, native.Row{Entry: "ftrace_caller", Exit: exit, Mode: m, Experiment: i == 1, MedianNs: v, CI95: native.Interval{v - 0.1, v + 0.2}, Samples: 50})
		}
	}
	rows[0].CI95 = native.Interval{math.Inf(-1), math.Inf(1)}
	dir := t.TempDir()
	paths, err := NativeChart(rows, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 2 {
		t.Fatalf("paths %v", paths)
	}
	svg, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "ns per call", "rth-merged-jmp (exp.)", "graph"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	b, err := os.ReadFile(paths[1])
	if err != nil {
		t.Fatal(err)
	}
	im, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if im.Bounds().Dx() < 300 || im.Bounds().Dy() < 300 {
		t.Errorf("PNG is %v", im.Bounds())
	}
	if _, err := NativeChart(nil, dir); err == nil {
		t.Error("no rows: no error")
	}
}
