package asm_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"trampemu/asm"
	"trampemu/regs"
	"trampemu/sandbox"
)

// TestGuard: on every arch, a source that would read a file outside its
// folder, or explode, is refused with one line naming the source and line
// (or the limit), and the good neighbours of each case build.
func TestGuard(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "src")
	outside := filepath.Join(root, "outside")
	for _, d := range []string{dir, outside, filepath.Join(dir, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, text string) {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(outside, "secret.h"), "#define TOPSECRET 1\n")
	write(filepath.Join(outside, "secret.bin"), "TOPSECRET")
	write(filepath.Join(dir, "blob.bin"), "\x01\x02")
	write(filepath.Join(dir, "good.h"), "#define GOOD 2\n")
	write(filepath.Join(dir, "sub", "nested.h"), "#include \"../../outside/secret.h\"\n")
	write(filepath.Join(dir, "self.S"), "#include \"self.S\"\n")
	write(filepath.Join(dir, "incs.s"), ".incbin \"/etc/hostname\"\n")
	write(filepath.Join(dir, "good.s"), ".byte 7\n")
	for _, l := range [][2]string{{filepath.Join(outside, "secret.h"), "link.h"}, {filepath.Join(outside, "secret.bin"), "link.bin"}} {
		if err := os.Symlink(l[0], filepath.Join(dir, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	sandbox.SetLimits(sandbox.Limits{Time: 2 * time.Second, Output: 1 << 20})
	defer sandbox.SetLimits(sandbox.Limits{})
	bomb := "#define a0 x x x x x x x x x x\n"
	for i := 1; i <= 9; i++ {
		bomb += "#define a" + string(rune('0'+i)) + strings.Repeat(" a"+string(rune('0'+i-1)), 10) + "\n"
	}
	bomb += "a9\n"
	cases := []struct {
		name, text, says string
	}{
		{"good", ".data\n#include \"good.h\"\n#include <good.h>\n.byte GOOD\n.incbin \"blob.bin\"\n.include \"good.s\"\n.fill 16, 1, 0\n.rept 4\n.byte 1\n.endr\n", ""},
		{"#include absolute", ".data\n#include \"/etc/hostname\"\n", "x.S:2: #include \"/etc/hostname\": an absolute path: refused"},
		{"#include <absolute>", "#include </etc/passwd>\n", "x.S:1: #include \"/etc/passwd\": an absolute path"},
		{"#include ..", "#include \"../outside/secret.h\"\n", "x.S:1: #include \"../outside/secret.h\": it climbs out with .."},
		{"#include a symlink out", "#include \"link.h\"\n", "it resolves outside the file's folders"},
		{"#include of a header that climbs", "#include \"sub/nested.h\"\n", "nested.h:1: #include \"../../outside/secret.h\": it climbs out"},
		{"#include computed", "#define F \"/etc/passwd\"\n#include F\n", "x.S:2: #include F is computed by a macro"},
		{"__has_include", "#if __has_include(\"/etc/shadow\")\n#endif\n", "x.S:1: #include \"/etc/shadow\": an absolute path"},
		{"includes itself", "#include \"self.S\"\n", "includes itself"},
		{".incbin absolute", ".data\n.incbin \"/etc/hostname\"\n", "x.S:2: .incbin \"/etc/hostname\": an absolute path"},
		{".incbin ..", ".data\n.incbin \"../outside/secret.bin\"\n", "climbs out with .."},
		{".incbin a symlink out", ".data\n.incbin \"link.bin\"\n", "resolves outside the source's folder"},
		{".incbin escaped", ".data\n.incbin \"\\057etc\\057hostname\"\n", "a backslash or control character"},
		{".incbin made by a macro", ".data\n.macro m a b\n.\\a\\()\\b \"/etc/hostname\"\n.endm\nm inc,bin\n", "as read /etc/hostname"},
		{".include of a file that reads out", ".include \"incs.s\"\n", "incs.s:1: .incbin \"/etc/hostname\": an absolute path"},
		{".fill huge", ".data\n.fill 2000000000, 1, 0x90\n", "x.S:2: .fill 2000000000, 1, 0x90 makes 2000000000 bytes"},
		{".rept bomb", ".data\n.rept 100000\n.rept 100000\n.byte 0\n.endr\n.endr\n", "x.S:3: .rept 100000 repeats its body 10000000000 times"},
		{".rept computed bomb", ".data\n.rept 1<<12\n.rept 1<<12\n.rept 1<<12\n.byte 0\n.endr\n.endr\n.endr\n", "limit (an input that makes it"},
		{"cpp bomb", bomb, "limit (an input that makes it"},
	}
	for _, a := range regs.Arches {
		for _, c := range cases {
			start := time.Now()
			_, err := asm.Build(asm.Options{Arch: a}, asm.Source{Name: filepath.Join(dir, "x.S"), Dir: dir, Text: []byte(c.text)})
			var ae *asm.Error
			switch {
			case c.says == "" && err != nil:
				t.Errorf("%s %s: %v", a.Name, c.name, err)
			case c.says == "":
			case !errors.As(err, &ae) || !ae.Refused || !strings.Contains(err.Error(), c.says):
				t.Errorf("%s %s: %v, want a refusal saying %q", a.Name, c.name, err, c.says)
			case strings.Contains(err.Error(), "TOPSECRET"):
				t.Errorf("%s %s: the error shows the file's content: %v", a.Name, c.name, err)
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("%s %s: took %v", a.Name, c.name, d)
			}
		}
	}
}

// FuzzIncludeFilter: whatever the text, the filter does not panic, and a
// text it lets through names no absolute or climbing #include, .incbin
// or .include (the fuzzer's text joins a fixed folder with a header
// inside it and one outside).
//
// fuzz budget: 2000x
func FuzzIncludeFilter(f *testing.F) {
	for _, s := range []string{
		"#include \"good.h\"\n", "#include \"/etc/hostname\"\n", "#include <../x.h>\n", "#include MACRO\n",
		".incbin \"blob.bin\"\n", ".incbin \"/etc/hostname\"\n", ".include \"../x\"\n", ".fill 99999999,8,0\n",
		".rept 1000\n.rept 1000\n.endr\n.endr\n", "# 1 \"/etc/passwd\" 1\n", "x: .incbin \"a\" ; .incbin \"/b\"\n",
	} {
		f.Add(s)
	}
	root := f.TempDir()
	if err := os.WriteFile(filepath.Join(root, "good.h"), []byte("/* */\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "blob.bin"), []byte("b"), 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		err := asm.CheckSource(asm.Options{Arch: regs.X86_64}, asm.Source{Name: filepath.Join(root, "x.S"), Dir: root, Text: []byte(text)})
		if err != nil {
			if strings.Contains(strings.SplitN(err.Error(), "\n", 2)[0], "\n") {
				t.Fatalf("a multi-line first line: %q", err)
			}
			return
		}
		for _, l := range strings.Split(text, "\n") {
			l = strings.TrimSpace(l)
			for _, p := range []string{"#include \"/", "#include </", "#include \"../", "#include <../", ".incbin \"/", ".include \"/", ".incbin \"../"} {
				if strings.HasPrefix(l, p) {
					t.Fatalf("let through: %q", l)
				}
			}
		}
	})
}
