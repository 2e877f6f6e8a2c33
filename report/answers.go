package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"trampemu/native"
	"trampemu/scenarios"
)

// The report's section headings the answers link to (the command writes
// them; Anchor makes their links).
const (
	HeadingNativeHeadline = "Headline: what return_to_handler costs per traced return (graph user, under ftrace_caller, B minus rth-merged)"
	HeadingScenarios      = "fgraph and fprobe scenarios (merged header, through the current trampolines)"
	HeadingShadowStack    = "Shadow-stack cost per traced call (`add`) and traced depth (`chain`, 131 levels)"
)

// Anchor is the link target a Markdown renderer (GitHub's) gives a
// heading: lower case, spaces to hyphens, punctuation but '-' and '_'
// dropped.
func Anchor(heading string) string {
	var b strings.Builder
	b.WriteByte('#')
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// AnswerInputs are the report's results the answers quote.
type AnswerInputs struct {
	// Headline is the native headline (empty: NativeNote says why).
	Headline   []native.HeadlineRow
	NativeNote string
	Scenarios  []scenarios.Outcome
	Shadow     []scenarios.MeasureRow
}

// Answers writes the report's opening section: the three questions
// trampemu exists for, each answered with its numbers and a link to the
// table that holds the evidence.
func Answers(w io.Writer, in AnswerInputs) error {
	var b strings.Builder
	b.WriteString("## Answers\n\n")
	b.WriteString("**What do the return_to_handler save sets cost?** ")
	if len(in.Headline) == 0 {
		note := in.NativeNote
		if note == "" {
			note = "no native timing in this report"
		}
		fmt.Fprintf(&b, "Not measured here (%s).\n\n", note)
	} else {
		n := 0
		for _, h := range in.Headline {
			if strings.HasPrefix(h.Label, "experiment:") {
				continue
			}
			if n++; n > 1 {
				b.WriteString("; ")
			}
			label, _, _ := strings.Cut(h.Label, " (")
			fmt.Fprintf(&b, "%s minus rth-merged %+.2f ns [%+.2f, %+.2f] per traced return (%s", label, h.DiffNs, h.CI95[0], h.CI95[1], native.Verdict(h.Significant, h.Negligible))
			if h.ShiftRange != (native.Interval{}) {
				fmt.Fprintf(&b, ", layout shifts %+.2f to %+.2f", h.ShiftRange[0], h.ShiftRange[1])
			}
			if r := h.Reruns; r != nil {
				fmt.Fprintf(&b, ", %d reruns %+.2f to %+.2f, SD %.2f, significant in %d", r.Runs, r.Min, r.Max, r.SD, r.Significant)
			}
			b.WriteString(")")
		}
		fmt.Fprintf(&b, ". Evidence: [the native headline](%s).\n\n", Anchor(HeadingNativeHeadline))
	}

	b.WriteString("**What do the fprobe designs cost?** Shadow-stack words per traced call of `add`:")
	// scenario -> design -> arch -> words: each fprobe scenario runs under
	// both designs, whose rows must not overwrite each other
	words := map[string]map[string]map[string]float64{}
	var arches []string
	for _, o := range in.Scenarios {
		if words[o.Scenario] == nil {
			words[o.Scenario] = map[string]map[string]float64{}
		}
		if words[o.Scenario][o.Design] == nil {
			words[o.Scenario][o.Design] = map[string]float64{}
		}
		words[o.Scenario][o.Design][o.Arch] = o.ShadowWordsPerCall
		if !slices.Contains(arches, o.Arch) {
			arches = append(arches, o.Arch)
		}
	}
	perArch := func(m map[string]float64) string {
		var s []string
		for _, a := range arches {
			if v, ok := m[a]; ok {
				s = append(s, fmt.Sprintf("%s %s", a, num(v)))
			}
		}
		return strings.Join(s, ", ")
	}
	for _, q := range []struct{ scenario, what string }{
		{"fgraph-multi", "a plain fgraph user"},
		{"fprobe-entry", "an entry-only fprobe (the ftrace_ops fast path)"},
		{"fprobe", "an fprobe with an exit handler"},
		{"fprobe-data", "with entry data"},
	} {
		ds := words[q.scenario]
		if len(ds) == 0 {
			continue
		}
		var parts []string
		for _, d := range slices.Sorted(maps.Keys(ds)) {
			if d == "" {
				parts = append(parts, perArch(ds[d]))
				continue
			}
			parts = append(parts, fmt.Sprintf("%s: %s", d, perArch(ds[d])))
		}
		fmt.Fprintf(&b, " %s (%s) %s;", q.what, q.scenario, strings.Join(parts, "; "))
	}
	failed := 0
	for _, o := range in.Scenarios {
		if !o.OK {
			failed++
		}
	}
	fmt.Fprintf(&b, " %d of %d scenario runs meet every expectation. Evidence: [the scenarios](%s).\n\n", len(in.Scenarios)-failed, len(in.Scenarios), Anchor(HeadingScenarios))

	b.WriteString("**Which fprobe header encodings, per arch?** Shadow-stack words per traced call with one probe and no data (traced depth of 131 levels):")
	type key struct{ arch, header string }
	seen := map[key]bool{}
	bad := 0
	for _, r := range in.Shadow {
		if !r.OK {
			bad++
		}
		k := key{r.Arch, r.Header}
		if seen[k] || r.DataBytes != 0 || r.Probes > 1 {
			continue
		}
		seen[k] = true
		name := r.Header
		if name == "-" {
			name = "no fprobe"
		}
		if r.WordsPerCall == 0 {
			fmt.Fprintf(&b, " %s %s: not traced through fgraph (0 words, depth %d);", r.Arch, name, r.MaxDepth)
			continue
		}
		fmt.Fprintf(&b, " %s %s %d (%d);", r.Arch, name, r.WordsPerCall, r.MaxDepth)
	}
	for _, o := range in.Scenarios {
		if o.Scenario == "header-s390x" {
			res := "ok"
			if !o.OK {
				res = "FAILED"
			}
			fmt.Fprintf(&b, " header-s390x (%s) on %s: %s;", o.Header, o.Arch, res)
		}
	}
	fmt.Fprintf(&b, " %d of %d measurements equal their prediction. Evidence: [the shadow-stack table](%s).\n\n", len(in.Shadow)-bad, len(in.Shadow), Anchor(HeadingShadowStack))
	_, err := io.WriteString(w, b.String())
	return err
}
