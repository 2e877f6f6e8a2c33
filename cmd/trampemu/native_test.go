package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"trampemu/check"
	"trampemu/native"
	"trampemu/report"
)

// TestNativeCommand: x86-64 pairings time on the host (a variant, a user
// file, a chosen pair, a comparison with its A/A control, bench lines);
// s390x and bad names are usage errors naming the fix.
func TestNativeCommand(t *testing.T) {
	broken := "../../tests/testdata/broken/"
	short := []string{"--calls", "300", "--warmup", "50", "--rounds", "1", "--min-generations", "2", "--max-generations", "2"}
	runCases(t, []cliCase{
		{append([]string{"native", "--variant", "rth-merged"}, short...), 0, "| ftrace_caller | rth-merged |", ""},
		{append([]string{"native", "--file", broken + "x86_entry_ok.S", "--role", "entry", "--pair", "rth-full-fregs"}, short...), 0, "| rth-full-fregs |", ""},
		{append([]string{"native", "--arch", "x86_64", "--file", broken + "x86_rth_plain_ret.S", "--role", "exit"}, short...), 1, "native run of", ""},
		{append([]string{"native", "--compare", "rth-merged,ftrace_caller+rth-fixed"}, short...), 0, "| ftrace_caller+rth-merged | ftrace_caller+rth-merged | graph |", ""},
		{append([]string{"native", "--variant", "rth-legacy", "--format", "bench"}, short...), 0, "BenchmarkNative/entry=ftrace_caller-v5.10/exit=rth-legacy/mode=graph \t300\t", ""},
		{[]string{"native", "--arch", "s390x"}, 2, "", "timed in the emulator"},
		{[]string{"native", "--variant", "nope"}, 2, "", "valid are"},
		{[]string{"native", "--compare", "rth-merged"}, 2, "", "give A,B"},
		{[]string{"native", "--compare", "rth-merged,ftrace_caller+nope"}, 2, "", "valid are"},
		{[]string{"native", "--format", "csv"}, 2, "", "valid are table, bench"},
		{[]string{"native", "--variant", "rth-merged", "--pair", "rth-fixed"}, 2, "", "valid are"},
		{[]string{"native", "--pair", "rth-fixed"}, 2, "", "--pair goes with"},
	})
}

func TestNativeJSON(t *testing.T) {
	var out, errb bytes.Buffer
	args := []string{"native", "--compare", "ftrace_regs_caller,ftrace_caller", "--calls", "300", "--rounds", "1", "--min-generations", "6", "--max-generations", "6", "--json"}
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var got struct {
		Native []struct {
			Entry, Exit, Mode string
			Median            float64    `json:"median_ns"`
			CI                [2]float64 `json:"ci95"`
			Samples           int
		}
		Compare []struct {
			A, B, Mode string
			Diff       float64    `json:"diff_ns"`
			CI         [2]float64 `json:"ci95"`
			P          *float64
		} `json:"native_compare"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if len(got.Native) != 6 || got.Native[0].Entry != "ftrace_regs_caller" || got.Native[0].Exit != "rth-fixed" || got.Native[0].Mode != "off" ||
		got.Native[0].Median <= 0 || got.Native[0].Samples != 6 || got.Native[0].CI[0] > got.Native[0].Median {
		t.Errorf("native rows %+v", got.Native)
	}
	if len(got.Compare) != 6 || got.Compare[0].A != got.Compare[0].B || got.Compare[0].P == nil ||
		!strings.HasPrefix(got.Compare[3].B, "ftrace_caller+") {
		t.Errorf("comparisons %+v", got.Compare)
	}
}

// The report's native section: the headline with the exact emulated
// difference, the table, the comparisons with the A/A control, in
// Markdown and in report.json.
func TestNativeReportSection(t *testing.T) {
	full := "ftrace_caller+rth-full-fregs"
	var jobs []native.Job
	for _, n := range []string{native.BasePairing, full} {
		j, err := native.ParsePairing(n)
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, j)
	}
	rep := fullReport{Variants: []check.Summary{
		{Arch: "x86_64", Role: "exit", Variant: "rth-merged", Metrics: check.Metrics{Instructions: 13, Stores: 6, StoreBytes: 48}},
		{Arch: "x86_64", Role: "exit", Variant: "rth-full-fregs", Metrics: check.Metrics{Instructions: 20, Stores: 12, StoreBytes: 96}},
	}}
	cfg := native.Config{Jobs: jobs, Compare: [][2]string{{native.BasePairing, full}}, Calls: 300, Rounds: 2, MinGenerations: 6, MaxGenerations: 6, CPU: -1}
	if err := nativeSectionWith(&rep, cfg, []native.Effect{{Label: "full", A: native.BasePairing, B: full}}); err != nil {
		t.Fatal(err)
	}
	var md, js bytes.Buffer
	if err := writeNativeSection(&md, rep); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### Headline", "- full: **", "exactly +7 instructions, +6 stores, +48 bytes stored", "| ftrace_caller | rth-full-fregs |", "(A/A control"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md.String())
		}
	}
	for _, want := range []string{`"native": [`, `"native_compare": [`, `"native_headline": [`, `"ci95": [`, `"native_run": {`} {
		if !strings.Contains(js.String(), want) {
			t.Errorf("JSON lacks %q", want)
		}
	}
}

// TestFprobeNative: `trampemu fprobe --native` times both return paths on
// the host: the one-probe entry+exit cell of each design on x86-64 gets
// native_ns inside its ci95, the other cells none; the paired difference
// under one entry is there; s390x alone is not timed and says why.
func TestFprobeNative(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"fprobe", "--arch", "x86_64", "--probes", "1,2", "--native", "1s", "--json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var got struct {
		Designs []struct {
			Design    string
			Probes    int
			Functions string
			Exit      bool
			Data      int         `json:"data_bytes"`
			Native    *float64    `json:"native_ns"`
			CI        *[2]float64 `json:"ci95"`
		} `json:"fprobe_designs"`
		Returns []struct {
			Design, Pairing string
			SameEntry       bool `json:"same_entry"`
		} `json:"native_returns"`
		Diff *struct {
			A, B string
		} `json:"native_diff"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	timed := map[string]bool{}
	for _, r := range got.Designs {
		cell := r.Probes == 1 && r.Functions == "one" && r.Exit && r.Data == 0
		switch {
		case cell && (r.Native == nil || r.CI == nil || r.CI[0] > *r.Native || *r.Native > r.CI[1] || *r.Native <= 0):
			t.Errorf("%s one-probe cell: native %v, ci95 %v", r.Design, r.Native, r.CI)
		case cell:
			timed[r.Design] = true
		case r.Native != nil || r.CI != nil:
			t.Errorf("%s %d probes %s exit=%v data=%d: native %v on a cell the stand-ins do not model", r.Design, r.Probes, r.Functions, r.Exit, r.Data, *r.Native)
		}
	}
	if !timed["rethook"] || !timed["fgraph"] || got.Diff == nil || got.Diff.B != "ftrace_regs_caller+rethook" || len(got.Returns) != 3 {
		t.Errorf("timed %v, diff %+v, returns %+v", timed, got.Diff, got.Returns)
	}
	out.Reset()
	if code := run([]string{"fprobe", "--arch", "s390x", "--probes", "1", "--native", "1s"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "not timed: the arches asked for do not include the host's") {
		t.Errorf("s390x --native: exit %d: %s", code, out.String())
	}
}
