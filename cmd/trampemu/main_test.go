package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"trampemu/native"
)

// TestMain lets native.Measure use this test binary as its child process.
func TestMain(m *testing.M) {
	native.RunChildIfAsked()
	os.Exit(m.Run())
}

// cliCase is a command line with its exit code and text it must print.
type cliCase struct {
	args    []string
	code    int
	out     string // in stdout
	errText string // in stderr
}

func runCases(t *testing.T, cases []cliCase) {
	t.Helper()
	for _, c := range cases {
		var out, errb bytes.Buffer
		code := run(c.args, &out, &errb)
		if code != c.code || !strings.Contains(out.String(), c.out) || !strings.Contains(errb.String(), c.errText) {
			t.Errorf("%v: exit %d, stdout %.300q, stderr %q; want exit %d, %q, %q", c.args, code, out.String(), errb.String(), c.code, c.out, c.errText)
		}
	}
}

// TestCommands: exit codes and the words users rely on, both arches.
func TestCommands(t *testing.T) {
	broken := "../../tests/testdata/broken/"
	cases := []cliCase{
		{[]string{"version"}, 0, "Unicorn 2.", ""},
		{[]string{"version"}, 0, "objtool: objtool of linux-kbuild-", ""},
		{[]string{"list", "--arch", "s390x"}, 0, "rth-merged", ""},
		{[]string{"check", "--arch", "x86_64", "--variant", "rth-merged", "--workload", "add", "--calls", "2"}, 0, "rth-merged", ""},
		{[]string{"check", "--arch", "s390x", "--variant", "rth-merged", "--workload", "add", "--calls", "2"}, 0, "gprs[2] gprs[15]", ""},
		{[]string{"check", "--arch", "x86_64", "--variant", "rth-v6.19", "--workload", "add", "--calls", "2"}, 1, "wrong-value RSP", ""},
		{[]string{"check", "--arch", "s390x", "--variant", "rth-v14-draft", "--workload", "add", "--calls", "2"}, 1, "stale-read gprs[2]", ""},
		{[]string{"check", "--arch", "x86_64", "--file", broken + "x86_rth_loses_rdx.S", "--role", "exit", "--workload", "ret128", "--calls", "2"}, 1, "clobber %rdx", ""},
		{[]string{"check", "--arch", "s390x", "--file", broken + "s390x_entry_ok.S", "--role", "entry", "--workload", "add", "--calls", "2"}, 0, "ok", ""},
		{[]string{"check", "--arch", "mips"}, 2, "", "valid are arm64, riscv64, s390x, x86_64"},
		{[]string{"check", "--arch", "x86_64", "--variant", "nope"}, 2, "", "valid are ftrace_caller"},
		{[]string{"check", "--arch", "s390x", "--workload", "ret128"}, 2, "", "valid are add"},
		{[]string{"check", "--arch", "x86_64", "--scenario", "nope"}, 2, "", "valid are bpf, bpf-prefix, bpf-ret, bpf-ret-v6.18, default"},
		{[]string{"check", "--arch", "x86_64", "--file", broken + "x86_rth_ok.S", "--role", "middle"}, 2, "", "entry or exit"},
		{[]string{"check", "--arch", "x86_64", "--file", "/nonexistent.S", "--role", "exit"}, 2, "", "nonexistent.S"},
		{[]string{"asm", "--arch", "s390x", "--variant", "ftrace_regs_caller"}, 0, "epsw %r1,%r14", ""},
		{[]string{"asm", "--arch", "x86_64", "--variant", "rth-fixed"}, 0, "<return_to_handler>:", ""},
		{[]string{"asm", "--arch", "x86_64", broken + "x86_entry_ok.S"}, 0, "call", ""},
		{[]string{"asm", "--arch", "x86_64"}, 2, "", "give one .S file"},
		{[]string{"frobnicate"}, 2, "", "valid are report, check"},
	}
	runCases(t, cases)
}

// TestAsmErrorNamesTheLine: an assembler error shows the user's file:line.
func TestAsmErrorNamesTheLine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "mine.S")
	if err := os.WriteFile(p, []byte("SYM_FUNC_START(f)\n\tRET\n\tbogus %r1\nSYM_FUNC_END(f)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, arch := range []string{"x86_64", "s390x", "arm64"} {
		var out, errb bytes.Buffer
		if code := run([]string{"asm", "--arch", arch, p}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "mine.S:3") {
			t.Errorf("%s: exit %d, stderr %q; want 2 and mine.S:3", arch, code, errb.String())
		}
	}
}

// TestCheckJSON: the JSON has the documented fields.
func TestCheckJSON(t *testing.T) {
	for _, arch := range []string{"x86_64", "s390x", "arm64"} {
		var out, errb bytes.Buffer
		// A return callback reading what rth-merged does not store: x86-64
		// RDI (argument 0), s390x gprs[3], arm64 sp (it stores x0-x7).
		scenario := map[string]string{"x86_64": "ret-arg0", "s390x": "ret-arg1", "arm64": "ret-args"}[arch]
		if code := run([]string{"check", "--arch", arch, "--variant", "rth-merged", "--workload", "add", "--calls", "2", "--scenario", scenario, "--json"}, &out, &errb); code != 1 {
			t.Fatalf("%s: exit %d (%s), want 1 (a stale read)", arch, code, errb.String())
		}
		var got struct {
			Results []map[string]any `json:"results"`
			Notes   []string         `json:"notes"`
		}
		if err := json.Unmarshal(out.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		rs := got.Results
		if got.Notes == nil || len(got.Notes) != 0 {
			t.Errorf("%s: notes %v, want an empty list for a variant", arch, got.Notes)
		}
		if len(rs) != 1 {
			t.Fatalf("%d results, want 1", len(rs))
		}
		for _, k := range []string{"arch", "variant", "role", "workload", "scenario", "ok", "findings", "metrics"} {
			if _, ok := rs[0][k]; !ok {
				t.Errorf("%s: result lacks %q", arch, k)
			}
		}
		m := rs[0]["metrics"].(map[string]any)
		for _, k := range []string{"instructions", "loads", "stores", "load_bytes", "store_bytes", "stack_bytes"} {
			if _, ok := m[k]; !ok {
				t.Errorf("%s: metrics lack %q", arch, k)
			}
		}
		f := rs[0]["findings"].([]any)[0].(map[string]any)
		for _, k := range []string{"kind", "severity", "slot", "message"} {
			if _, ok := f[k]; !ok {
				t.Errorf("%s: finding lacks %q", arch, k)
			}
		}
		if f["kind"] != "stale-read" {
			t.Errorf("%s: first finding %v, want stale-read", arch, f)
		}
	}
}
