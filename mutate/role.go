package mutate

import (
	"strings"

	"trampemu/harness"
	"trampemu/trampolines"
)

// exitSymbols are the exit symbols of the trampoline a kernel file defines
// when it defines both roles: harness.LoadFile links such a file once per
// role, the exit copy keeping only return_to_handler global
// (Source.Globals) and the entry copy making it local (Source.Locals). Nil
// for a registry variant or a file linked for one role as it is.
func exitSymbols(t harness.Tramp) []string {
	if t.Variant != nil {
		return nil
	}
	if t.Role == trampolines.Exit {
		return t.Source.Globals
	}
	return t.Source.Locals
}

// keepRole drops, from classes, the instruction lines of a two-role kernel
// file that belong to the other role's trampoline: the exit role keeps the
// lines between the label of an exit symbol and its .size (and the bodies
// of the file's macros invoked there), the entry role every other line.
// The check of one role runs only its own trampoline's code, so mutants
// of the other's would all be equivalent.
func keepRole(classes map[string]fileLines, pre []byte, t harness.Tramp) {
	syms := exitSymbols(t)
	if len(syms) == 0 {
		return
	}
	isExit := map[string]bool{}
	for _, s := range syms {
		isExit[s] = true
	}
	wantExit := t.Role == trampolines.Exit
	type pos struct {
		file string
		line int
	}
	keep := map[pos]bool{}         // lines of the wanted region, outside macro bodies
	body := map[string][]pos{}     // a file macro's body lines
	calls := map[string][]string{} // the file macros a macro's body invokes
	var used []string              // file macros invoked in the wanted region
	macros := map[string]bool{}
	invoked := func(s string) string { // the file macro s invokes, if any
		if f := strings.Fields(strings.ReplaceAll(s, ",", " ")); len(f) > 0 && macros[f[0]] {
			return f[0]
		}
		return ""
	}
	region, inMacro := "", ""
	eachSourceLine(pre, func(file string, line int, l string) {
		p := pos{file, line}
		for _, s := range strings.Split(l, ";") {
			s = strings.TrimSpace(s)
			for {
				loc := labelRE.FindStringIndex(s)
				if loc == nil {
					break
				}
				if name := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s[:loc[1]]), ":")); isExit[name] && inMacro == "" {
					region = name
				}
				s = s[loc[1]:]
			}
			if s == "" || strings.HasPrefix(s, "#") {
				continue
			}
			if m := macroRE.FindStringSubmatch(s); m != nil {
				inMacro = m[1]
				macros[inMacro] = true
				continue
			}
			if strings.HasPrefix(s, ".endm") {
				inMacro = ""
				continue
			}
			if inMacro != "" {
				body[inMacro] = append(body[inMacro], p)
				if m := invoked(s); m != "" {
					calls[inMacro] = append(calls[inMacro], m)
				}
				continue
			}
			if (region != "") == wantExit {
				keep[p] = true
				if m := invoked(s); m != "" {
					used = append(used, m)
				}
			}
			if region != "" && strings.HasPrefix(s, ".size") {
				if f := strings.FieldsFunc(s[len(".size"):], func(r rune) bool { return r == ' ' || r == '\t' || r == ',' }); len(f) > 0 && f[0] == region {
					region = ""
				}
			}
		}
	})
	done := map[string]bool{}
	for len(used) > 0 {
		m := used[len(used)-1]
		used = used[:len(used)-1]
		if done[m] {
			continue
		}
		done[m] = true
		for _, p := range body[m] {
			keep[p] = true
		}
		used = append(used, calls[m]...)
	}
	for f, fl := range classes {
		for n, c := range fl {
			if c == lineInsn && !keep[pos{f, n}] {
				fl[n] = lineEmpty
			}
		}
	}
}
