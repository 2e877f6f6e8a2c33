package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// A trampoline kind the options compile out of a file checked without
// --role is named in a note (text and JSON), the rest is checked with the
// usual exit status; a file left with none is an exit-2 error. Both
// arches.
func TestMissingRoleNotes(t *testing.T) {
	wl := []string{"--workload", "add", "--calls", "2"}
	for _, c := range []struct {
		arch, file string
		undef      []string
		code       int
		notes      []string // each a note line; nil: none
		rows       []string // trampolines that must still be checked
	}{
		{"x86_64", "x86_64_v6.14.S", []string{"CONFIG_DYNAMIC_FTRACE"}, 0, []string{
			"x86_64_v6.14.S defines no ftrace_caller with these options (CONFIG_DYNAMIC_FTRACE unset?)",
			"x86_64_v6.14.S defines no ftrace_regs_caller with these options (CONFIG_DYNAMIC_FTRACE_WITH_REGS unset?)"},
			[]string{"x86_64_v6.14.S:return_to_handler"}},
		{"x86_64", "x86_64_v6.14.S", nil, 0, nil, []string{"x86_64_v6.14.S:ftrace_caller", "x86_64_v6.14.S:return_to_handler"}},
		{"s390x", "s390x_v6.14.S", []string{"CONFIG_FUNCTION_GRAPH_TRACER"}, 0, []string{
			"s390x_v6.14.S defines no return_to_handler with these options (CONFIG_FUNCTION_GRAPH_TRACER unset?)"},
			[]string{"s390x_v6.14.S:ftrace_caller", "s390x_v6.14.S:ftrace_regs_caller"}},
		{"s390x", "s390x_v6.14.S", nil, 0, nil, []string{"s390x_v6.14.S:return_to_handler"}},
		{"x86_64", "x86_64_v6.14.S", []string{"CONFIG_DYNAMIC_FTRACE", "CONFIG_FUNCTION_GRAPH_TRACER"}, 2, nil, nil},
	} {
		args := []string{"check", "--arch", c.arch, "--file", kdata + c.file}
		for _, u := range c.undef {
			args = append(args, "-U", u)
		}
		args = append(args, wl...)
		var out, errb bytes.Buffer
		code := run(args, &out, &errb)
		if code != c.code {
			t.Errorf("%v: exit %d (%s), want %d", args, code, errb.String(), c.code)
			continue
		}
		if c.code == 2 {
			if !strings.Contains(errb.String(), "defines no trampoline with these options") {
				t.Errorf("%v: stderr %q, want the no-trampoline error", args, errb.String())
			}
			continue
		}
		var notes []string
		for _, l := range strings.Split(out.String(), "\n") {
			if n, ok := strings.CutPrefix(l, "note: "); ok {
				notes = append(notes, n)
			}
		}
		if strings.Join(notes, "\n") != strings.Join(c.notes, "\n") {
			t.Errorf("%v: notes %q, want %q", args, notes, c.notes)
		}
		for _, r := range c.rows {
			if !strings.Contains(out.String(), r) {
				t.Errorf("%v: no row %s in\n%s", args, r, out.String())
			}
		}
		out.Reset()
		if code := run(append(args, "--json"), &out, &errb); code != c.code {
			t.Errorf("%v --json: exit %d", args, code)
		}
		var got checkOutput
		if err := json.Unmarshal(out.Bytes(), &got); err != nil {
			t.Fatalf("%v --json: %v", args, err)
		}
		if strings.Join(got.Notes, "\n") != strings.Join(c.notes, "\n") || len(got.Results) == 0 {
			t.Errorf("%v --json: notes %q (%d results), want %q", args, got.Notes, len(got.Results), c.notes)
		}
	}
}
