package kernel

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"trampemu/ftrace"
	"trampemu/trampolines"
)

// Evidence is what a trampoline file shows of its kernel: each property it
// decides (an empty field says nothing) and where it says so.
type Evidence struct {
	Graph   trampolines.GraphEntry
	ExitABI trampolines.ExitABI
	// Prepare is how ftrace_graph_caller calls prepare_ftrace_return.
	Prepare ftrace.PrepareABI
	// WithArgs, RegsAliased, PtRegs, Direct and CallOps: "" unknown, "yes",
	// "no".
	WithArgs, RegsAliased, PtRegs, Direct, CallOps string
	// Site is the call-site form the entry's code expects ("" unknown or
	// the arch's only form).
	Site trampolines.CallSite
	// Pg: "yes" when the entry is reached from gcc's -pg call site
	// (Model.Pg), "no" when from a patchable entry, "" unknown.
	Pg string
	// Entry and Exit: the file defines ftrace_caller / return_to_handler.
	Entry, Exit bool
	Reasons     []string
	// Cited holds, per property name (Prop*), the evidence for it: what
	// the file has and where (file:line).
	Cited map[string]string
	// Offsets are the asm-offsets names the file uses, in order of first
	// use, and where the first is.
	Offsets      []string
	OffsetsWhere string
}

func (e *Evidence) note(s string) { e.Reasons = append(e.Reasons, s) }

// decide records that the file decides property name: why goes into the
// reason, why with the construct and its place into the property.
func (e *Evidence) decide(name, why, where string) {
	e.note(why)
	if e.Cited == nil {
		e.Cited = map[string]string{}
	}
	ev := why
	if where != "" {
		ev += ": " + where
	}
	if old, ok := e.Cited[name]; ok {
		ev = old + "; " + ev
	}
	e.Cited[name] = ev
}

// fitsEntry reports whether the model agrees with what the file's entry
// trampolines show.
func (e *Evidence) fitsEntry(m *Model) bool {
	switch {
	case e.Graph != "" && e.Graph != m.Graph:
		return false
	case e.Prepare != ftrace.PrepareUnknown && e.Prepare != m.Prepare:
		return false
	case e.WithArgs != "" && (e.WithArgs == "yes") != m.WithArgs:
		return false
	case e.RegsAliased != "" && (e.RegsAliased == "yes") != m.RegsAliased:
		return false
	case e.PtRegs != "" && (e.PtRegs == "yes") != m.PtRegs:
		return false
	case e.Direct != "" && (e.Direct == "yes") != (m.Config[optDirect] == "y"):
		return false
	case e.CallOps != "" && (e.CallOps == "yes") != (m.Config[optCallOps] == "y"):
		return false
	case e.Site != "" && !slices.Contains(m.Sites, e.Site):
		return false
	case e.Pg != "" && (e.Pg == "yes") != m.Pg:
		return false
	}
	return true
}

// fitsExit reports whether the model agrees with what the file's
// return_to_handler shows.
func (e *Evidence) fitsExit(m *Model) bool {
	return e.ExitABI == "" || e.ExitABI == m.ExitABI
}

// fits reports whether the model agrees with every piece of evidence.
func (e *Evidence) fits(m *Model) bool { return e.fitsEntry(m) && e.fitsExit(m) }

// detectors hold each arch's reading of a file (x86_64.go, s390x.go, arm64.go).
var detectors = map[string]func(s *source) Evidence{}

// Choice is the model a check uses and why.
type Choice struct {
	Model  *Model
	Reason string
	// Properties are what the model is made of, each with its evidence:
	// the file's construct and place, or what decided it instead.
	Properties []Property
	// Makefile is the version of the tree's top Makefile the file was
	// judged in (zero: no tree).
	Makefile Version
	// Note says how the file and the Makefile's version disagree ("" when
	// they agree or there is no tree).
	Note string
	// Site is the call-site form the trampolines are entered from: the
	// file's own (Evidence.Site), else the model's usual one ("" for an
	// arch with one form).
	Site trampolines.CallSite
	// KnownBugs are the model's known kernel bugs this file has
	// (KnownBugsIn): findings that are one of them do not fail the check.
	KnownBugs []KnownBug
}

// Detect finds the model of a trampoline file from its text alone (see
// Resolve); errors name no file.
func Detect(arch string, text []byte) (Choice, error) {
	return Resolve(arch, "", text, Version{})
}

// read runs the arch's detector on a file.
func read(arch, name string, text []byte) (*source, Evidence, error) {
	detect, ok := detectors[arch]
	if !ok {
		return nil, Evidence{}, fmt.Errorf("no kernel models for arch %s", arch)
	}
	s := &source{name: name, text: stripComments(string(text))}
	ev := detect(s)
	ev.Offsets, ev.OffsetsWhere = s.offsetsUsed(arch)
	return s, ev, nil
}

// Choose returns the model for an explicit version (--kernel), which
// forces every property; the file's text, when given, adds what it says
// to each property's evidence.
func Choose(arch string, v Version, why string) (Choice, error) {
	m, err := ModelFor(arch, v)
	if err != nil {
		return Choice{}, err
	}
	c := Choice{Model: m, Reason: fmt.Sprintf("%s %s", why, v)}
	if len(m.Sites) > 0 {
		c.Site = m.Sites[0]
	}
	c.Properties = properties(arch, m, Evidence{}, fmt.Sprintf("%s %s forces it", why, v), fromKernel)
	return c, nil
}

// WithFileEvidence adds to forced properties (Choose) what the file
// says of each and the asm-offsets names it uses.
func WithFileEvidence(arch, name string, text []byte, props []Property) []Property {
	_, ev, err := read(arch, name, text)
	if err != nil {
		return props
	}
	out := append([]Property(nil), props...)
	for i, p := range out {
		if cited, ok := ev.Cited[p.Name]; ok {
			out[i].Evidence += "; the file: " + cited
		}
		if p.Name == PropOffsets {
			out[i] = offsetsProperty(ev)
		}
	}
	return out
}

var (
	blockComment = regexp.MustCompile(`(?s)/\*.*?\*/`)
)

// stripComments blanks C comments and assembler '#' comments (but keeps
// preprocessor lines), keeping every line where it was.
func stripComments(s string) string {
	s = blockComment.ReplaceAllStringFunc(s, func(c string) string {
		return strings.Repeat("\n", strings.Count(c, "\n")) + " "
	})
	var b strings.Builder
	for i, l := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "# ") && !isDirective(t) {
			continue // s390x mcount.S writes comments as "# ..."
		}
		if i := strings.Index(l, "//"); i >= 0 {
			l = l[:i]
		}
		b.WriteString(l)
	}
	return b.String()
}

func isDirective(t string) bool {
	t = strings.TrimSpace(strings.TrimPrefix(t, "#"))
	for _, d := range []string{"if", "ifdef", "ifndef", "else", "elif", "endif", "define", "undef", "include", "error", "warning"} {
		if strings.HasPrefix(t, d+" ") || t == d {
			return true
		}
	}
	return false
}

// source is a trampoline file's text with its comments blanked, every
// line where it was, so that an offset names the file's line.
type source struct {
	name, text string
}

// at renders the place of offset off: "file:line" (or "line N").
func (s *source) at(off int) string {
	if off < 0 {
		return ""
	}
	if off > len(s.text) {
		off = len(s.text)
	}
	n := 1 + strings.Count(s.text[:off], "\n")
	if s.name == "" {
		return fmt.Sprintf("line %d", n)
	}
	return fmt.Sprintf("%s:%d", s.name, n)
}

// cite renders the line at offset off and its place: "`movq %rbp, %rdi`
// (F.S:42)".
func (s *source) cite(off int) string {
	if off < 0 || off > len(s.text) {
		return ""
	}
	for off < len(s.text) && strings.IndexByte(" \t\n", s.text[off]) >= 0 {
		off++ // a (?m)^\s* match starts on the line before
	}
	start := strings.LastIndexByte(s.text[:off], '\n') + 1
	end := strings.IndexByte(s.text[off:], '\n')
	if end < 0 {
		end = len(s.text) - off
	}
	line := strings.Join(strings.Fields(s.text[start:off+end]), " ")
	return fmt.Sprintf("`%s` (%s)", line, s.at(off))
}

// find returns the offset of re's first match in text[from:to] (to < 0:
// to the end), or -1.
func (s *source) find(re *regexp.Regexp, from, to int) int {
	if from < 0 {
		return -1
	}
	if to < 0 || to > len(s.text) {
		to = len(s.text)
	}
	loc := re.FindStringIndex(s.text[from:to])
	if loc == nil {
		return -1
	}
	return from + loc[0]
}

// findStr is find for a plain string.
func (s *source) findStr(sub string, from, to int) int {
	return s.find(compiled(regexp.QuoteMeta(sub)), from, to)
}

// def returns the offset of sym's definition as code: a SYM_* start, an
// ENTRY(), GLOBAL(), an inner label, or a plain label; -1 when none.
func (s *source) def(sym string) int {
	return s.find(compiled(`(?m)(SYM_(FUNC|CODE)_START[A-Z_]*\(\s*`+sym+`\s*\)|SYM_INNER_LABEL[A-Z_]*\(\s*`+sym+
		`\s*,|\b(ENTRY|GLOBAL|WEAK)\(\s*`+sym+`\s*\)|^\s*`+sym+`:)`), 0, -1)
}

// defines reports whether the file defines sym as code.
func (s *source) defines(sym string) bool { return s.def(sym) >= 0 }

// body returns the range from sym's definition (a SYM_* start or inner
// label, ENTRY(), GLOBAL(), a plain label) to the end of the first line
// matching end (or 60 lines); from < 0 when sym is not defined.
func (s *source) body(sym string, end *regexp.Regexp) (from, to int) { return s.bodyN(sym, end, 60) }

// bodyN is body up to n lines.
func (s *source) bodyN(sym string, end *regexp.Regexp, n int) (from, to int) {
	re := compiled(`(?m)(SYM_(FUNC|CODE)_START[A-Z_]*\(\s*` + sym + `\s*\)|SYM_INNER_LABEL[A-Z_]*\(\s*` + sym +
		`\s*,|\b(ENTRY|GLOBAL)\(\s*` + sym + `\s*\)|^\s*` + sym + `:)`)
	loc := re.FindStringIndex(s.text)
	if loc == nil {
		return -1, -1
	}
	from, to = loc[0], loc[1]
	for i := 0; i < n && to < len(s.text); i++ {
		nl := strings.IndexByte(s.text[to:], '\n')
		next := len(s.text)
		if nl >= 0 {
			next = to + nl + 1
		}
		line := s.text[to:next]
		to = next
		if end != nil && end.MatchString(line) {
			break
		}
	}
	return from, to
}

// bodyText is the text of body.
func (s *source) bodyText(sym string, end *regexp.Regexp) string {
	from, to := s.body(sym, end)
	if from < 0 {
		return ""
	}
	return s.text[from:to]
}

var regexps sync.Map // pattern -> *regexp.Regexp

// compiled returns the pattern compiled once per process.
func compiled(pattern string) *regexp.Regexp {
	if re, ok := regexps.Load(pattern); ok {
		return re.(*regexp.Regexp)
	}
	re := regexp.MustCompile(pattern)
	regexps.Store(pattern, re)
	return re
}
