package main

import (
	"bytes"
	"strings"
	"testing"

	"trampemu/regs"
)

// TestHelpNamesEveryArch: the --arch help of every command that takes one,
// the usage line of report and mutate's "give --arch" error name every
// arch of regs.Arches (native: the host's only, and says why); nothing
// says "both".
func TestHelpNamesEveryArch(t *testing.T) {
	help := func(cmd string) string {
		var b bytes.Buffer
		if code := run(append(strings.Fields(cmd), "--help"), &b, &bytes.Buffer{}); code != 0 {
			t.Fatalf("%s --help: exit %d, want 0", cmd, code)
		}
		_, after, ok := strings.Cut(b.String(), "--arch string")
		if !ok {
			t.Fatalf("%s --help has no --arch flag:\n%s", cmd, b.String())
		}
		line, _, _ := strings.Cut(after, "\n")
		return line
	}
	var usage, mutateOut, mutateErr bytes.Buffer
	run(nil, &bytes.Buffer{}, &usage)
	run([]string{"mutate"}, &mutateOut, &mutateErr)
	report, _, _ := strings.Cut(usage.String()[strings.Index(usage.String(), "  report"):], "\n")
	texts := map[string]string{"usage line of report": report, "mutate without --arch": mutateErr.String()}
	for _, cmd := range []string{"check", "report", "trace", "asm", "list", "scenario run", "mutate"} {
		texts[cmd+" --arch help"] = help(cmd)
	}
	for what, text := range texts {
		for _, a := range regs.Arches {
			if !strings.Contains(text, a.Name) {
				t.Errorf("%s %q does not name %s", what, text, a.Name)
			}
		}
		if strings.Contains(text, "both") {
			t.Errorf("%s %q says both", what, text)
		}
	}
	if h := help("native"); !strings.Contains(h, "x86_64 only") || !strings.Contains(h, "emulated") {
		t.Errorf("native --arch help %q: want the host's x86_64 only, the others emulated", h)
	}
}
