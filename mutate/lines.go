package mutate

import (
	"bufio"
	"bytes"
	"regexp"
	"strconv"
	"strings"
)

// lineClass is what one source line holds after preprocessing.
type lineClass uint8

const (
	lineEmpty lineClass = iota // nothing (blank, comment, cpp directive, #ifdef'd out)
	lineOther                  // a directive, a label or a macro invocation
	lineInsn                   // at least one instruction
)

// fileLines are the classes of one file's lines, index = line number.
type fileLines []lineClass

func (f fileLines) class(line int) lineClass {
	if line < 0 || line >= len(f) {
		return lineEmpty
	}
	return f[line]
}

var (
	markerRE = regexp.MustCompile(`^#\s*(\d+)\s+"([^"]*)"`)
	labelRE  = regexp.MustCompile(`^[A-Za-z0-9_.$]+:\s*`)
	macroRE  = regexp.MustCompile(`^\.macro\s+([A-Za-z0-9_.$]+)`)
)

// classify reads preprocessed text (with linemarkers) and returns the
// class of every line of the files in mutable (by their linemarker name).
// A statement is an instruction unless it is a directive (".xxx"), a label,
// or the invocation of a gas macro defined in a mutable file (its body
// lines are the instructions). A macro defined elsewhere (the prelude:
// BR_EX, JMP_NOSPEC, ...) counts as an instruction of the line invoking it
// when its body is not empty.
func classify(pre []byte, mutable map[string]bool) map[string]fileLines {
	type stmt struct {
		file string
		line int
		text string
	}
	var stmts []stmt
	macroFile := map[string]string{} // macro name -> file it is defined in
	macroBody := map[string]bool{}   // macro has a non-empty body
	inMacro := ""
	eachSourceLine(pre, func(file string, cur int, l string) {
		for _, s := range strings.Split(l, ";") {
			s = strings.TrimSpace(s)
			for {
				loc := labelRE.FindStringIndex(s)
				if loc == nil {
					break
				}
				s = s[loc[1]:]
			}
			if s == "" || strings.HasPrefix(s, "#") {
				continue
			}
			if m := macroRE.FindStringSubmatch(s); m != nil {
				inMacro = m[1]
				macroFile[inMacro] = file
			} else if strings.HasPrefix(s, ".endm") {
				inMacro = ""
			} else if inMacro != "" && !strings.HasPrefix(s, ".") {
				macroBody[inMacro] = true
			}
			stmts = append(stmts, stmt{file, cur, s})
		}
	})
	out := map[string]fileLines{}
	set := func(f string, n int, c lineClass) {
		if !mutable[f] || n < 0 {
			return
		}
		fl := out[f]
		for len(fl) <= n {
			fl = append(fl, lineEmpty)
		}
		if c > fl[n] {
			fl[n] = c
		}
		out[f] = fl
	}
	for _, s := range stmts {
		c := lineOther
		if !strings.HasPrefix(s.text, ".") {
			words := strings.FieldsFunc(s.text, func(r rune) bool { return r == ' ' || r == '\t' || r == ',' })
			if len(words) == 0 {
				continue // only commas: not an instruction
			}
			def, isMacro := macroFile[words[0]]
			switch {
			case !isMacro:
				c = lineInsn
			case !mutable[def] && macroBody[words[0]]:
				c = lineInsn
			}
		}
		set(s.file, s.line, c)
	}
	return out
}

// eachSourceLine calls fn with every line of preprocessed text that is not
// a linemarker, with the file and line number the markers give it.
func eachSourceLine(pre []byte, fn func(file string, line int, text string)) {
	file, line := "", 0
	sc := bufio.NewScanner(bytes.NewReader(pre))
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	for sc.Scan() {
		l := sc.Text()
		if m := markerRE.FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[1])
			file, line = m[2], n
			continue
		}
		fn(file, line, l)
		line++
	}
}
