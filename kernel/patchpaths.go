package kernel

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// A patch from a mailing list is untrusted: every path it names is read
// here, before GNU patch or git apply sees the patch, and refused unless it
// is a clean relative path that stays inside the copy it applies to.

// MaxPatchLine is the longest patch line read: a longer one is refused
// without reading the rest of it (a kernel patch line is under 1 KiB).
const MaxPatchLine = 1 << 20

// MaxPatchSize bounds a whole patch file (the largest kernel series are a
// few MiB).
const MaxPatchSize = 64 << 20

// PatchPath is one path a patch names.
type PatchPath struct {
	// Path is the path relative to the tree: the a/ or b/ of a -p1 header
	// stripped, cleaned, with forward slashes.
	Path string
	// Line is the patch line that names it; Header the header kind
	// ("+++", "diff --git", "rename to", ...).
	Line   int
	Header string
}

// PathError is a patch line that names a path the tool refuses, or a
// patch it will not read.
type PathError struct {
	Patch string // the patch file as the user named it
	Line  int    // 0 when about the whole file
	Msg   string
}

func (e *PathError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("--patch %s: %s", e.Patch, e.Msg)
	}
	return fmt.Sprintf("--patch %s line %d: %s", e.Patch, e.Line, e.Msg)
}

var (
	hunkHeader = regexp.MustCompile(`^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@`)
	// git's extended headers that name a path without an a/ or b/.
	gitNamed = []string{"rename from ", "rename to ", "rename old ", "rename new ", "copy from ", "copy to "}
	// git's mode headers: a symbolic link (120000) or a submodule (160000)
	// is refused.
	modeHeader = regexp.MustCompile(`^(?:new file mode|deleted file mode|old mode|new mode|index [0-9a-f]+\.\.[0-9a-f]+) ([0-7]+)\s*$`)
)

// OpenPatch opens a patch file after checking that it is a regular file of
// at most MaxPatchSize bytes (not a FIFO, a device or a directory, which
// could block or never end).
func OpenPatch(patch string) (*os.File, error) {
	st, err := os.Stat(patch)
	if err != nil {
		return nil, &PathError{Patch: patch, Msg: fmt.Sprint(errors.Unwrap(err)) + ": give a patch file (git format-patch or diff -u)"}
	}
	if !st.Mode().IsRegular() {
		return nil, &PathError{Patch: patch, Msg: fmt.Sprintf("is not a regular file (%v): give a patch file", st.Mode().Type())}
	}
	if st.Size() > MaxPatchSize {
		return nil, &PathError{Patch: patch, Msg: fmt.Sprintf("is %d bytes, more than the %d MiB a patch may have", st.Size(), MaxPatchSize>>20)}
	}
	f, err := os.Open(patch)
	if err != nil {
		return nil, &PathError{Patch: patch, Msg: fmt.Sprint(err)}
	}
	return f, nil
}

// PatchPaths reads a patch (git format-patch or diff -u, -p1) and returns
// every path its headers name: both names of "diff --git", "---" and
// "+++" (not /dev/null), "Index:", and git's rename and copy headers. It
// refuses, as a *PathError naming the line, a path that is absolute,
// has a .., ., empty or .git component or a control character, a quoted
// name it cannot read, a symbolic link or submodule mode, a NUL byte
// anywhere, and a line longer than MaxPatchLine (without reading it
// whole). Hunk bodies are skipped by their line counts, so a removed line
// that starts with "--" is not a header.
func PatchPaths(patch string, r io.Reader) ([]PatchPath, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var out []PatchPath
	oldLeft, newLeft := 0, 0
	bad := func(n int, format string, args ...any) error {
		return &PathError{Patch: patch, Line: n, Msg: fmt.Sprintf(format, args...)}
	}
	// add checks a name and keeps it when it is a whole name (not one
	// word of it) that -p1 leaves something of.
	add := func(n int, header, name string, strip, whole bool) error {
		if header != "diff --git" && name == "/dev/null" {
			return nil
		}
		p, err := cleanPatchPath(name, strip)
		if err != nil {
			return bad(n, "%s %s: %v: refused (a patch may only name files inside the tree it changes)", header, strconv.Quote(name), err)
		}
		if whole && (!strip || strings.Contains(name, "/")) {
			out = append(out, PatchPath{Path: p, Line: n, Header: header})
		}
		return nil
	}
	for n := 1; ; n++ {
		line, err := readLine(br)
		if errors.Is(err, io.EOF) && line == nil {
			return out, nil
		}
		if errors.Is(err, errLongLine) {
			return nil, bad(n, "longer than %d MiB: not a patch", MaxPatchLine>>20)
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, bad(n, "%v", err)
		}
		if i := bytes.IndexByte(line, 0); i >= 0 {
			return nil, bad(n, "a NUL byte at column %d: not a text patch", i+1)
		}
		s := strings.TrimSuffix(string(line), "\r")
		if oldLeft > 0 || newLeft > 0 {
			// A hunk's body line, while its counts last; any other line
			// ends the hunk and is read as a header.
			body := true
			switch {
			case (s == "" || s[0] == ' ') && oldLeft > 0 && newLeft > 0:
				oldLeft, newLeft = oldLeft-1, newLeft-1
			case s != "" && s[0] == '-' && oldLeft > 0:
				oldLeft--
			case s != "" && s[0] == '+' && newLeft > 0:
				newLeft--
			case s != "" && s[0] == '\\':
			default:
				body, oldLeft, newLeft = false, 0, 0
			}
			if body {
				continue
			}
		} else if strings.HasPrefix(s, "\\") {
			continue // "\ No newline at end of file" after a hunk's last line
		}
		if m := hunkHeader.FindStringSubmatch(s); m != nil {
			oldLeft, newLeft = hunkCount(m[1]), hunkCount(m[2])
			continue
		}
		if m := modeHeader.FindStringSubmatch(s); m != nil && (m[1] == "120000" || m[1] == "160000") {
			what := "a symbolic link"
			if m[1] == "160000" {
				what = "a submodule"
			}
			return nil, bad(n, "%q: the patch makes %s: refused (only regular files are patched)", s, what)
		}
		switch {
		case strings.HasPrefix(s, "diff --git "):
			names, err := gitHeaderNames(strings.TrimPrefix(s, "diff --git "))
			if err != nil {
				return nil, bad(n, "diff --git: %v", err)
			}
			for _, name := range names {
				if err := add(n, "diff --git", name, true, true); err != nil {
					return nil, err
				}
			}
		case strings.HasPrefix(s, "+++ "), strings.HasPrefix(s, "--- ") && len(strings.TrimSpace(s)) > 3, strings.HasPrefix(s, "*** "):
			for i, name := range headerNames(s[4:]) {
				if err := add(n, s[:3], name, true, i == 0); err != nil {
					return nil, err
				}
			}
		case strings.HasPrefix(s, "Index: "):
			for i, name := range headerNames(s[7:]) {
				if err := add(n, "Index:", name, false, i == 0); err != nil {
					return nil, err
				}
			}
		default:
			for _, h := range gitNamed {
				if strings.HasPrefix(s, h) {
					name := strings.TrimPrefix(s, h)
					if strings.HasPrefix(name, `"`) {
						var err error
						if name, err = unquoteName(name); err != nil {
							return nil, bad(n, "%s: %v", strings.TrimSpace(h), err)
						}
					}
					if err := add(n, strings.TrimSpace(h), name, false, true); err != nil {
						return nil, err
					}
				}
			}
		}
	}
}

func hunkCount(s string) int {
	if s == "" {
		return 1
	}
	n, err := strconv.Atoi(s)
	if err != nil || n > MaxPatchSize {
		return 0
	}
	return n
}

var errLongLine = errors.New("line too long")

// readLine returns the next line without its newline, or errLongLine as
// soon as it passes MaxPatchLine bytes (the rest is never read).
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > MaxPatchLine+1 {
			return nil, errLongLine
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return line, nil
		default:
			return nil, err
		}
	}
}

// headerNames are the candidate names of a "---", "+++" or "Index:"
// header: the quoted name, or the text up to a tab (a timestamp follows)
// and, to be safe with names that hold spaces, each of its space-separated
// words as well.
func headerNames(rest string) []string {
	if strings.HasPrefix(rest, `"`) {
		if name, err := unquoteName(rest); err == nil {
			return []string{name}
		}
		return []string{rest} // refused by cleanPatchPath (the quote)
	}
	name, _, _ := strings.Cut(rest, "\t")
	name = strings.TrimRight(name, " ")
	out := []string{name}
	if f := strings.Fields(name); len(f) > 1 {
		out = append(out, f...)
	}
	return out
}

// gitHeaderNames splits the names of "diff --git a/X b/Y": quoted names
// as git writes them, else every word (a name with spaces is split, and
// every part is checked).
func gitHeaderNames(rest string) ([]string, error) {
	var names []string
	all := rest
	for rest = strings.TrimLeft(rest, " "); rest != ""; rest = strings.TrimLeft(rest, " ") {
		if rest[0] == '"' {
			end := closingQuote(rest)
			if end < 0 {
				return nil, fmt.Errorf("an unterminated quoted name")
			}
			name, err := unquoteName(rest[:end+1])
			if err != nil {
				return nil, err
			}
			names, rest = append(names, name), rest[end+1:]
			continue
		}
		word, tail, _ := strings.Cut(rest, " ")
		names, rest = append(names, word), tail
	}
	if len(names) < 2 {
		return nil, fmt.Errorf("%q names fewer than two files", all)
	}
	// An unquoted name with spaces ("a/x y b/x y") gives its words, each
	// checked alone.
	return names, nil
}

// closingQuote is the index of the quote that closes s[0]'s, -1 if none.
func closingQuote(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// unquoteName reads a name git quoted (C style, octal escapes for bytes
// that are not printable ASCII).
func unquoteName(q string) (string, error) {
	end := closingQuote(q)
	if end < 0 {
		return "", fmt.Errorf("an unterminated quoted name")
	}
	s, err := strconv.Unquote(q[:end+1])
	if err != nil {
		return "", fmt.Errorf("a quoted name %s it cannot read", q[:end+1])
	}
	return s, nil
}

// cleanPatchPath checks a name from a patch and returns it relative to the
// tree (strip: the first component, a/ or b/, removed as patch -p1 does).
func cleanPatchPath(name string, strip bool) (string, error) {
	switch {
	case name == "":
		return "", errors.New("an empty name")
	case strings.HasPrefix(name, "/"):
		return "", errors.New("an absolute path")
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f || r == '"' {
			return "", fmt.Errorf("a control character or quote in the name")
		}
	}
	parts := strings.Split(name, "/")
	for _, p := range parts {
		switch p {
		case "..":
			return "", errors.New("it climbs out with ..")
		case "", ".":
			return "", errors.New("an empty or . component (not a clean path)")
		}
		if strings.EqualFold(p, ".git") {
			return "", errors.New("a .git component")
		}
	}
	if strip {
		if len(parts) < 2 {
			// "diff --git" words and headers without a/ or b/: a name
			// patch -p1 would strip to nothing.
			return name, nil
		}
		parts = parts[1:]
	}
	return strings.Join(parts, "/"), nil
}

// Confine checks that rel, a clean relative path from a patch, stays in
// root when every symbolic link on the way is followed: the part of it
// that exists must resolve inside root. The path need not exist (a patch
// may create it).
func Confine(root, rel string) error {
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		return fmt.Errorf("%s is not a path inside the tree: refused", rel)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return err
	}
	p, sofar := realRoot, ""
	for _, part := range strings.Split(filepath.FromSlash(rel), string(filepath.Separator)) {
		p, sofar = filepath.Join(p, part), filepath.Join(sofar, part)
		what := rel + " is"
		if sofar != filepath.Clean(rel) {
			what = rel + " goes through " + sofar + ","
		}
		st, err := os.Lstat(p)
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if st.Mode()&os.ModeSymlink != 0 {
			real, err := filepath.EvalSymlinks(p)
			if err != nil {
				return fmt.Errorf("%s a symbolic link that does not resolve: refused", what)
			}
			if !within(realRoot, real) {
				return fmt.Errorf("%s a symbolic link out of the tree (to %s): refused", what, real)
			}
			p = real
		}
	}
	return nil
}

// within reports whether path is root or below it (both clean and
// absolute).
func within(root, path string) bool {
	r, err := filepath.Rel(root, path)
	return err == nil && r != ".." && !strings.HasPrefix(r, "../")
}
