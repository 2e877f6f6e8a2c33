package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestProgressQuietUnlessShown(t *testing.T) {
	var quiet, shown bytes.Buffer
	q := newProgress(3, false, &quiet)
	p := newProgress(3, true, &shown)
	for _, s := range []string{"one", "two", "three"} {
		q.step(s)
		p.step(s)
	}
	q.finish()
	p.finish()
	if quiet.Len() != 0 {
		t.Errorf("a progress bar that is not shown wrote %q", quiet.String())
	}
	if !strings.Contains(shown.String(), "report: two") || !strings.Contains(shown.String(), "(2/3)") {
		t.Errorf("the shown bar wrote %q, want the step and its count", shown.String())
	}
}

// A shown bar ends full: its last frame is N/N, and the line is ended.
func TestProgressEndsFull(t *testing.T) {
	var shown bytes.Buffer
	p := newProgress(3, true, &shown)
	for _, s := range []string{"one", "two", "three"} {
		p.step(s)
	}
	p.finish()
	out := shown.String()
	last := out[strings.LastIndex(strings.TrimRight(out, "\n"), "\r")+1:]
	if !strings.Contains(last, "report: three") || !strings.Contains(last, "(3/3)") || !strings.HasSuffix(out, "\n") {
		t.Errorf("last frame %q (of %q), want report: three (3/3) and a newline", last, out)
	}
}

// The report announces exactly the steps it runs, on both arches, with
// and without the optional parts.
func TestReportStepCountExact(t *testing.T) {
	defer func(f func(int) *progress) { reportProgress = f }(reportProgress)
	var bars []*progress
	reportProgress = func(total int) *progress {
		p := newProgress(total, false, nil)
		bars = append(bars, p)
		return p
	}
	for _, args := range [][]string{
		{"--arch", "s390x", "--emu-calls", "0"},
		{"--arch", "s390x", "--exact=false", "--emu-calls", "2000", "--emu-repeats", "1"},
		{"--arch", "x86_64", "--exact=false", "--emu-calls", "0"},
	} {
		bars = nil
		var out, errb bytes.Buffer
		full := append([]string{"report", "--native", "0", "--calls", "1"}, args...)
		if code := run(full, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", full, code, errb.String())
		}
		if len(bars) != 1 {
			t.Fatalf("%v: %d progress bars, want 1", full, len(bars))
		}
		if b := bars[0]; b.total == 0 || b.done != b.total {
			t.Errorf("%v: steps run %d of %d announced", full, b.done, b.total)
		}
	}
}
