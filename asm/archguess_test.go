package asm

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"trampemu/regs"
)

// archFiles are the .S files of a modelled arch: its registry variants
// and its kernel-style test files.
func archFiles(t *testing.T, a *regs.Arch) []string {
	t.Helper()
	var out []string
	for _, g := range []string{"../trampolines/" + a.Name + "/*.S", "../tests/testdata/kernel/" + a.Name + "_*.S"} {
		m, err := filepath.Glob(g)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	if len(out) < 5 {
		t.Fatalf("%s: %d files, want the registry's and the kernel test files", a.Name, len(out))
	}
	return out
}

// TestGuessArchEveryPair: every modelled arch's own files read as its own
// under its --arch (no guess) and as its instructions under every other
// --arch, with the one-line message.
func TestGuessArchEveryPair(t *testing.T) {
	for _, own := range regs.Arches {
		if mustAsmArch(own).signature == nil {
			t.Errorf("%s has no signature in its asmArch: move its row of unmodelledArches there (signature: %sSignature)", own.Name, own.Name)
		}
		for _, f := range archFiles(t, own) {
			text, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, as := range regs.Arches {
				got, modelled := GuessArch(as, text)
				switch {
				case as == own && got != "":
					t.Errorf("%s under --arch %s: read as %s", f, as.Name, got)
				case as != own && (got != own.Name || !modelled):
					t.Errorf("%s under --arch %s: guessed %q (modelled %v), want %s", f, as.Name, got, modelled, own.Name)
				case as != own:
					want := f + " holds " + own.Name + " instructions, not " + as.Name + ": use --arch " + own.Name
					if err := WrongArch(as, f, text); err == nil || err.Error() != want {
						t.Errorf("WrongArch: %v, want %q", err, want)
					}
				}
			}
		}
	}
}

// TestGuessArchUnmodelled: small files of the arches trampemu does not
// model (testdata/foreign, written for this test in each arch's kernel
// style) are named under every --arch, in one line.
func TestGuessArchUnmodelled(t *testing.T) {
	files, err := filepath.Glob("testdata/foreign/*.S")
	if err != nil || len(files) < 5 {
		t.Fatalf("%d foreign files (%v), want loongarch64, powerpc64, mips, arm32, riscv64", len(files), err)
	}
	for _, s := range unmodelledArches {
		if !slices.Contains(files, filepath.Join("testdata", "foreign", s.name+".S")) {
			t.Errorf("no testdata/foreign/%s.S for the unmodelled %s", s.name, s.name)
		}
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".S")
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		_, known := regs.ArchByName(name)
		for _, as := range regs.Arches {
			if as.Name == name {
				continue
			}
			got, modelled := GuessArch(as, text)
			if got != name || modelled != (known == nil) {
				t.Errorf("%s under --arch %s: guessed %q (modelled %v), want %s", f, as.Name, got, modelled, name)
				continue
			}
			err := WrongArch(as, f, text)
			want := f + " holds " + name + " instructions, an architecture trampemu does not model"
			if known == nil {
				want = f + " holds " + name + " instructions, not " + as.Name + ": use --arch " + name
			}
			if err == nil || err.Error() != want || strings.Contains(err.Error(), "\n") {
				t.Errorf("WrongArch: %v, want %q", err, want)
			}
		}
	}
}

// TestGuessArchUndecided: text that reads as nobody's, or as two arches
// alike, gets no guess.
func TestGuessArchUndecided(t *testing.T) {
	for _, text := range []string{
		"",
		"/* only a comment */\n",
		"SYM_FUNC_START(x)\nSYM_FUNC_END(x)\n",
		"\tnop\n\tnop\n",
		"\tbogusinsn 1\n\tbogusinsn 2\n\tbogusinsn 3\n\tbogusinsn 4\n\tbogusinsn 5\n",
	} {
		for _, as := range regs.Arches {
			if got, _ := GuessArch(as, []byte(text)); got != "" {
				t.Errorf("%q under --arch %s: guessed %s", text, as.Name, got)
			}
		}
	}
}

// FuzzGuessArch: any text, no panic, and a guess is never the --arch.
func FuzzGuessArch(f *testing.F) {
	f.Add([]byte("\tstp x29, x30, [sp, #-16]!\n\tmov x29, sp\n"))
	f.Add([]byte("/* c */ addi sp, sp, -16 ; REG_S ra, 0(sp)\n1: jalr a2\n"))
	f.Fuzz(func(t *testing.T, text []byte) {
		for _, as := range regs.Arches {
			if got, _ := GuessArch(as, text); got == as.Name {
				t.Fatalf("guessed the --arch itself, %s", got)
			}
		}
	})
}
