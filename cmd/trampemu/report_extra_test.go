package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"trampemu/native"
	"trampemu/regs"
	"trampemu/report"
)

// The exactness rows of x86-64 (the arch the report gets from regs, not
// native.Arch) carry valgrind's count, equal to the emulated instruction
// count, into report.json; s390x rows carry none.
func TestExactnessRowsValgrind(t *testing.T) {
	if !native.Covers(regs.X86_64) || native.Covers(regs.S390X) {
		t.Fatalf("native.Covers: x86_64 %v, s390x %v", native.Covers(regs.X86_64), native.Covers(regs.S390X))
	}
	if err := native.Supported(); err != nil {
		t.Fatalf("the valgrind column needs x86-64 run natively: %v", err)
	}
	rows, err := exactnessRowsOf([]*regs.Arch{regs.X86_64, regs.S390X}, []string{"ftrace_caller", "rth-merged"}, &progress{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 {
		t.Fatalf("%d rows, want ftrace_caller and rth-merged of both arches", len(rows))
	}
	for _, e := range rows {
		switch {
		case e.Arch == regs.X86_64.Name && e.Valgrind == nil:
			t.Errorf("%s %s: no valgrind count", e.Arch, e.Variant)
		case e.Arch == regs.X86_64.Name && *e.Valgrind != e.Emulated.Instructions:
			t.Errorf("%s %s: valgrind %g instructions, emulated %g", e.Arch, e.Variant, *e.Valgrind, e.Emulated.Instructions)
		case e.Arch != regs.X86_64.Name && e.Valgrind != nil:
			t.Errorf("%s %s: valgrind count %g on an arch not run natively", e.Arch, e.Variant, *e.Valgrind)
		}
	}
	var b bytes.Buffer
	if err := report.WriteJSON(&b, fullReport{Exactness: rows}); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Exactness []struct {
			Arch     string   `json:"arch"`
			Valgrind *float64 `json:"valgrind"`
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
