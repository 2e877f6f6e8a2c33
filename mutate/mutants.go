package mutate

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"trampemu/asm"
	"trampemu/harness"
	"trampemu/regs"
)

// Kinds of mutation.
const (
	KindDelete       = "delete"
	KindRegister     = "register"
	KindDisplacement = "displacement"
	KindImmediate    = "immediate"
	KindSwap         = "swap"
	KindBranch       = "branch"
)

// Mutant is one edit of a trampoline's source: Header is "" for the .S
// itself, else the name of the header (of Tramp.Headers) edited.
type Mutant struct {
	Kind   string
	File   string // as the report names it: the source's name, or the header's path next to it
	Line   int    // 1-based
	Desc   string // what changed, e.g. "%rcx -> %rdx in `movq %rcx, RSP(%rsp)`"
	Header string
	Text   []byte // the whole edited file
}

// Where is "file:line".
func (m Mutant) Where() string { return fmt.Sprintf("%s:%d", m.File, m.Line) }

// Mutation is the kind and the description, e.g. "delete `subq $5, %rdi`".
func (m Mutant) Mutation() string { return m.Kind + ": " + m.Desc }

// Apply returns t with the mutant's edit. Each source of a pairing is
// built with its own headers (harness.Setup.BuildWith), so a header edit
// reaches t alone, never its partner.
func (m Mutant) Apply(t harness.Tramp) harness.Tramp {
	if m.Header == "" {
		t.Source.Text = m.Text
		return t
	}
	h := make(map[string][]byte, len(t.Headers)+1)
	for k, v := range t.Headers {
		h[k] = v
	}
	h[m.Header] = m.Text
	t.Headers = h
	return t
}

// Mutants returns every mutant of t's source and headers: the instruction
// lines are those the preprocessed text has instructions on (see the
// package doc). Their order is stable (file, line, kind).
func Mutants(a *regs.Arch, t harness.Tramp) ([]Mutant, error) {
	h := hooks[a.Name]
	if h == nil {
		return nil, fmt.Errorf("mutate: no mutation rules for %s", a.Name)
	}
	pre, err := asm.Preprocess(asm.Options{Arch: a, Headers: t.Headers, IncludeDirs: t.IncludeDirs}, t.Source)
	if err != nil {
		return nil, err
	}
	mutable := map[string]bool{t.Source.Name: true}
	for name := range t.Headers {
		mutable[name] = true
	}
	classes := classify(pre, mutable)
	keepRole(classes, pre, t)
	var files []string
	for f := range classes {
		files = append(files, f)
	}
	sort.Strings(files)
	var out []Mutant
	for _, f := range files {
		text, header, shown := t.Source.Text, "", f
		if f != t.Source.Name {
			text, header, shown = t.Headers[f], f, path.Join(path.Dir(t.Source.Name), f)
		}
		out = append(out, fileMutants(h, classes[f], text, header, shown)...)
	}
	return out, nil
}

// fileMutants makes the mutants of one file.
func fileMutants(h *archHooks, cl fileLines, text []byte, header, shown string) []Mutant {
	lines := strings.Split(string(text), "\n")
	var out []Mutant
	add := func(kind string, line int, desc string, edited []string) {
		out = append(out, Mutant{Kind: kind, File: shown, Line: line, Desc: desc, Header: header,
			Text: []byte(strings.Join(edited, "\n"))})
	}
	with := func(i int, s string) []string {
		e := append([]string(nil), lines...)
		e[i] = s
		return e
	}
	for i, l := range lines {
		n := i + 1
		if cl.class(n) != lineInsn {
			continue
		}
		code, comment := splitComment(l)
		shownCode := strings.Join(strings.Fields(code), " ")
		add(KindDelete, n, fmt.Sprintf("delete `%s`", shownCode), with(i, ""))
		lead, mnem, ops := parseInsn(code)
		// Registers: each occurrence replaced by the next of its width.
		for _, loc := range h.register.FindAllStringIndex(code, -1) {
			r := code[loc[0]:loc[1]]
			if rep := h.replacement(r); rep != "" {
				add(KindRegister, n, fmt.Sprintf("%s -> %s in `%s`", r, rep, shownCode),
					with(i, code[:loc[0]]+rep+code[loc[1]:]+comment))
			}
		}
		// Displacements: ±8 (x86-64, s390x: before each "(%").
		for _, e := range h.displacements(code) {
			for _, d := range []string{e.plus, e.minus} {
				add(KindDisplacement, n, fmt.Sprintf("displacement %s in `%s`", dispDelta(d), shownCode),
					with(i, code[:e.pos]+d+code[e.pos:]+comment))
			}
		}
		if mnem == "" {
			continue
		}
		// Immediates: ±8, and ±1 for a size.
		if !h.branch(mnem) {
			deltas := []string{"+8", "-8"}
			if h.sizeOp(mnem) {
				deltas = append(deltas, "+1", "-1")
			}
			for _, k := range h.immediates(mnem, operandTexts(code, ops)) {
				o := ops[k]
				for _, d := range deltas {
					add(KindImmediate, n, fmt.Sprintf("immediate %s%s in `%s`", strings.TrimSpace(code[o[0]:o[1]]), d, shownCode),
						with(i, code[:o[1]]+d+code[o[1]:]+comment))
				}
			}
		}
		// A conditional branch inverted.
		if inv := h.invert(mnem); inv != "" {
			add(KindBranch, n, fmt.Sprintf("%s -> %s in `%s`", mnem, inv, shownCode),
				with(i, code[:lead]+inv+code[lead+len(mnem):]+comment))
		}
	}
	// Two adjacent instruction lines swapped: only blank or comment lines
	// between them (no label, directive or #if).
	prev := -1
	for i, l := range lines {
		n := i + 1
		switch {
		case cl.class(n) == lineInsn:
			if prev >= 0 {
				e := append([]string(nil), lines...)
				e[prev], e[i] = e[i], e[prev]
				a, _ := splitComment(lines[prev])
				b, _ := splitComment(l)
				add(KindSwap, prev+1, fmt.Sprintf("swap `%s` with `%s` (line %d)",
					strings.Join(strings.Fields(a), " "), strings.Join(strings.Fields(b), " "), n), e)
			}
			prev = i
		case !blankOrComment(l):
			prev = -1
		}
	}
	return out
}

// splitComment splits a line into its code and a trailing /* */ or //
// comment (kept as is).
func splitComment(l string) (code, comment string) {
	for _, c := range []string{"/*", "//"} {
		if p := strings.Index(l, c); p >= 0 {
			return l[:p], l[p:]
		}
	}
	return l, ""
}

func blankOrComment(l string) bool {
	t := strings.TrimSpace(l)
	return t == "" || strings.HasPrefix(t, "/*") || strings.HasPrefix(t, "*") || strings.HasPrefix(t, "//")
}

// parseInsn finds the mnemonic of code (after labels) and its operands as
// [start, end) ranges of code, split at commas outside parentheses.
func parseInsn(code string) (lead int, mnem string, ops [][2]int) {
	i := 0
	for {
		for i < len(code) && (code[i] == ' ' || code[i] == '\t') {
			i++
		}
		loc := labelRE.FindStringIndex(code[i:])
		if loc == nil {
			break
		}
		i += loc[1]
	}
	j := i
	for j < len(code) && code[j] != ' ' && code[j] != '\t' {
		j++
	}
	lead, mnem = i, code[i:j]
	if strings.ContainsAny(mnem, ";") {
		return lead, "", nil
	}
	start, depth := j, 0
	for k := j; k <= len(code); k++ {
		if k == len(code) || (code[k] == ',' && depth == 0) {
			s, e := start, k
			for s < e && (code[s] == ' ' || code[s] == '\t') {
				s++
			}
			for e > s && (code[e-1] == ' ' || code[e-1] == '\t') {
				e--
			}
			if e > s {
				ops = append(ops, [2]int{s, e})
			}
			start = k + 1
			continue
		}
		switch code[k] {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		}
	}
	return lead, mnem, ops
}

func operandTexts(code string, ops [][2]int) []string {
	out := make([]string, len(ops))
	for i, o := range ops {
		out[i] = code[o[0]:o[1]]
	}
	return out
}

// dispDelta is the delta a displacement edit makes, as the mutant names it
// ("+8", "-8"; arm64's ", #8" for a bare [base] is "+8").
func dispDelta(edit string) string {
	d := strings.TrimPrefix(strings.TrimSpace(strings.TrimPrefix(edit, ",")), "#")
	if !strings.HasPrefix(d, "-") && !strings.HasPrefix(d, "+") {
		d = "+" + d
	}
	return d
}
