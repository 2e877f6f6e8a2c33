package scenarios

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"trampemu/ftrace"
	"trampemu/harness"
	"trampemu/regs"
)

// Scenario is one built-in scenario.
type Scenario struct {
	Name string
	Doc  string
	// UsesHeader is true when the fprobe header encoding matters (the
	// scenario registers fprobes). Other scenarios ignore it and report
	// the header as "n/a".
	UsesHeader bool
	// FixedHeader, when set, is what the scenario reports as its header
	// because it runs its own choice of encodings (header-s390x).
	FixedHeader string
	// Designs is true when the scenario runs on both fprobe designs
	// (ftrace.FprobeDesigns); others run on fgraph only.
	Designs bool

	run func(r *runCtx) error
}

// Outcome is what one run of a scenario found. Its JSON form is the CLI's
// `scenario run --json` output.
type Outcome struct {
	Scenario string `json:"scenario"`
	Arch     string `json:"arch"`
	Header   string `json:"header"`
	// Design is the fprobe design the run used ("rethook" or "fgraph").
	Design string `json:"fprobe_design"`
	// Dispatch is the fgraph dispatch form ("merged", or the drafts'
	// "per-ops-draft" and "loop").
	Dispatch string `json:"fgraph_dispatch"`
	// OK is false when any expectation failed (Findings is not empty).
	OK bool `json:"ok"`
	// Counters are the scenario's counters and observed values.
	Counters map[string]int64 `json:"counters"`
	// Warnings are the kernel WARNs the model recorded: "text (xN): detail".
	Warnings []string `json:"warnings"`
	// ShadowWordsPerCall is the mean shadow-stack words of the traced
	// frames (frame, meta word and reservations), 0 when nothing was
	// traced through fgraph.
	ShadowWordsPerCall float64 `json:"shadow_words_per_call"`
	// Findings are the failed expectations, each a sentence.
	Findings []string `json:"findings"`
}

// ErrUnknown is wrapped by Find's error for a name that is no scenario.
var ErrUnknown = errors.New("unknown scenario")

// All returns the built-in scenarios in presentation order.
func All() []Scenario { return append([]Scenario(nil), all...) }

// Names returns the scenario names in presentation order.
func Names() []string {
	out := make([]string, len(all))
	for i, s := range all {
		out[i] = s.Name
	}
	return out
}

// Find looks a scenario up by name; the error names the valid choices.
func Find(name string) (Scenario, error) {
	for _, s := range all {
		if s.Name == name {
			return s, nil
		}
	}
	names := Names()
	sort.Strings(names)
	return Scenario{}, fmt.Errorf("%w %q: valid are %s", ErrUnknown, name, strings.Join(names, ", "))
}

// DesignNames lists the scenarios that run on both fprobe designs.
func DesignNames() []string {
	var out []string
	for _, s := range all {
		if s.Designs {
			out = append(out, s.Name)
		}
	}
	return out
}

// HeaderNames lists the valid --header values.
func HeaderNames() []string {
	out := make([]string, len(ftrace.HeaderEncodings))
	for i, e := range ftrace.HeaderEncodings {
		out[i] = e.String()
	}
	return out
}

// setupError is a failure to build the machine (not a finding).
type setupError struct{ err error }

func (e setupError) Error() string { return e.err.Error() }
func (e setupError) Unwrap() error { return e.err }

// Run runs the scenario on arch a with fprobe header encoding hdr. The
// error is only for a machine that could not be built; everything that
// goes wrong once it runs (a failed expectation, a guest fault) is a
// finding in the Outcome.
func (s Scenario) Run(a *regs.Arch, hdr ftrace.HeaderEncoding) (Outcome, error) {
	return s.RunWatched(a, hdr, nil)
}

// RunWatched is Run with watch called for each machine the scenario
// builds, before it runs anything (e.g. to watch its function-graph users:
// `scenario run --format function_graph`).
func (s Scenario) RunWatched(a *regs.Arch, hdr ftrace.HeaderEncoding, watch func(h *harness.Harness)) (Outcome, error) {
	return s.RunDesign(a, hdr, ftrace.DesignFgraph, watch)
}

// RunDesign is RunWatched on the given fprobe design; a scenario without
// Designs runs on fgraph only, and asking it for rethook is an error.
func (s Scenario) RunDesign(a *regs.Arch, hdr ftrace.HeaderEncoding, design ftrace.FprobeDesign, watch func(h *harness.Harness)) (Outcome, error) {
	return s.RunForm(a, hdr, design, ftrace.RethookV613, watch)
}

// RunForm is RunDesign with the rethook design in the given form of its
// era (kernel.RethookFormFor: pool, order of the entry, entry data).
func (s Scenario) RunForm(a *regs.Arch, hdr ftrace.HeaderEncoding, design ftrace.FprobeDesign, form ftrace.RethookEra, watch func(h *harness.Harness)) (Outcome, error) {
	return s.run1(a, hdr, design, form, ftrace.DispatchMerged, watch)
}

// RunDispatch is RunWatched with the fgraph tracer in the given dispatch
// form (ftrace.GraphDispatch: the merged one, or the v5-v9 drafts'
// per-user ftrace_ops or loop); every scenario runs under each.
func (s Scenario) RunDispatch(a *regs.Arch, hdr ftrace.HeaderEncoding, dispatch ftrace.GraphDispatch, watch func(h *harness.Harness)) (Outcome, error) {
	return s.run1(a, hdr, ftrace.DesignFgraph, ftrace.RethookV613, dispatch, watch)
}

func (s Scenario) run1(a *regs.Arch, hdr ftrace.HeaderEncoding, design ftrace.FprobeDesign, form ftrace.RethookEra, dispatch ftrace.GraphDispatch, watch func(h *harness.Harness)) (Outcome, error) {
	if design != ftrace.DesignFgraph && !s.Designs {
		return Outcome{}, fmt.Errorf("scenario %s runs on the fgraph design only (--fprobe fgraph); the ones for both are %s", s.Name, strings.Join(DesignNames(), ", "))
	}
	if design != ftrace.DesignFgraph && design != ftrace.DesignRethook {
		return Outcome{}, fmt.Errorf("scenario %s: fprobe design %v: want rethook or fgraph", s.Name, design)
	}
	if a == nil {
		return Outcome{}, fmt.Errorf("scenario %s: no architecture", s.Name)
	}
	out := Outcome{Scenario: s.Name, Arch: a.Name, Header: "n/a", Design: design.String(), Dispatch: dispatch.String(), Counters: map[string]int64{},
		Warnings: []string{}, Findings: []string{}}
	switch {
	case s.FixedHeader != "":
		out.Header = s.FixedHeader
	case s.UsesHeader:
		out.Header = hdr.String()
	}
	if design == ftrace.DesignRethook {
		out.Header = "n/a" // no shadow-stack header on rethook
	}
	r := &runCtx{out: &out, a: a, hdr: hdr, design: design, form: form, dispatch: dispatch, name: s.Name, watch: watch}
	defer r.close()
	err := s.run(r)
	var se setupError
	if errors.As(err, &se) {
		return out, fmt.Errorf("scenario %s on %s: %w", s.Name, a.Name, se.err)
	}
	if err != nil {
		r.failf("scenario stopped early: %v", err)
	}
	r.finish()
	out.OK = len(out.Findings) == 0
	return out, nil
}

// WriteJSON writes the outcome as one indented JSON object.
func (o Outcome) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(o)
}

// WriteText writes the outcome for people: status line, counters sorted by
// name, shadow-stack words, warnings and findings.
func (o Outcome) WriteText(w io.Writer) error {
	status := "ok"
	if !o.OK {
		status = fmt.Sprintf("FAILED (%d finding%s)", len(o.Findings), plural(len(o.Findings)))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "scenario %s on %s, fprobe header %s: %s\n", o.Scenario, o.Arch, o.Header, status)
	names := make([]string, 0, len(o.Counters))
	width := 0
	for k := range o.Counters {
		names = append(names, k)
		width = max(width, len(k))
	}
	sort.Strings(names)
	b.WriteString("counters:\n")
	for _, k := range names {
		fmt.Fprintf(&b, "  %-*s %d\n", width, k, o.Counters[k])
	}
	fmt.Fprintf(&b, "shadow-stack words per traced call: %.2f\n", o.ShadowWordsPerCall)
	list := func(title string, items []string) {
		if len(items) == 0 {
			fmt.Fprintf(&b, "%s: none\n", title)
			return
		}
		fmt.Fprintf(&b, "%s:\n", title)
		for _, s := range items {
			fmt.Fprintf(&b, "  - %s\n", s)
		}
	}
	list("warnings", o.Warnings)
	list("findings", o.Findings)
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteList writes the scenario names with their doc lines.
func WriteList(w io.Writer) error {
	width := 0
	for _, s := range all {
		width = max(width, len(s.Name))
	}
	var b strings.Builder
	for _, s := range all {
		tag := ""
		if s.UsesHeader {
			tag = " [--header applies]"
		}
		fmt.Fprintf(&b, "%-*s  %s%s\n", width, s.Name, s.Doc, tag)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
