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
