package kernel

import (
	"regexp"
	"strings"
	"testing"
)

// TestSourcePlaces: comments are blanked with every line kept where it
// was (a "//" at the start of a line too, the first line included), and a
// place is named by its line, at the file's first byte and its last:
// before a construct on the first line and after one on the last, as much
// as in the middle. cite quotes the whole line of an offset.
func TestSourcePlaces(t *testing.T) {
	in := "// lead\nSYM_FUNC_START(ftrace_caller) /* c */\n\tret // x\n# a comment\n#ifdef X\nlast:"
	got := stripComments(in)
	want := "\nSYM_FUNC_START(ftrace_caller)  \n\tret \n\n#ifdef X\nlast:"
	if got != want {
		t.Fatalf("stripComments = %q, want %q", got, want)
	}
	s := &source{name: "f.S", text: "SYM_FUNC_START(ftrace_caller)\n\tret\nlast:"}
	for _, c := range []struct {
		off  int
		at   string
		cite string
	}{
		{0, "f.S:1", "`SYM_FUNC_START(ftrace_caller)` (f.S:1)"},
		{31, "f.S:2", "`ret` (f.S:2)"},
		{len(s.text) - 1, "f.S:3", "`last:` (f.S:3)"},
		{len(s.text), "f.S:3", "`last:` (f.S:3)"},
		{len(s.text) + 5, "f.S:3", ""},
		{-1, "", ""},
	} {
		if got := s.at(c.off); got != c.at {
			t.Errorf("at(%d) = %q, want %q", c.off, got, c.at)
		}
		if got := s.cite(c.off); got != c.cite {
			t.Errorf("cite(%d) = %q, want %q", c.off, got, c.cite)
		}
	}
	// a (?m)^\s* match can start on a blank line of spaces before the
	// construct: the cite is the construct's line
	blank := &source{name: "b.S", text: "x\n   \n\tmovq %rbp, %rdi\n"}
	if got, want := blank.cite(2), "`movq %rbp, %rdi` (b.S:3)"; got != want {
		t.Errorf("cite after a line of spaces = %q, want %q", got, want)
	}
	if got := (&source{text: "a\nb"}).at(2); got != "line 2" {
		t.Errorf("an unnamed source's place: %q", got)
	}
	// a construct at the file's first byte is found, defined and has a body
	if at := s.def("ftrace_caller"); at != 0 || !s.defines("ftrace_caller") {
		t.Errorf("def at the first byte = %d", at)
	}
	if from, _ := s.body("ftrace_caller", regexp.MustCompile(`ret`)); from != 0 {
		t.Errorf("body at the first byte from %d", from)
	}
	if at := s.find(regexp.MustCompile(`SYM`), 0, -1); at != 0 {
		t.Errorf("find at the first byte = %d", at)
	}
}

// TestParseConfigLongLine: a .config line may be longer than the
// scanner's 64 KiB start buffer (a long CONFIG_CMDLINE or
// CONFIG_EXTRA_FIRMWARE string), up to 1 MiB; a longer one is an error
// naming the file.
func TestParseConfigLongLine(t *testing.T) {
	long := strings.Repeat("x", 200*1024)
	c, err := ParseConfig("long.config", []byte("CONFIG_CMDLINE=\""+long+"\"\nCONFIG_A=y\n"))
	if err != nil || len(c["CONFIG_CMDLINE"]) < len(long) || c["CONFIG_A"] != "y" {
		t.Fatalf("a 200 KiB line: %v (%d bytes kept)", err, len(c["CONFIG_CMDLINE"]))
	}
	if _, err := ParseConfig("huge.config", []byte("CONFIG_X=\""+strings.Repeat("x", 2<<20)+"\"\n")); err == nil || !strings.Contains(err.Error(), "huge.config") {
		t.Errorf("a 2 MiB line: %v", err)
	}
}
