package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"trampemu/check"
	"trampemu/scenarios"
)

var update = flag.Bool("update", false, "rewrite golden files")

// sample is a fixed set of results, both architectures, one clean and one
// caught variant each.
func sample() []check.Summary {
	finding := func(k check.Kind, slot, reg, summary, example string, n int) check.Finding {
		return check.Finding{Kind: k, Severity: k.Severity(), Slot: slot, Register: reg, Summary: summary,
			Message: summary + " (first seen: " + example + ")", Count: n}
	}
	res := func(arch, variant, role, wl string, fs ...check.Finding) check.Result {
		r := check.Result{Arch: arch, Variant: variant, Role: role, Pair: "p", Workload: wl, Scenario: "default", Findings: fs,
			Metrics: check.Metrics{Instructions: 13, Loads: 3, Stores: 6, LoadBytes: 24, StoreBytes: 48, StackBytes: 176, Calls: 8, Written: []string{"RBP", "RAX", "RDX"},
				Boundaries: 13, UnrecoverableInsns: 2, Unrecoverable: []string{"return_to_handler", "return_to_handler+0x32"}}}
		r.OK = r.Errors() == 0
		return r
	}
	wrong := finding(check.WrongValue, "RSP", "", "RSP does not hold what it means", "entry sp -176, want entry sp +0", 8)
	kept := finding(check.Volatile, "", "", "%r3, %r4, %r5 kept across return_to_handler", "", 1)
	return []check.Summary{
		{Arch: "x86_64", Variant: "rth-merged", Role: "exit", Model: "v6.14", Pair: "ftrace_caller", Kernel: true,
			Results: []check.Result{res("x86_64", "rth-merged", "exit", "add"), res("x86_64", "rth-merged", "exit", "fib")},
			Metrics: res("x86_64", "rth-merged", "exit", "add").Metrics, Speed: &check.Speed{NsPerCall: 1250.4}},
		{Arch: "x86_64", Variant: "rth-v6.19", Role: "exit", Model: "v6.19", Pair: "ftrace_caller", Kernel: true, Bug: "wrong RSP",
			Errors: 2, Kinds: []check.Kind{check.WrongValue},
			Results: []check.Result{res("x86_64", "rth-v6.19", "exit", "add", wrong), res("x86_64", "rth-v6.19", "exit", "fib", wrong)},
			Metrics: check.Metrics{Instructions: 15, Loads: 3, Stores: 7.5, StackBytes: 184}},
		{Arch: "s390x", Variant: "rth-merged", Role: "exit", Model: "v6.14+", Pair: "ftrace_caller", Kernel: true,
			Results: []check.Result{res("s390x", "rth-merged", "exit", "add", kept)},
			Metrics: check.Metrics{Instructions: 12, Loads: 1, Stores: 4, StoreBytes: 56, StackBytes: 352, Written: []string{"gprs[2]", "gprs[15]"},
				Boundaries: 12, UnrecoverableInsns: 1, Unrecoverable: []string{"return_to_handler+0xe"}}},
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test ./report -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test ./report -update rewrites it):\n%s", name, got)
	}
}

func TestMarkdownGolden(t *testing.T) {
	var b bytes.Buffer
	if err := Markdown(&b, "trampemu report", sample(), []string{"A note."}); err != nil {
		t.Fatal(err)
	}
	outs := []scenarios.Outcome{
		{Scenario: "header-s390x", Arch: "s390x", Header: "v17+merged", OK: true, ShadowWordsPerCall: 6, Warnings: []string{"v17: header not encodable"}},
		{Scenario: "fprobe", Arch: "x86_64", Header: "merged", OK: false, ShadowWordsPerCall: 6, Findings: []string{"exit_val != entry_val + 3 | really"}},
	}
	if err := ScenarioTable(&b, outs); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.md", b.Bytes())
}

func TestTablesGolden(t *testing.T) {
	var b bytes.Buffer
	var rs []check.Result
	for _, s := range sample() {
		rs = append(rs, s.Results...)
	}
	if err := CheckTable(&b, rs); err != nil {
		t.Fatal(err)
	}
	b.WriteString("\n")
	if err := SummaryTable(&b, sample()); err != nil {
		t.Fatal(err)
	}
	golden(t, "tables.txt", b.Bytes())
}

func TestVerdict(t *testing.T) {
	ss := sample()
	for _, c := range []struct {
		s    check.Summary
		want string
	}{
		{ss[0], "ok"},
		{ss[1], "caught: wrong-value"},
		{check.Summary{Kernel: true, Errors: 1, Kinds: []check.Kind{check.Clobber}}, "REGRESSION: clobber"},
		{check.Summary{Kernel: false, Errors: 1, Kinds: []check.Kind{check.Stack}}, "findings: stack"},
	} {
		if got := verdict(c.s); got != c.want {
			t.Errorf("verdict %q, want %q", got, c.want)
		}
	}
}
