package report

import (
	"strings"
	"testing"

	"trampemu/native"
	"trampemu/regs"
	"trampemu/scenarios"
)

// The answers quote the native headline (with the layout and rerun
// spreads), the fprobe scenarios' words per call of every arch and the
// header encodings per arch, each with a link to its table; without a
// native run they say why.
func TestAnswers(t *testing.T) {
	var outs []scenarios.Outcome
	var shadow []scenarios.MeasureRow
	for i, a := range regs.Arches {
		for _, sc := range []string{"fgraph-multi", "fprobe-entry", "fprobe", "fprobe-data"} {
			o := scenarios.Outcome{Scenario: sc, Arch: a.Name, OK: true, ShadowWordsPerCall: float64(4 + i)}
			if strings.HasPrefix(sc, "fprobe") {
				o.Design = "fgraph"
			}
			outs = append(outs, o)
		}
		// the rethook rows of the same scenario come after and keep none
		outs = append(outs, scenarios.Outcome{Scenario: "fprobe", Design: "rethook", Arch: a.Name, OK: true})
		shadow = append(shadow, scenarios.MeasureRow{Arch: a.Name, Header: "-", WordsPerCall: 4, MaxDepth: 122, OK: true},
			scenarios.MeasureRow{Arch: a.Name, Header: "merged", Probes: 1, WordsPerCall: 6, MaxDepth: 81, OK: true},
			scenarios.MeasureRow{Arch: a.Name, Header: "merged", Probes: 1, DataBytes: 8, WordsPerCall: 7, MaxDepth: 70, OK: true},
			scenarios.MeasureRow{Arch: a.Name, Header: "v17", Probes: 1, WordsPerCall: 0, MaxDepth: 0, OK: i != 1})
	}
	hs := []native.HeadlineRow{
		{Label: "rth-full-fregs (rejected v7)", DiffNs: 0.33, CI95: native.Interval{0.2, 0.5}, Significant: true, ShiftRange: native.Interval{0.29, 0.58},
			Reruns: &native.Reruns{Runs: 20, Min: 0.17, Max: 0.68, SD: 0.11, Significant: 11}},
		{Label: "experiment: the return sequence", DiffNs: 10},
	}
	var b strings.Builder
	if err := Answers(&b, AnswerInputs{Headline: hs, Scenarios: outs, Shadow: shadow}); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, want := range []string{
		"## Answers\n\n",
		"rth-full-fregs minus rth-merged +0.33 ns [+0.20, +0.50] per traced return (different, layout shifts +0.29 to +0.58, 20 reruns +0.17 to +0.68, SD 0.11, significant in 11).",
		"(#headline-what-return_to_handler-costs-per-traced-return-graph-user-under-ftrace_caller-b-minus-rth-merged)",
		"an fprobe with an exit handler (fprobe) fgraph: x86_64 4, s390x 5, arm64 6, riscv64 7; rethook: x86_64 0, s390x 0, arm64 0, riscv64 0;",
		"20 of 20 scenario runs",
		"s390x v17: not traced through fgraph (0 words, depth 0);",
		"15 of 16 measurements equal their prediction",
		"(#shadow-stack-cost-per-traced-call-add-and-traced-depth-chain-131-levels)",
		"(#fgraph-and-fprobe-scenarios-merged-header-through-the-current-trampolines)",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("answers lack %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "return sequence") {
		t.Errorf("an experiment is quoted as an answer:\n%s", s)
	}
	b.Reset()
	if err := Answers(&b, AnswerInputs{NativeNote: "--native 0"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "Not measured here (--native 0).") {
		t.Errorf("no native run:\n%s", b.String())
	}
}
