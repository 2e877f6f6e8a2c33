package mutate

import (
	"fmt"
	"strings"
	"testing"
)

// The arm64 rules make the mutants an entry-ftrace.S line should get, and
// none of the ones that cannot assemble (a shift amount, a post-index
// writeback as a displacement, sp replaced).
func TestARM64Mutants(t *testing.T) {
	text := "\tstp\tx29, x9, [sp, #FREGS_FP]\n" +
		"\tldr\tx11, [x11]\n" +
		"\tsub\tsp, sp, #(FREGS_SIZE + 32)\n" +
		"\tldp\tx29, x30, [sp], #16\n" +
		"\tadd\tx0, x1, #1, lsl #12\n" +
		"\tb.ne\t1f\n" +
		"\tcbz\tx17, 1f\n" +
		"1:\tret\tx9\n"
	pre := []byte(fmt.Sprintf("# 1 %q\n%s", "f.S", text))
	cl := classify(pre, map[string]bool{"f.S": true})["f.S"]
	got := map[string]bool{}
	for _, m := range fileMutants(hooks["arm64"], cl, []byte(text), "", "f.S") {
		got[m.Mutation()] = true
	}
	for _, want := range []string{
		"register: x29 -> x30 in `stp x29, x9, [sp, #FREGS_FP]`",
		"register: x9 -> x10 in `stp x29, x9, [sp, #FREGS_FP]`",
		"register: x30 -> x0 in `ldp x29, x30, [sp], #16`",
		"displacement: displacement +8 in `stp x29, x9, [sp, #FREGS_FP]`",
		"displacement: displacement -8 in `ldr x11, [x11]`",
		"immediate: immediate #(FREGS_SIZE + 32)+1 in `sub sp, sp, #(FREGS_SIZE + 32)`",
		"immediate: immediate #16-8 in `ldp x29, x30, [sp], #16`",
		"immediate: immediate #1+8 in `add x0, x1, #1, lsl #12`",
		"branch: b.ne -> b.eq in `b.ne 1f`",
		"branch: cbz -> cbnz in `cbz x17, 1f`",
		"delete: delete `1: ret x9`",
		"swap: swap `b.ne 1f` with `cbz x17, 1f` (line 7)",
	} {
		if !got[want] {
			t.Errorf("no mutant %q", want)
		}
	}
	for m := range got {
		// A shift amount, a post-index writeback as a displacement, sp.
		for _, bad := range []string{"immediate #12", "displacement +8 in `ldp", "displacement -8 in `ldp", "register: sp"} {
			if strings.Contains(m, bad) {
				t.Errorf("mutant %q cannot assemble", m)
			}
		}
	}
	if n := len(got); n < 20 {
		t.Errorf("%d mutants, want the full set", n)
	}
}
