package main

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestNativeCommand: x86-64 pairings time on the host (a variant, a user
// file, a chosen pair); s390x and bad names are usage errors naming the
// fix.
func TestNativeCommand(t *testing.T) {
	broken := "../../tests/testdata/broken/"
	short := []string{"--calls", "2000", "--repeats", "1"}
	runCases(t, []cliCase{
		{append([]string{"native", "--variant", "rth-merged"}, short...), 0, "| ftrace_caller | rth-merged |", ""},
		{append([]string{"native", "--file", broken + "x86_entry_ok.S", "--role", "entry", "--pair", "rth-full-fregs"}, short...), 0, "| rth-full-fregs |", ""},
		{append([]string{"native", "--arch", "x86_64", "--file", broken + "x86_rth_plain_ret.S", "--role", "exit"}, short...), 1, "native run of", ""},
		{[]string{"native", "--arch", "s390x"}, 2, "", "timed in the emulator"},
		{[]string{"native", "--variant", "nope"}, 2, "", "valid are"},
		{[]string{"native", "--variant", "rth-merged", "--pair", "rth-fixed"}, 2, "", "valid are"},
		{[]string{"native", "--pair", "rth-fixed"}, 2, "", "--pair goes with"},
	})
}

func TestNativeJSON(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"native", "--variant", "ftrace_regs_caller", "--calls", "2000", "--repeats", "1", "--json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var rs []struct {
		Entry, Exit string
		Off         float64 `json:"off_ns"`
		Graph       float64 `json:"graph_ns"`
	}
	if err := json.Unmarshal(out.Bytes(), &rs); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if len(rs) != 1 || rs[0].Entry != "ftrace_regs_caller" || rs[0].Exit != "rth-fixed" || rs[0].Off <= 0 || rs[0].Graph <= 0 {
		t.Errorf("got %+v", rs)
	}
}
