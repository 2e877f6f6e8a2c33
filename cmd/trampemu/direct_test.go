package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestDirectNotApplicable: --scenario direct on an entry whose era has no
// direct calls (arm64 before v6.4) is a note, not the false clobber and
// control errors of a direct trampoline that cannot exist there; entries
// with direct calls (every arch) take the direct trampoline and get no
// note.
func TestDirectNotApplicable(t *testing.T) {
	for _, c := range []struct {
		arch, variant string
		note          bool
	}{
		{"arm64", "ftrace_caller-v6.2", true},
		{"arm64", "ftrace_caller-v6.3", true},
		{"arm64", "ftrace_regs_caller-v5.10", true},
		{"arm64", "ftrace_caller", false},
		{"x86_64", "ftrace_regs_caller", false},
		{"s390x", "ftrace_caller", false},
	} {
		var out, errb bytes.Buffer
		code := run([]string{"check", "--arch", c.arch, "--variant", c.variant, "--scenario", "direct", "--workload", "add", "--calls", "2"}, &out, &errb)
		noted := strings.Contains(out.String(), "note: "+c.variant+": the direct user set's direct trampoline is not applicable")
		if code != 0 || noted != c.note {
			t.Errorf("%s %s: exit %d, note %v; want exit 0, note %v\n%s%s", c.arch, c.variant, code, noted, c.note, out.String(), errb.String())
		}
	}
}
