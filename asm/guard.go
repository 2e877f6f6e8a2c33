package asm

import (
	"bytes"
	"errors"
	"fmt"
	"math/big"
	"math/bits"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// A .S from a mailing list is untrusted: it may name any file the user can
// read (#include "/etc/shadow", .incbin "/etc/hostname") and print it back
// as instructions, or make cpp or as explode. Before cpp runs, every
// #include of the source and of the headers it reaches is resolved here as
// cpp would and refused when it is absolute, climbs with .., is computed
// by a macro or resolves (symbolic links followed) outside the folders the
// source may read: the tool's generated headers, the source's own folder
// and its include folders. cpp's output is checked again (every file it
// entered, by its linemarkers) and, before as runs, the assembler's own
// file directives (.incbin, .include: a plain name inside the source's
// folder only) and its repetitions and fills (bounded by MaxUnitText when
// their counts are literal; the sandbox's limits bound the rest).

// MaxUnitText bounds the code of one source group (Image.Units) and every
// literal .fill, .skip or .rept in a source. A kernel trampoline file is
// well under 1 KiB of text: trampemu asm of tests/testdata/kernel's
// x86_64_v6.14.S, s390x_v6.14.S and arm64_v6.14.S lists 693, 368 and 264
// bytes; 256 KiB is far above any of them and below a guest text region
// (1 MiB, regs).
const MaxUnitText = 256 << 10

// maxHeader bounds one header file read while resolving includes.
const maxHeader = 16 << 20

var (
	includeLine = regexp.MustCompile(`^\s*#\s*(include_next|include|import|embed)\b\s*(.*)$`)
	hasInclude  = regexp.MustCompile(`__has_include(?:_next)?\s*\(\s*([^)]*)\)`)
)

// refusal is one refused directive: its file, line and reason.
func refusal(stage, file string, line int, format string, args ...any) error {
	return &Error{Stage: stage, Refused: true, Messages: []string{fmt.Sprintf("%s:%d: %s", file, line, fmt.Sprintf(format, args...))}}
}

// includeName reads the operand of #include: "name" or <name>; quoted
// says which. ok is false for anything else (a macro).
func includeName(arg string) (name string, quoted, ok bool) {
	arg = strings.TrimSpace(arg)
	if len(arg) < 2 {
		return "", false, false
	}
	switch arg[0] {
	case '"':
		if end := strings.IndexByte(arg[1:], '"'); end >= 0 {
			return arg[1 : 1+end], true, true
		}
	case '<':
		if end := strings.IndexByte(arg, '>'); end >= 0 {
			return arg[1:end], false, true
		}
	}
	return "", false, false
}

// badName says why an include name is refused ("" when it is not): an
// absolute path, a .. component, or a character cpp would read as an
// escape.
func badName(name string) string {
	switch {
	case name == "":
		return "an empty name"
	case filepath.IsAbs(name):
		return "an absolute path"
	case strings.ContainsAny(name, "\\\x00\n"):
		return "a backslash or control character in the name"
	}
	for _, p := range strings.Split(name, "/") {
		if p == ".." {
			return "it climbs out with .."
		}
	}
	return ""
}

// includeGuard resolves a source's includes as cpp will.
type includeGuard struct {
	stage string
	// gen is the generated include folder (trusted, the tool's own);
	// quote the folders searched first for "name" (the source's folder),
	// dirs the -I folders after gen.
	gen         string
	quote, dirs []string
	roots       []string // the real paths the source may read below
	seen        map[string]bool
}

func newIncludeGuard(stage, gen string, s Source, opt Options) *includeGuard {
	g := &includeGuard{stage: stage, gen: gen, seen: map[string]bool{}}
	if s.Dir != "" {
		g.quote = []string{s.Dir}
	}
	g.dirs = append(append([]string{}, s.IncludeDirs...), opt.IncludeDirs...)
	for _, d := range append(append([]string{}, g.quote...), g.dirs...) {
		if real, err := filepath.EvalSymlinks(d); err == nil {
			if abs, err := filepath.Abs(real); err == nil {
				g.roots = append(g.roots, abs)
			}
		}
	}
	return g
}

// inRoots reports whether a real, absolute path is inside a root.
func (g *includeGuard) inRoots(real string) bool {
	for _, r := range g.roots {
		if rel, err := filepath.Rel(r, real); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return true
		}
	}
	return false
}

// check scans text (from file, shown as name; dir is its folder, "" for
// a text of no folder of the user's) and every header it reaches in the
// source's folders; chain holds the real paths of the files that
// include it.
func (g *includeGuard) check(name, dir string, text []byte, chain []string) error {
	for i, l := range strings.Split(string(text), "\n") {
		n := i + 1
		var args []string
		if m := includeLine.FindStringSubmatch(l); m != nil {
			if m[1] == "embed" || m[1] == "import" {
				return refusal(g.stage, name, n, "#%s: refused (use #include of a header in the file's folder)", m[1])
			}
			args = append(args, m[2])
		}
		for _, m := range hasInclude.FindAllStringSubmatch(l, -1) {
			args = append(args, m[1])
		}
		for _, arg := range args {
			inc, quoted, ok := includeName(arg)
			if !ok {
				return refusal(g.stage, name, n, "#include %s is computed by a macro: refused (name the header in quotes)", strings.TrimSpace(arg))
			}
			if why := badName(inc); why != "" {
				return refusal(g.stage, name, n, "#include %q: %s: refused (include files from the file's own folder)", inc, why)
			}
			path, err := g.resolve(inc, quoted, dir)
			if err != nil {
				return refusal(g.stage, name, n, "#include %q: %v: refused (include files from the file's own folder)", inc, err)
			}
			if path == "" {
				continue // the tool's own header, or one nowhere (a stand-in or cpp's error)
			}
			for _, c := range chain {
				if c == path {
					return refusal(g.stage, name, n, "#include %q includes itself (%s): refused", inc, path)
				}
			}
			if g.seen[path] {
				continue
			}
			g.seen[path] = true
			st, err := os.Stat(path)
			if err != nil || !st.Mode().IsRegular() || st.Size() > maxHeader {
				return refusal(g.stage, name, n, "#include %q: %s is not a regular file of at most %d MiB: refused", inc, path, maxHeader>>20)
			}
			sub, err := os.ReadFile(path)
			if err != nil {
				return refusal(g.stage, name, n, "#include %q: %v", inc, err)
			}
			if err := g.check(path, filepath.Dir(path), sub, append(chain, path)); err != nil {
				return err
			}
		}
	}
	return nil
}

// resolve finds an include as cpp searches for it: for "name" the
// including file's folder, then the source's folder (-iquote); then the
// generated headers and the -I folders. It returns the real path of a
// file in the source's folders, "" for one of the tool's own headers or
// one that is nowhere, and an error for a file that resolves outside the
// folders the source may read.
func (g *includeGuard) resolve(name string, quoted bool, dir string) (string, error) {
	var search []string
	if quoted {
		if dir != "" {
			search = append(search, dir)
		}
		search = append(search, g.quote...)
	}
	search = append(search, g.gen)
	search = append(search, g.dirs...)
	for _, d := range search {
		if d == "" {
			continue
		}
		p := filepath.Join(d, name)
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		if d == g.gen {
			return "", nil
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return "", fmt.Errorf("%s is a symbolic link that does not resolve", p)
		}
		if real, err = filepath.Abs(real); err != nil {
			return "", err
		}
		if !g.inRoots(real) {
			return "", fmt.Errorf("it resolves outside the file's folders (to %s)", real)
		}
		return real, nil
	}
	return "", nil
}

var lineMarker = regexp.MustCompile(`^# \d+ ("(?:[^"\\]|\\.)*")((?: \d)*)\s*$`)

// checkEntered refuses cpp output that entered a file outside the build's
// folder and the source's folders (a linemarker with flag 1): a second
// line of defence behind includeGuard.check.
func (g *includeGuard) checkEntered(pre []byte, build, src string) error {
	for _, l := range bytes.Split(pre, []byte("\n")) {
		if len(l) < 3 || l[0] != '#' {
			continue
		}
		m := lineMarker.FindSubmatch(l)
		if m == nil || !bytes.Contains(m[2], []byte(" 1")) {
			continue
		}
		name, err := strconv.Unquote(string(m[1]))
		if err != nil {
			return refusal(g.stage, src, 1, "cpp's output has an unreadable linemarker %s: refused", m[1])
		}
		real, err := filepath.EvalSymlinks(name)
		if err != nil {
			real = name
		}
		real, _ = filepath.Abs(real)
		b, _ := filepath.EvalSymlinks(build)
		if rel, err := filepath.Rel(b, real); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			continue
		}
		if !g.inRoots(real) {
			return refusal(g.stage, src, 1, "cpp entered %s, outside the file's folders: refused", name)
		}
	}
	return nil
}

// checkDeps reads the dependency file as --MD wrote and refuses any file
// it read other than its input (pre) outside dir, the source's folder.
// The object is not used then: nothing read is shown.
func checkDeps(stage, name, dir, pre, deps string) error {
	b, err := os.ReadFile(deps)
	if err != nil {
		return fmt.Errorf("asm: %s: as wrote no dependency file: %w", stage, err)
	}
	_, list, ok := strings.Cut(strings.ReplaceAll(string(b), "\\\n", " "), ": ")
	if !ok {
		return fmt.Errorf("asm: %s: an unreadable dependency file %q", stage, b)
	}
	var root string
	if dir != "" {
		if root, err = filepath.EvalSymlinks(dir); err != nil {
			return fmt.Errorf("asm: %s: %w", stage, err)
		}
	}
	for _, f := range strings.Fields(list) {
		if f == pre {
			continue
		}
		real, err := filepath.EvalSymlinks(f)
		if err == nil && root != "" {
			if rel, err := filepath.Rel(root, real); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
				continue
			}
		}
		return &Error{Stage: stage, Refused: true, Messages: []string{fmt.Sprintf(
			"%s: as read %s (a .incbin or .include), outside the source's folder: refused (an assembler file directive may name only a file in the source's own folder)", name, f)}}
	}
	return nil
}

// directive is one assembler statement: its file and line (from the
// linemarkers), its first word and the rest.
type directive struct {
	file      string
	line      int
	name, arg string
}

var labelPrefix = regexp.MustCompile(`^\s*(?:(?:[A-Za-z_.$][\w.$]*|\d+)\s*:\s*)*`)

// statements splits preprocessed text into statements with their source
// positions (linemarkers followed; ';' separates statements; strings
// kept whole).
func statements(pre []byte, name string) []directive {
	var out []directive
	file, line := name, 0
	for _, l := range strings.Split(string(pre), "\n") {
		line++
		if m := lineMarker.FindStringSubmatch(l); m != nil {
			if f, err := strconv.Unquote(m[1]); err == nil {
				file = f
			}
			n, _ := strconv.Atoi(strings.Fields(l)[1])
			line = n - 1
			continue
		}
		for _, st := range splitStatements(l) {
			st = labelPrefix.ReplaceAllString(st, "")
			st = strings.TrimSpace(st)
			if st == "" {
				continue
			}
			word, rest, _ := strings.Cut(st, " ")
			if i := strings.IndexAny(word, "\t\""); i >= 0 {
				word, rest = word[:i], word[i:]+" "+rest
			}
			out = append(out, directive{file: file, line: line, name: word, arg: strings.TrimSpace(rest)})
		}
	}
	return out
}

// splitStatements splits a line at ';' outside strings.
func splitStatements(l string) []string {
	var out []string
	start, inStr := 0, false
	for i := 0; i < len(l); i++ {
		switch l[i] {
		case '\\':
			if inStr {
				i++
			}
		case '"':
			inStr = !inStr
		case ';':
			if !inStr {
				out = append(out, l[start:i])
				start = i + 1
			}
		}
	}
	return append(out, l[start:])
}

// checkDirectives refuses, in preprocessed text, the assembler directives
// that read files outside the source's folder or that repeat or fill more
// than MaxUnitText by literal counts. dir is the source's folder ("" for
// an embedded text: no file directive at all). A directive a macro spells
// (".\a\()\b" with a = inc, b = bin) is not seen here: checkDeps, on the
// files as says it read, refuses it before its object is used.
func checkDirectives(stage, name, dir string, pre []byte, depth int) error {
	var stack []uint64 // counts of the open .rept/.irp
	product := func() uint64 {
		p := uint64(1)
		for _, c := range stack {
			p *= c
		}
		return p
	}
	for _, d := range statements(pre, name) {
		w := strings.ToLower(d.name)
		switch {
		case w == ".incbin" || w == ".include":
			if err := checkFileDirective(stage, d, w, dir, depth); err != nil {
				return err
			}
		case w == ".rept":
			n, ok := literal(d.arg)
			if !ok {
				n = 1 // not literal: the sandbox's limits bound it
			}
			if n > MaxUnitText || product()*max(n, 1) > MaxUnitText {
				return refusal(stage, d.file, d.line, ".rept %s repeats its body %s times in all, more than %d: refused", d.arg, repeatText(product(), n), MaxUnitText)
			}
			stack = append(stack, max(n, 1))
		case w == ".irp" || w == ".irpc" || w == ".macro":
			stack = append(stack, 1)
		case w == ".endr" || w == ".endm":
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case w == ".fill" || w == ".skip" || w == ".space" || w == ".zero" || w == ".ds" || w == ".org":
			args := strings.Split(d.arg, ",")
			n, ok := literal(args[0])
			if !ok {
				continue // not literal: the sandbox's limits bound it
			}
			size := uint64(1)
			if w == ".fill" && len(args) > 1 {
				if v, ok := literal(args[1]); ok {
					size = min(max(v, 1), 8) // as caps a .fill size at 8
				}
			}
			if n > MaxUnitText || product()*n*size > MaxUnitText {
				return refusal(stage, d.file, d.line, "%s %s makes %s bytes, more than the %d a trampoline's text may have: refused", d.name, d.arg, repeatText(product()*size, n), MaxUnitText)
			}
		}
	}
	return nil
}

// repeatText is p*n in decimal, exact even past 64 bits.
func repeatText(p, n uint64) string {
	hi, lo := bits.Mul64(p, n)
	if hi == 0 {
		return strconv.FormatUint(lo, 10)
	}
	return new(big.Int).Mul(new(big.Int).SetUint64(p), new(big.Int).SetUint64(n)).String()
}

// literal reads a plain integer (decimal, 0x hex, 0b binary, 0 octal).
func literal(s string) (uint64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 0, 64)
	if err != nil {
		// Too big to read: as big as it gets.
		var ne *strconv.NumError
		if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
			return ^uint64(0) >> 1, true
		}
		return 0, false
	}
	return n, true
}

// checkFileDirective allows .incbin "name" and .include "name" of a plain
// name inside dir only, and checks an included file's own directives.
func checkFileDirective(stage string, d directive, w, dir string, depth int) error {
	arg := strings.TrimSpace(d.arg)
	fix := "refused (an assembler file directive may name only a file in the source's own folder)"
	if dir == "" {
		return refusal(stage, d.file, d.line, "%s %s: %s", w, arg, fix)
	}
	if len(arg) < 2 || arg[0] != '"' {
		return refusal(stage, d.file, d.line, "%s %s: not a plain quoted name: %s", w, arg, fix)
	}
	end := strings.IndexByte(arg[1:], '"')
	if end < 0 {
		return refusal(stage, d.file, d.line, "%s %s: an unterminated name: %s", w, arg, fix)
	}
	name := arg[1 : 1+end]
	if why := badName(name); why != "" {
		return refusal(stage, d.file, d.line, "%s %q: %s: %s", w, name, why, fix)
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return refusal(stage, d.file, d.line, "%s %q: %v", w, name, err)
	}
	real, err := filepath.EvalSymlinks(filepath.Join(dir, name))
	if err != nil {
		return refusal(stage, d.file, d.line, "%s %q: not in the source's folder %s: %s", w, name, dir, fix)
	}
	if rel, err := filepath.Rel(root, real); err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return refusal(stage, d.file, d.line, "%s %q resolves outside the source's folder (to %s): %s", w, name, real, fix)
	}
	st, err := os.Stat(real)
	if err != nil || !st.Mode().IsRegular() || st.Size() > MaxUnitText {
		return refusal(stage, d.file, d.line, "%s %q: not a regular file of at most %d bytes: refused", w, name, MaxUnitText)
	}
	if w == ".include" {
		if depth > 20 {
			return refusal(stage, d.file, d.line, ".include nested deeper than 20: refused")
		}
		text, err := os.ReadFile(real)
		if err != nil {
			return refusal(stage, d.file, d.line, "%s %q: %v", w, name, err)
		}
		return checkDirectives(stage, real, dir, text, depth+1)
	}
	return nil
}

// checkSource runs the checks that need no program on a source's own
// text: its includes (without the generated headers) and its file,
// repetition and fill directives as written.
func checkSource(opt Options, s Source) error {
	g := newIncludeGuard("check "+s.Name, "", s, opt)
	if err := g.check(s.Name, "", s.Text, nil); err != nil {
		return err
	}
	return checkDirectives("check "+s.Name, s.Name, s.Dir, s.Text, 0)
}
