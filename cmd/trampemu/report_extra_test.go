package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"trampemu/check"
	"trampemu/native"
	"trampemu/regs"
	"trampemu/report"
)

// The exactness rows of x86-64 (the arch the report gets from regs, not
// native.Arch) carry valgrind's counts, equal to the emulated
// instruction, load and store counts, into report.json; s390x rows carry
// none.
func TestExactnessRowsValgrind(t *testing.T) {
	if !native.Covers(regs.X86_64) || native.Covers(regs.S390X) {
		t.Fatalf("native.Covers: x86_64 %v, s390x %v", native.Covers(regs.X86_64), native.Covers(regs.S390X))
	}
	if err := native.Supported(); err != nil {
		t.Fatalf("the valgrind column needs x86-64 run natively: %v", err)
	}
	// rth-retval: the return_to_handler every arch has (riscv64 has no
	// rth-merged).
	rows, err := exactnessRowsOf(regs.Arches, []string{"ftrace_caller", "rth-retval"}, &progress{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2*len(regs.Arches) {
		t.Fatalf("%d rows, want ftrace_caller and rth-retval of every arch", len(rows))
	}
	for _, e := range rows {
		switch {
		case e.Arch == regs.X86_64.Name && e.Valgrind == nil:
			t.Errorf("%s %s: no valgrind count", e.Arch, e.Variant)
		case e.Arch == regs.X86_64.Name && (e.Valgrind.Instructions != e.Emulated.Instructions || e.Valgrind.Loads != e.Emulated.Loads || e.Valgrind.Stores != e.Emulated.Stores || !e.Equal()):
			t.Errorf("%s %s: valgrind %+v, emulated %+v", e.Arch, e.Variant, *e.Valgrind, e.Emulated)
		case e.Arch != regs.X86_64.Name && e.Valgrind != nil:
			t.Errorf("%s %s: valgrind count %+v on an arch not run natively", e.Arch, e.Variant, *e.Valgrind)
		}
	}
	var b bytes.Buffer
	if err := report.WriteJSON(&b, fullReport{Exactness: rows}); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Exactness []struct {
			Arch     string               `json:"arch"`
			Valgrind *check.ValgrindCosts `json:"valgrind"`
		} `json:"exactness"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	for i, e := range got.Exactness {
		if (e.Valgrind == nil) != (e.Arch != regs.X86_64.Name) {
			t.Errorf("report.json exactness row %d (%s): valgrind %v", i, e.Arch, e.Valgrind)
		}
	}
}

// The native chart is written and listed with the others: report.md's
// Charts list and report.json's charts name native_ns.svg and .png.
func TestReportChartsListNative(t *testing.T) {
	var rep fullReport
	for _, m := range native.Modes {
		rep.Native = append(rep.Native, native.Row{Entry: "ftrace_caller", Exit: "rth-merged", Mode: m, MedianNs: 20, CI95: native.Interval{19, 21}, Samples: 60, Processes: 6})
	}
	dir := t.TempDir()
	if err := reportCharts(dir, &rep); err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := markdownExtra(&md, rep); err != nil {
		t.Fatal(err)
	}
	var js bytes.Buffer
	if err := report.WriteJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"native_ns.svg", "native_ns.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
		if !strings.Contains(md.String(), "("+f+")") {
			t.Errorf("report.md's chart list lacks %s:\n%s", f, md.String())
		}
		if !strings.Contains(js.String(), `"`+f+`"`) {
			t.Errorf("report.json's charts lack %s", f)
		}
	}
}

// report.md opens with the answers, before the per-variant tables, and
// the headings the answers link to are the ones it writes.
func TestReportOpensWithAnswers(t *testing.T) {
	rep := fullReport{NativeNote: "--native 0"}
	var md bytes.Buffer
	if err := markdownReport(&md, rep, 1); err != nil {
		t.Fatal(err)
	}
	s := md.String()
	if !strings.HasPrefix(s, "# trampemu report\n\n## Answers\n\n**What do the return_to_handler save sets cost?** Not measured here (--native 0).") {
		t.Errorf("report.md does not open with the answers:\n%s", s[:min(len(s), 400)])
	}
	for _, h := range []string{"## " + report.HeadingScenarios, "## " + report.HeadingShadowStack} {
		if !strings.Contains(s, "\n"+h+"\n") {
			t.Errorf("report.md lacks the heading %q the answers link to", h)
		}
	}
}

// TestReportStatusCountsExactness: an exactness row that is not equal
// (the per-instruction count or valgrind's differs) makes the report exit
// with findings; equal rows do not.
func TestReportStatusCountsExactness(t *testing.T) {
	c := check.ExactCosts{Instructions: 13, Loads: 3, Stores: 6, LoadBytes: 24, StoreBytes: 48}
	off := c
	off.StoreBytes = 56
	vgSame, vgOff := check.ValgrindCosts{Instructions: 13, Loads: 3, Stores: 6}, check.ValgrindCosts{Instructions: 12, Loads: 3, Stores: 6}
	for _, tc := range []struct {
		name string
		row  check.Exactness
		want error
	}{
		{"equal", check.Exactness{Emulated: c, Independent: c, Valgrind: &vgSame}, nil},
		{"per-instruction differs", check.Exactness{Emulated: off, Independent: c}, errFindings},
		{"valgrind differs", check.Exactness{Emulated: c, Independent: c, Valgrind: &vgOff}, errFindings},
	} {
		if got := reportStatus(&fullReport{Exactness: []check.Exactness{tc.row}}); got != tc.want {
			t.Errorf("%s: status %v, want %v", tc.name, got, tc.want)
		}
	}
	if got := reportStatus(&fullReport{}); got != nil {
		t.Errorf("empty report: %v", got)
	}
}
