package main

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestScenarioCommand(t *testing.T) {
	cases := []cliCase{
		{[]string{"scenario", "list"}, 0, "fprobe-budget", ""},
		{[]string{"scenario", "run", "fprobe", "--arch", "x86_64"}, 0, "scenario fprobe on x86_64, fprobe header merged: ok", ""},
		{[]string{"scenario", "run", "--arch", "s390x", "tail-call"}, 0, "ret_addr_finds_caller", ""},
		{[]string{"scenario", "run", "fprobe", "--arch", "s390x", "--header", "v17"}, 1, "FAILED", ""},
		{[]string{"scenario", "run", "nope", "--arch", "s390x"}, 2, "", "valid are"},
		{[]string{"scenario", "run", "fprobe", "--arch", "mips"}, 2, "", "valid are arm64, riscv64, s390x, x86_64"},
		{[]string{"scenario", "run", "fprobe", "--arch", "s390x", "--header", "three-word"}, 2, "", "valid are merged, v17, two-word"},
		{[]string{"scenario", "run", "fprobe"}, 2, "", "valid are arm64, riscv64, s390x, x86_64"},
		{[]string{"scenario", "run", "--arch", "s390x"}, 2, "", "give one scenario name"},
		{[]string{"scenario", "frob"}, 2, "", "valid are list, run"},
		{[]string{"scenario"}, 2, "", "usage"},
	}
	runCases(t, cases)
}

func TestScenarioJSON(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"scenario", "run", "header-s390x", "--arch", "s390x", "--json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var o struct {
		Scenario, Arch, Header string
		OK                     bool
		Counters               map[string]int64
		Warnings, Findings     []string
		ShadowWordsPerCall     float64 `json:"shadow_words_per_call"`
	}
	if err := json.Unmarshal(out.Bytes(), &o); err != nil {
		t.Fatal(err)
	}
	if o.Scenario != "header-s390x" || o.Arch != "s390x" || !o.OK || o.Counters["v17_exit_handler_calls"] != 0 || len(o.Warnings) != 1 {
		t.Errorf("unexpected JSON: %s", out.String())
	}
}
