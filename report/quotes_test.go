package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"trampemu/check"
	"trampemu/native"
)

func quotedExample() *Quoted {
	i, s, sb := 7.0, 6.0, 48.0
	return &Quoted{Source: "out/report.json", Machine: "a 2-CPU VM", Date: "2026-12-01 21:40 UTC",
		Headline: []native.HeadlineRow{{Label: "rth-full-fregs", A: "ftrace_caller+rth-merged", B: "ftrace_caller+rth-full-fregs", DiffNs: 0.33, CI95: native.Interval{0.2, 0.5},
			Significant: true, ShiftRange: native.Interval{0.29, 0.58}, Instructions: &i, Stores: &s, StoreBytes: &sb,
			Reruns: &native.Reruns{Runs: 20, Min: 0.17, Max: 0.68, SD: 0.11, Significant: 11, Date: "2026-12-01 21:27 UTC"}}},
		Exits: []QuotedCost{{Variant: "rth-merged", Model: "v6.14", Instructions: 13, Stores: 6, StoreBytes: 48}},
		Emulation: []QuotedRatio{{Arch: "x86_64", Ratio: 9.1, IQR: [2]float64{7.7, 12.9}, Spread: check.Spread{Median: 9.1, Min: 7.7, Max: 12.9},
			ChecksOn: 1.84, ChecksOnSpread: check.Spread{Median: 1.84, Min: 1.7, Max: 2.05}}},
	}
}

// make readme's rewrite and the test's check agree; a number edited by
// hand in a block, an unknown block and an unterminated one are errors
// naming the block.
func TestQuotes(t *testing.T) {
	q := quotedExample()
	doc := []byte("# x\n\nprose 1.23 ns\n<!-- trampemu:native-headline -->\nold\n<!-- /trampemu:native-headline -->\n\n<!-- trampemu:emulation -->\n<!-- /trampemu:emulation -->\nend\n")
	out, err := RewriteQuotes(doc, q)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"prose 1.23 ns\n<!-- trampemu:native-headline -->\nFrom `make report` (out/report.json) on a 2-CPU VM, 2026-12-01 21:40 UTC.",
		"**+0.33 ns [+0.20, +0.50]** (different) | +0.29 to +0.58 | +0.17 to +0.68, SD 0.11; significant in 11 of 20 runs (2026-12-01 21:27 UTC) | +7 instructions, +6 stores, +48 bytes stored |\n<!-- /trampemu:native-headline -->",
		"<!-- trampemu:emulation -->\nFrom `make report` (out/report.json) on a 2-CPU VM, 2026-12-01 21:40 UTC: ns per function-tracer call",
		"x86_64 9.10x [7.70-12.90]; a graph call with every check on over the same call with checks off, median [range] of the rounds: x86_64 1.84x [1.70-2.05].\n<!-- /trampemu:emulation -->\nend\n"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("rewritten document lacks %q:\n%s", want, out)
		}
	}
	if n, err := CheckQuotes(out, q); err != nil || n != 2 {
		t.Errorf("%d blocks: %v", n, err)
	}
	if _, err := CheckQuotes(doc, q); err == nil || !strings.Contains(err.Error(), "block native-headline differs") {
		t.Errorf("a stale block: %v", err)
	}
	edited := strings.Replace(string(out), "+0.33 ns", "+0.63 ns", 1)
	if _, err := CheckQuotes([]byte(edited), q); err == nil || !strings.Contains(err.Error(), "make readme") {
		t.Errorf("a hand-edited number: %v", err)
	}
	st := []byte("<!-- trampemu:stability -->\n<!-- /trampemu:stability -->\n")
	if out, _ := RewriteQuotes(st, q); !strings.Contains(string(out), "No rerun experiment") {
		t.Errorf("stability without an experiment:\n%s", out)
	}
	q.Stability = &native.Stability{Runs: 2, BudgetS: 20, Machine: "m", Date: "d", AAPasses: 2, Compare: []native.RerunSpread{
		{A: "a", B: "b", Mode: native.Graph, DiffNs: []float64{0.3, 0.4}, Covered: 1, Nominal: 0.979, Median: 0.35, SD: 0.07, Min: 0.3, Max: 0.4, MedianHalfWidth: 0.1, Significant: 2},
		{A: "a", B: "b", Mode: native.Off, DiffNs: []float64{0, 0}}}}
	out, _ = RewriteQuotes(st, q)
	for _, want := range []string{"(2 reruns of 20 s) on m, d", "| b minus a | +0.350 | 0.070 | +0.300 to +0.400 | 0.100 | 1 of 2 | 2 of 2 |", "in 1 of 2 (50.0%; nominal 97.9%)"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("stability block lacks %q:\n%s", want, out)
		}
	}
	for _, bad := range []string{"<!-- trampemu:nope -->\n<!-- /trampemu:nope -->", "<!-- trampemu:emulation -->\n", "<!-- trampemu:emulation"} {
		if _, err := CheckQuotes([]byte(bad), q); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// Every block in README.md and docs/*.md is what docs/numbers.json (the
// snapshot make readme took of out/report.json) renders: a README number
// that differs from the report it quotes fails here. There is at least
// one block, so the test checks something.
func TestDocsQuoteTheirReport(t *testing.T) {
	data, err := os.ReadFile("../docs/numbers.json")
	if err != nil {
		t.Fatalf("%v: make readme writes it", err)
	}
	var q Quoted
	if err := json.Unmarshal(data, &q); err != nil {
		t.Fatal(err)
	}
	if q.Machine == "" || q.Date == "" || len(q.Headline) == 0 {
		t.Fatalf("docs/numbers.json lacks the machine, the date or the headline: %+v", q)
	}
	files, _ := filepath.Glob("../docs/*.md")
	total := 0
	for _, f := range append([]string{"../README.md"}, files...) {
		doc, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n, err := CheckQuotes(doc, &q)
		if err != nil {
			t.Errorf("%s: %v", f, err)
		}
		total += n
	}
	if total == 0 {
		t.Error("no <!-- trampemu:NAME --> block in README.md or docs/*.md")
	}
}

func FuzzQuoteBlocks(f *testing.F) {
	f.Add("a\n<!-- trampemu:emulation -->\nx\n<!-- /trampemu:emulation -->\nb")
	f.Add("<!-- trampemu:native-headline --><!-- /trampemu:native-headline -->")
	q := quotedExample()
	f.Fuzz(func(t *testing.T, s string) {
		out, err := RewriteQuotes([]byte(s), q)
		if err != nil {
			return
		}
		if _, err := CheckQuotes(out, q); err != nil {
			t.Fatalf("a rewritten document fails its check: %v", err)
		}
	})
}

// make readme-emulation: the emulator ratios and their run come from the
// newer report, the native numbers stay the snapshot's; the block names the
// newer run; a report without the table is an error naming it.
func TestQuoteEmulation(t *testing.T) {
	q := quotedExample()
	headline := q.Headline
	rep := map[string]any{
		"native_run":      native.RunInfo{Machine: "the newer machine", Date: "2026-12-02 16:34 UTC"},
		"native_headline": headline,
		"emulation": map[string]check.Emulation{"x86_64": {Arch: "x86_64", RawUnicornRatio: 2.86, RatioIQR: [2]float64{2.62, 2.91},
			ChecksOnRatio: 1.96, ChecksOnSpread: check.Spread{Median: 1.96, Min: 1.92, Max: 2.21}}},
	}
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if err := QuoteEmulation(q, data, "new.json"); err != nil {
		t.Fatal(err)
	}
	if q.Date != quotedExample().Date || len(q.Headline) != len(headline) {
		t.Errorf("the native run changed: %s", q.Date)
	}
	out, err := RewriteQuotes([]byte("<!-- trampemu:emulation -->\n<!-- /trampemu:emulation -->\n"), q)
	if err != nil {
		t.Fatal(err)
	}
	want := "From `make report` on the newer machine, 2026-12-02 16:34 UTC: ns per function-tracer call in the emulator over raw Unicorn, median of the rounds' ratios [their quartiles]: x86_64 2.86x [2.62-2.91]; a graph call with every check on over the same call with checks off, median [range] of the rounds: x86_64 1.96x [1.92-2.21].\n"
	if !strings.Contains(string(out), want) {
		t.Errorf("block:\n%s\nwant\n%s", out, want)
	}
	delete(rep, "emulation")
	data, _ = json.Marshal(rep)
	if err := QuoteEmulation(quotedExample(), data, "old.json"); err == nil || !strings.Contains(err.Error(), "old.json has no emulator speed table") {
		t.Errorf("a report without the table: %v", err)
	}
}
