package unwind_test

import (
	"os"
	"strings"
	"testing"

	"trampemu/asm"
	"trampemu/harness"
	"trampemu/regs"
)

// TestWrongHintsWarn: objtool warns about hints of our own that are wrong,
// at the file and line of the instruction it names: a FUNC hint with the
// wrong sp offset (after a push) and an undefined region that covers a
// call (6.1: "undefined stack state" after the call; 6.12: "return with
// modified stack frame" at the ret). A missing FUNC hint at a code entry
// (bad_nofunc) is silent in objtool 6.1 and 6.12 (its undefined entry is taken as the end of the stack): the
// ORC unwinder tests catch it.
func TestWrongHintsWarn(t *testing.T) {
	text, err := os.ReadFile("testdata/badhints.S")
	if err != nil {
		t.Fatal(err)
	}
	im, err := asm.Build(asm.Options{Arch: regs.X86_64}, asm.Source{Name: "badhints.S", Text: text})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"bad_offset": "return with modified stack frame",
		"bad_undef":  "undefined stack state",
	}
	// The instruction each warning names: the ret with the push still on
	// the stack, the first instruction after the call whose state objtool
	// cannot know.
	wantLine := map[string]string{"bad_offset": "RET", "bad_undef": "popq\t%rbx"}
	if im.Objtool.Format == 64 {
		// objtool 6.12 lets the undefined state through to the ret.
		want["bad_undef"], wantLine["bad_undef"] = "return with modified stack frame", "RET"
	}
	lines := strings.Split(string(text), "\n")
	for _, w := range im.ObjtoolWarnings {
		exp, ok := want[w.Func]
		if !ok || !strings.Contains(w.Text, exp) {
			t.Errorf("unexpected warning %v", w)
			continue
		}
		delete(want, w.Func)
		if w.File != "badhints.S" || w.Line <= 0 || w.Line > len(lines) {
			t.Errorf("%v: place %s:%d", w, w.File, w.Line)
			continue
		}
		if l := strings.TrimSpace(lines[w.Line-1]); l != wantLine[w.Func] {
			t.Errorf("%v: line %d is %q, want %q", w, w.Line, l, wantLine[w.Func])
		}
	}
	for f, exp := range want {
		t.Errorf("no warning %q for %s", exp, f)
	}
}

// TestMergedVariantsObjtoolClean: every x86-64 registry variant, in its
// pairing with the runtime and the workloads, goes through objtool
// without a warning, and the linked image has an ORC table (unless every
// object is a frame-pointer build).
func TestMergedVariantsObjtoolClean(t *testing.T) {
	a := regs.X86_64
	for _, v := range harness.VariantsOf(a, "") {
		tr, err := harness.FromVariant(v)
		if err != nil {
			t.Fatal(err)
		}
		p, err := harness.Pair(a, tr)
		if err != nil {
			t.Fatal(err)
		}
		s := harness.Setup{Arch: a, Entry: tr, Exit: p}
		if v.Role != "entry" { // an exit or rethook trampoline takes the exit's place
			s.Entry, s.Exit = p, tr
		}
		im, err := s.Build()
		if err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		if im.Objtool == nil {
			t.Fatalf("%s: objtool did not run", v.Name)
		}
		for _, w := range im.ObjtoolWarnings {
			t.Errorf("%s: %s: %v", v.Name, w.Source, w)
		}
		if _, err := tableOf(im); err != nil {
			t.Errorf("%s: %v", v.Name, err)
		}
	}
}
