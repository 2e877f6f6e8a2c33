package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportReadsMutation: the report's mutation section comes from the
// mutate.json `make mutate` left in the output folder, says how to make
// one when there is none, and refuses a file that is not mutate's JSON.
func TestReportReadsMutation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mutate.json")
	sums, note, err := readMutation(path)
	if err != nil || sums != nil || !strings.Contains(note, "make mutate") {
		t.Fatalf("missing file: %v, %v, %q", sums, err, note)
	}
	js := `[{"arch":"x86_64","variant":"rth-merged","role":"exit","kernel":true,"mutants":40,"killed":30,"stillborn":1,"equivalent":8,
		"survived":[{"mutation":"delete movq %rbp, RBP(%rsp)","line":"trampolines/x86_64/rth_merged.S:20","reason":"removable","finding":"unused-store RBP"}]}]`
	if err := os.WriteFile(path, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	sums, note, err = readMutation(path)
	if err != nil || len(sums) != 1 || sums[0].Killed != 30 || len(sums[0].Survived) != 1 {
		t.Fatalf("written file: %+v, %v", sums, err)
	}
	var b bytes.Buffer
	if err := writeMutationSection(&b, fullReport{Mutation: sums, MutationNote: note}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Mutation testing", "rth-merged", "removable: unused-store RBP", "make mutate"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("section lacks %q:\n%s", want, b.String())
		}
	}
	if err := os.WriteFile(path, []byte("not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := readMutation(path); err == nil || !strings.Contains(err.Error(), "make mutate") {
		t.Errorf("bad file: %v, want an error naming the fix", err)
	}
}
