package asm_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"trampemu/asm"
	"trampemu/ftrace"
	"trampemu/regs"
)

// errorCases holds per-arch source snippets for the error-path tests.
var errorCases = []struct {
	arch *regs.Arch
	// badLine3: line 3 has a mnemonic the arch does not have.
	badLine3 string
	// twoCalls calls two functions nobody defines.
	twoCalls string
	// ok assembles and links.
	ok string
}{
	{regs.X86_64,
		"\t.text\nSYM_FUNC_START(f)\n\tbogusinsn\t%rax\n\tRET\nSYM_FUNC_END(f)\n",
		"\t.text\nSYM_FUNC_START(f)\n\tcall\tzz_undefined\n\tcall\taa_undefined\n\tcall\tzz_undefined\n\tRET\nSYM_FUNC_END(f)\n",
		"\t.text\nSYM_FUNC_START(f)\n\tRET\nSYM_FUNC_END(f)\n"},
	{regs.S390X,
		"\t.text\nSYM_FUNC_START(f)\n\tbogusinsn\t%r1\n\tBR_EX\t%r14\nSYM_FUNC_END(f)\n",
		"\t.text\nSYM_FUNC_START(f)\n\tbrasl\t%r14,zz_undefined\n\tbrasl\t%r14,aa_undefined\n\tbrasl\t%r14,zz_undefined\n\tBR_EX\t%r14\nSYM_FUNC_END(f)\n",
		"\t.text\nSYM_FUNC_START(f)\n\tBR_EX\t%r14\nSYM_FUNC_END(f)\n"},
}

func asError(t *testing.T, err error) *asm.Error {
	t.Helper()
	var e *asm.Error
	if !errors.As(err, &e) {
		t.Fatalf("got %T %v, want an *asm.Error", err, err)
	}
	return e
}

func TestAssemblerErrorNamesUserLine(t *testing.T) {
	for _, c := range errorCases {
		t.Run(c.arch.Name, func(t *testing.T) {
			_, err := asm.Build(asm.Options{Arch: c.arch}, asm.Source{Name: "user.S", Text: []byte(c.badLine3)})
			e := asError(t, err)
			if !strings.HasPrefix(e.Stage, "assemble") || !strings.Contains(e.Stage, "user.S") {
				t.Errorf("stage %q, want assemble user.S", e.Stage)
			}
			if !strings.Contains(err.Error(), "user.S:3") || !strings.Contains(err.Error(), "bogusinsn") {
				t.Errorf("message does not name user.S:3 and the mnemonic:\n%v", err)
			}
			if strings.Contains(err.Error(), "src0") || strings.Contains(err.Error(), "trampemu-asm-") {
				t.Errorf("message names a temporary file:\n%v", err)
			}
		})
	}
}

func TestUndefinedSymbolsListed(t *testing.T) {
	for _, c := range errorCases {
		t.Run(c.arch.Name, func(t *testing.T) {
			_, err := asm.Build(asm.Options{Arch: c.arch, HostFuncs: []string{ftrace.SymFtraceStub}},
				asm.Source{Name: "user.S", Text: []byte(c.twoCalls)})
			e := asError(t, err)
			if want := []string{"aa_undefined", "zz_undefined"}; !reflect.DeepEqual(e.Undefined, want) {
				t.Errorf("Undefined = %q, want %q", e.Undefined, want)
			}
			if e.Stage != "link" {
				t.Errorf("stage %q, want link", e.Stage)
			}
			for _, n := range []string{"aa_undefined", "zz_undefined"} {
				if !strings.Contains(err.Error(), n) {
					t.Errorf("message does not name %s: %v", n, err)
				}
			}
			// The same calls to host functions link.
			if _, err := asm.Build(asm.Options{Arch: c.arch, HostFuncs: []string{"aa_undefined", "zz_undefined"}},
				asm.Source{Name: "user.S", Text: []byte(c.twoCalls)}); err != nil {
				t.Errorf("with both as host functions: %v", err)
			}
		})
	}
}

func TestPreprocessorErrorNamesFile(t *testing.T) {
	for _, c := range errorCases {
		t.Run(c.arch.Name, func(t *testing.T) {
			src := "\t.text\n#error this variant needs CONFIG_FOO\n" + c.ok
			_, err := asm.Build(asm.Options{Arch: c.arch}, asm.Source{Name: "user.S", Text: []byte(src)})
			e := asError(t, err)
			if !strings.HasPrefix(e.Stage, "preprocess") {
				t.Errorf("stage %q, want preprocess", e.Stage)
			}
			for _, want := range []string{"user.S:2", "CONFIG_FOO"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("message lacks %q:\n%v", want, err)
				}
			}
			// With the define the #error is skipped.
			src = "#ifndef CONFIG_FOO\n#error this variant needs CONFIG_FOO\n#endif\n" + c.ok
			if _, err := asm.Build(asm.Options{Arch: c.arch, Defines: map[string]string{"CONFIG_FOO": ""}},
				asm.Source{Name: "user.S", Text: []byte(src)}); err != nil {
				t.Errorf("with CONFIG_FOO: %v", err)
			}
		})
	}
}

func TestMissingToolchain(t *testing.T) {
	cases := []struct {
		arch    *regs.Arch
		program string
		pkg     string
	}{
		{regs.X86_64, "x86_64-linux-gnu-as", "binutils-x86-64-linux-gnu"},
		{regs.S390X, "s390x-linux-gnu-as", "binutils-s390x-linux-gnu"},
	}
	for _, c := range cases {
		t.Run(c.arch.Name, func(t *testing.T) {
			t.Setenv("PATH", t.TempDir())
			// A source no other test builds, so that the build cache cannot answer.
			src := "/* " + t.Name() + " */\n" + errorCases[0].ok
			if c.arch == regs.S390X {
				src = "/* " + t.Name() + " */\n" + errorCases[1].ok
			}
			_, err := asm.Build(asm.Options{Arch: c.arch}, asm.Source{Name: "user.S", Text: []byte(src)})
			var te *asm.ToolError
			if !errors.As(err, &te) {
				t.Fatalf("got %T %v, want an *asm.ToolError", err, err)
			}
			if te.Program != c.program || te.Package != c.pkg {
				t.Errorf("ToolError{%q, %q}, want {%q, %q}", te.Program, te.Package, c.program, c.pkg)
			}
			if !strings.Contains(err.Error(), c.pkg) {
				t.Errorf("message does not name the package %s: %v", c.pkg, err)
			}
		})
	}
}

func TestBuildRejectsEmptyInput(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			if _, err := asm.Build(asm.Options{Arch: a}); err == nil {
				t.Error("Build without sources succeeded")
			}
			if _, err := asm.Build(asm.Options{}, asm.Source{Name: "x.S"}); err == nil {
				t.Error("Build without an arch succeeded")
			}
		})
	}
}
