package asm_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"trampemu/asm"
	"trampemu/regs"
)

// TestPreprocessNamesLines: the output's linemarkers name the source and
// each header by their own names, the prelude's macros and asm-offsets
// are in, and an #ifdef'd-out line is gone; both arches.
func TestPreprocessNamesLines(t *testing.T) {
	for _, a := range regs.Arches {
		src := asm.Source{Name: "mine.S", Text: []byte("#include \"hdr.h\"\n#ifdef NOPE\n\tgone_insn\n#endif\n\tkept_insn FRAME_OF\nSYM_FUNC_START(f)\n")}
		out, err := asm.Preprocess(asm.Options{Arch: a, Headers: map[string][]byte{"hdr.h": []byte("#define FRAME_OF 42\n\thdr_insn\n")}}, src)
		if err != nil {
			t.Fatalf("%s: %v", a.Name, err)
		}
		s := string(out)
		for _, want := range []string{`"mine.S"`, `"hdr.h"`, "hdr_insn", "kept_insn 42", "f:"} {
			if !strings.Contains(s, want) {
				t.Errorf("%s: output lacks %q:\n%s", a.Name, want, s)
			}
		}
		if strings.Contains(s, "gone_insn") || strings.Contains(s, "trampemu-cpp-") {
			t.Errorf("%s: output has an #ifdef'd-out line or a temporary path:\n%s", a.Name, s)
		}
		_, err = asm.Preprocess(asm.Options{Arch: a}, asm.Source{Name: "bad.S", Text: []byte("\n#if\n")})
		var e *asm.Error
		if !errors.As(err, &e) || !strings.Contains(err.Error(), "bad.S:2") {
			t.Errorf("%s: a cpp error gives %v, want an *asm.Error naming bad.S:2", a.Name, err)
		}
	}
}

// FuzzPreprocess runs the C preprocessor with the prelude and asm-offsets
// on arbitrary .S text: it must return text with the source's linemarker,
// or an *asm.Error naming the source, never a temporary path, never a
// panic. Each input runs cpp, so the budget is small.
//
// fuzz budget: 300x
func FuzzPreprocess(f *testing.F) {
	for _, s := range []string{
		"SYM_FUNC_START(return_to_handler)\n\tmovq RAX(%rsp), %rax\n\tRET\nSYM_FUNC_END(return_to_handler)\n",
		"#include <asm/ftrace.h>\n#ifdef CONFIG_FRAME_POINTER\n\tpushq %rbp\n#endif\n",
		"\tstmg %r2,%r14,(STACK_FREGS_PTREGS_GPRS+2*8)(%r15)\n\tBR_EX %r14\n",
		"#define X(a) a##a\nX(1)\n", "#if\n", "#include \"missing.h\"\n", "/* unterminated", "\x00\xff", "",
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, text []byte, s390 bool) {
		a := regs.X86_64
		if s390 {
			a = regs.S390X
		}
		out, err := asm.Preprocess(asm.Options{Arch: a}, asm.Source{Name: "fuzz.S", Text: text})
		if err != nil {
			var e *asm.Error
			var te *asm.ToolError
			if errors.As(err, &te) {
				t.Fatal(err) // cpp missing: make deps installs it
			}
			if !errors.As(err, &e) || !strings.Contains(e.Stage, "fuzz.S") {
				t.Fatalf("error %v is not an *asm.Error naming fuzz.S", err)
			}
			if strings.Contains(err.Error(), "trampemu-cpp-") {
				t.Fatalf("error names a temporary path: %v", err)
			}
			return
		}
		if !strings.Contains(string(out), `"fuzz.S"`) {
			t.Fatalf("output has no linemarker for fuzz.S:\n%s", out)
		}
	})
}

// TestOwnFolderFirst: a source read from a folder (Source.Dir) includes
// the header next to it, not the one of the same name in Options.Headers
// (which a partner source, with no folder, still gets), as cpp's
// #include "name" searches the including file's folder first; every arch.
func TestOwnFolderFirst(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hdr.h"), []byte("#define HDR_NAME(x) own_##x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	text := []byte("#include \"hdr.h\"\n#define SYM(x) HDR_NAME(x)\n\t.text\n\t.globl SYM(SRC)\nSYM(SRC):\n\tnop\n")
	for _, a := range regs.Arches {
		opt := asm.Options{Arch: a, Headers: map[string][]byte{"hdr.h": []byte("#define HDR_NAME(x) registry_##x\n")}}
		mine := asm.Source{Name: "mine.S", Text: text, Dir: dir, Defines: map[string]string{"SRC": "mine"}}
		partner := asm.Source{Name: "partner.S", Text: text, Defines: map[string]string{"SRC": "partner"}}
		im, err := asm.Build(opt, mine, partner)
		if err != nil {
			t.Fatalf("%s: %v", a.Name, err)
		}
		for _, sym := range []string{"own_mine", "registry_partner"} {
			if _, ok := im.Symbol(sym); !ok {
				t.Errorf("%s: no symbol %s: the file's own header must win for it, the registry's for its partner", a.Name, sym)
			}
		}
	}
}

// TestSourceHeadersScoped: each source sees its own Source.Headers over
// Options.Headers of the same name, and no other source's: two sources
// that include "hdr.h" each get their own, a third gets the shared one;
// a rebuild with one source's header changed is not served the old
// object (the header's content is part of its cache key); every arch.
func TestSourceHeadersScoped(t *testing.T) {
	text := []byte("#include \"hdr.h\"\n#define SYM(x) HDR_NAME(x)\n\t.text\n\t.globl SYM(SRC)\nSYM(SRC):\n\tnop\n")
	hdr := func(prefix string) map[string][]byte {
		return map[string][]byte{"hdr.h": []byte("#define HDR_NAME(x) " + prefix + "_##x\n")}
	}
	for _, a := range regs.Arches {
		opt := asm.Options{Arch: a, Headers: hdr("shared")}
		build := func(firstPrefix string) *asm.Image {
			first := asm.Source{Name: "first.S", Text: text, Headers: hdr(firstPrefix), Defines: map[string]string{"SRC": "first"}}
			second := asm.Source{Name: "second.S", Text: text, Headers: hdr("two"), Defines: map[string]string{"SRC": "second"}}
			third := asm.Source{Name: "third.S", Text: text, Defines: map[string]string{"SRC": "third"}}
			im, err := asm.Build(opt, first, second, third)
			if err != nil {
				t.Fatalf("%s: %v", a.Name, err)
			}
			return im
		}
		for _, prefix := range []string{"one", "uno"} {
			im := build(prefix)
			for _, sym := range []string{prefix + "_first", "two_second", "shared_third"} {
				if _, ok := im.Symbol(sym); !ok {
					t.Errorf("%s: no symbol %s: each source must get its own hdr.h (the shared one without its own)", a.Name, sym)
				}
			}
		}
	}
}
