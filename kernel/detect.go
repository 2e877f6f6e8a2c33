package kernel

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"trampemu/ftrace"
	"trampemu/trampolines"
)

// Evidence is what a trampoline file shows of its era; empty fields say
// nothing.
type Evidence struct {
	Graph   trampolines.GraphEntry
	ExitABI trampolines.ExitABI
	// Prepare is how ftrace_graph_caller calls prepare_ftrace_return.
	Prepare ftrace.PrepareABI
	// WithArgs, RegsAliased and PtRegs: "" unknown, "yes", "no".
	WithArgs, RegsAliased, PtRegs string
	// Since is the first version whose file has a construct the text uses
	// (zero: nothing dated); a model whose era ends before it does not fit.
	// Until is the last version whose file lacks a construct the text
	// lacks (zero: none); a model whose era starts after it does not fit.
	Since, Until Version
	// Entry and Exit: the file defines ftrace_caller / return_to_handler.
	Entry, Exit bool
	Reasons     []string
}

func (e *Evidence) note(s string) { e.Reasons = append(e.Reasons, s) }

// fits reports whether the model agrees with every piece of evidence.
func (e *Evidence) fits(m *Model) bool {
	switch {
	case e.Graph != "" && e.Graph != m.Graph:
		return false
	case e.ExitABI != "" && e.ExitABI != m.ExitABI:
		return false
	case e.Prepare != ftrace.PrepareUnknown && e.Prepare != m.Prepare:
		return false
	case e.WithArgs != "" && (e.WithArgs == "yes") != m.WithArgs:
		return false
	case e.RegsAliased != "" && (e.RegsAliased == "yes") != m.RegsAliased:
		return false
	case e.PtRegs != "" && (e.PtRegs == "yes") != m.PtRegs:
		return false
	case m.To != (Version{}) && m.To.Less(e.Since):
		return false
	case e.Until != (Version{}) && e.Until.Less(m.From):
		return false
	}
	return true
}

// since notes a construct first seen in version v.
func (e *Evidence) since(v Version) {
	if e.Since.Less(v) {
		e.Since = v
	}
}

// until notes a construct every file after version v has, absent here.
func (e *Evidence) until(v Version) {
	if e.Until == (Version{}) || v.Less(e.Until) {
		e.Until = v
	}
}

// detectors hold each arch's reading of a file (x86_64.go, s390x.go, arm64.go).
var detectors = map[string]func(src string) Evidence{}

// Choice is the model a check uses and why.
type Choice struct {
	Model  *Model
	Reason string
}

// Detect finds the model of a trampoline file from its text: the
// asm-offsets names it uses and how it calls the C side (which era's
// ftrace_return_to_handler, which graph entry path). When several models
// fit, the newest is taken and the reason says which others fit.
func Detect(arch string, text []byte) (Choice, error) {
	read, ok := detectors[arch]
	if !ok {
		return Choice{}, fmt.Errorf("no kernel models for arch %s", arch)
	}
	src := stripComments(string(text))
	ev := read(src)
	if !ev.Entry && !ev.Exit {
		return Choice{}, fmt.Errorf("defines neither ftrace_caller nor return_to_handler (the %s models are %s)", arch, ModelNames(arch))
	}
	var fit []*Model
	for _, m := range ModelsOf(arch) {
		if ev.fits(m) {
			fit = append(fit, m)
		}
	}
	if len(fit) == 0 {
		return Choice{}, fmt.Errorf("fits no %s kernel model (%s); the models are %s; choose one with --kernel vX.Y",
			arch, strings.Join(ev.Reasons, "; "), ModelNames(arch))
	}
	m := fit[len(fit)-1]
	why := strings.Join(ev.Reasons, "; ")
	if why == "" {
		why = "it uses none of the asm-offsets names, graph entry paths or return_to_handler arguments that tell the eras apart"
	}
	reason := "detected from the file: " + why
	if len(fit) > 1 {
		var others []string
		for _, o := range fit[:len(fit)-1] {
			others = append(others, o.Name)
		}
		reason += fmt.Sprintf(" (also fits %s; the newest is taken, --kernel chooses)", strings.Join(others, ", "))
	}
	return Choice{Model: m, Reason: reason}, nil
}

// Choose returns the model for an explicit version (--kernel, a tree's
// Makefile).
func Choose(arch string, v Version, why string) (Choice, error) {
	m, err := ModelFor(arch, v)
	if err != nil {
		return Choice{}, err
	}
	return Choice{Model: m, Reason: fmt.Sprintf("%s %s", why, v)}, nil
}

var (
	blockComment = regexp.MustCompile(`(?s)/\*.*?\*/`)
)

// stripComments drops C comments and assembler '#' comments (but keeps
// preprocessor lines).
func stripComments(s string) string {
	s = blockComment.ReplaceAllString(s, " ")
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "# ") && !isDirective(t) {
			continue // s390x mcount.S writes comments as "# ..."
		}
		if i := strings.Index(l, "//"); i >= 0 {
			l = l[:i]
		}
		b.WriteString(l)
		b.WriteByte('\n')
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

// defines reports whether src defines the symbol as code: a SYM_* start,
// an ENTRY(), GLOBAL(), an inner label, or a plain label.
func defines(src, sym string) bool {
	return compiled(`(?m)(SYM_(FUNC|CODE)_START[A-Z_]*\(\s*` + sym + `\s*\)|SYM_INNER_LABEL[A-Z_]*\(\s*` + sym +
		`\s*,|\b(ENTRY|GLOBAL|WEAK)\(\s*` + sym + `\s*\)|^\s*` + sym + `:)`).MatchString(src)
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

// body returns the text from sym's definition to the first line matching
// end (or 60 lines), "" when sym is not defined.
func body(src, sym string, end *regexp.Regexp) string {
	re := compiled(`(?m)(SYM_(FUNC|CODE)_START[A-Z_]*\(\s*` + sym + `\s*\)|\b(ENTRY|GLOBAL)\(\s*` + sym + `\s*\)|^\s*` + sym + `:)`)
	loc := re.FindStringIndex(src)
	if loc == nil {
		return ""
	}
	rest := src[loc[1]:]
	lines := strings.SplitAfter(rest, "\n")
	var b strings.Builder
	for i, l := range lines {
		if i >= 60 {
			break
		}
		b.WriteString(l)
		if end != nil && end.MatchString(l) {
			break
		}
	}
	return b.String()
}
