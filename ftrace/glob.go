package ftrace

// GlobMatch is glob_match (lib/glob.c, v3.17+): shell-style wildcards on
// the whole string: '*' any run of characters, '?' any one character,
// '[...]' a character class with ranges and '!' negation (a malformed class
// is literal), '\' escapes the next character. Matching is by bytes.
func GlobMatch(pat, str string) bool {
	// at returns the byte at i, or 0 past the end (C's NUL terminator).
	at := func(s string, i int) byte {
		if i < len(s) {
			return s[i]
		}
		return 0
	}
	p, s := 0, 0
	backPat, backStr := -1, 0
	for {
		c := at(str, s)
		s++
		d := at(pat, p)
		p++
		switch d {
		case '?': // anything but NUL
			if c == 0 {
				return false
			}
			continue
		case '*':
			if at(pat, p) == 0 { // trailing '*' matches the rest
				return true
			}
			backPat = p
			s--
			backStr = s // allow a zero-length match
			continue
		case '[':
			matched, inverted := false, at(pat, p) == '!'
			cls := p
			if inverted {
				cls++
			}
			a := at(pat, cls)
			cls++
			malformed := false
			for {
				b := a
				if a == 0 {
					malformed = true
					break
				}
				if at(pat, cls) == '-' && at(pat, cls+1) != ']' {
					b = at(pat, cls+1)
					if b == 0 {
						malformed = true
						break
					}
					cls += 2
				}
				matched = matched || (a <= c && c <= b)
				a = at(pat, cls)
				cls++
				if a == ']' {
					break
				}
			}
			if !malformed {
				if matched != inverted {
					p = cls
					continue
				}
				goto backtrack
			}
			// goto literal with d = '['
		case '\\':
			d = at(pat, p)
			p++
		}
		// literal:
		if c == d {
			if d == 0 {
				return true
			}
			continue
		}
	backtrack:
		if c == 0 || backPat < 0 {
			return false
		}
		// Try again from the last '*', one character later in str.
		p = backPat
		backStr++
		s = backStr
	}
}
