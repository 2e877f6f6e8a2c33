package mutate

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// FuzzMutants feeds arbitrary text, as preprocessed output of itself (a
// linemarker first), to the line classifier and the mutant generator of
// both arches: no panic; every mutant names a line of the file that
// holds an instruction, keeps the file's line count, and changes the
// text (a swap of two identical lines excepted).
func FuzzMutants(f *testing.F) {
	for _, s := range []string{
		"\tmovq %rax, RAX(%rsp)\n\tsubq $(FRAME_SIZE), %rsp\n\tjnz 1f\n1:\tRET\n",
		"\tstmg %r2,%r14,(184 +2*8)(%r15)\n\taghi %r15,-24\n\tjnz 0f\n0:\tbr %r14\n",
		"\tstp x29, x9, [sp, #FREGS_SIZE]\n\tldr x11, [x11, #-16]\n\tcbnz x17, 1f\n1:\tret x9\n",
		".macro m a=0\n\tpushq \\a+8(%rsp)\n.endm\n\tm\n", "l: ; x: ;; \n", "\t( ,, ) (%\n", "a;b;c\n\n\n", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		pre := []byte(fmt.Sprintf("# 1 %q\n%s", "f.S", text))
		cl := classify(pre, map[string]bool{"f.S": true})["f.S"]
		lines := strings.Count(text, "\n") + 1
		for _, name := range []string{"x86_64", "s390x", "arm64", "riscv64"} {
			for _, m := range fileMutants(hooks[name], cl, []byte(text), "", "f.S") {
				if m.Line < 1 || m.Line > lines || cl.class(m.Line) != lineInsn {
					t.Fatalf("%s %s: line %d is not an instruction line of %d", name, m.Mutation(), m.Line, lines)
				}
				if got := bytes.Count(m.Text, []byte("\n")) + 1; got != lines {
					t.Fatalf("%s %s: %d lines, want %d", name, m.Mutation(), got, lines)
				}
				if string(m.Text) == text && m.Kind != KindSwap {
					t.Fatalf("%s %s: the text did not change", name, m.Mutation())
				}
			}
		}
	})
}
