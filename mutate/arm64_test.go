package mutate

import (
	"fmt"
	"strings"
	"testing"
)

// TestARM64Mutants: the arm64 hooks on A64 syntax: registers without a
// prefix by width (x, w), displacements inside "[base, #imm]" (none for
// "[base]"), "#n" immediates (also post-indexed ones, not shifts),
// b.<cond>, cbz/cbnz and tbz/tbnz inverted, branch targets left alone.
func TestARM64Mutants(t *testing.T) {
	text := strings.Join([]string{
		"\tsub\tsp, sp, #64",
		"\tstp\tx0, x1, [sp, #FREGS_X0]",
		"\tldr\tw2, [x3]",
		"\tldp\tx29, x30, [sp], #16",
		"\tmovk\tx9, #0x6b, lsl #16",
		"\tb.eq\t1f",
		"\tcbz\tx17, 2f",
		"\ttbnz\tw0, #3, 1f",
		"1:\tbl\tftrace_stub",
		"2:\tret\tx9",
	}, "\n")
	pre := []byte(fmt.Sprintf("# 1 %q\n%s", "f.S", text))
	cl := classify(pre, map[string]bool{"f.S": true})["f.S"]
	got := map[string]bool{}
	for _, m := range fileMutants(hooks["arm64"], cl, []byte(text), "", "f.S") {
		got[m.Mutation()] = true
	}
	for _, want := range []string{
		"register: x0 -> x1 in `stp x0, x1, [sp, #FREGS_X0]`",
		"register: x30 -> x0 in `ldp x29, x30, [sp], #16`",
		"register: w2 -> w3 in `ldr w2, [x3]`",
		"displacement: displacement +8 in `stp x0, x1, [sp, #FREGS_X0]`",
		"immediate: immediate #64+8 in `sub sp, sp, #64`",
		"immediate: immediate #64+1 in `sub sp, sp, #64`",
		"immediate: immediate #16-8 in `ldp x29, x30, [sp], #16`",
		"immediate: immediate #0x6b+8 in `movk x9, #0x6b, lsl #16`",
		"branch: b.eq -> b.ne in `b.eq 1f`",
		"branch: cbz -> cbnz in `cbz x17, 2f`",
		"branch: tbnz -> tbz in `tbnz w0, #3, 1f`",
		"delete: delete `2: ret x9`",
	} {
		if !got[want] {
			t.Errorf("no mutant %q", want)
		}
	}
	for m := range got {
		switch {
		case strings.Contains(m, "displacement") && strings.Contains(m, "[x3]"):
			t.Errorf("a displacement mutant of an operand without one: %s", m)
		case strings.Contains(m, "displacement") && strings.Contains(m, "ldp x29, x30, [sp], #16"):
			t.Errorf("a post-index is an immediate, not a displacement: %s", m)
		case strings.Contains(m, "immediate") && strings.Contains(m, "lsl #16+"):
			t.Errorf("a shift moved as an immediate: %s", m)
		case strings.Contains(m, "immediate") && (strings.Contains(m, "`tbnz") || strings.Contains(m, "`cbz")):
			t.Errorf("a branch operand moved: %s", m)
		case strings.Contains(m, "%"):
			t.Errorf("an x86/s390x register prefix on arm64: %s", m)
		}
	}
	for _, c := range [][2]string{{"b.hs", "b.lo"}, {"b.gt", "b.le"}, {"b.vs", "b.vc"}, {"b", ""}, {"b.al", ""}, {"bl", ""}} {
		if inv := hooks["arm64"].invert(c[0]); inv != c[1] {
			t.Errorf("invert(%s) = %q, want %q", c[0], inv, c[1])
		}
	}
}
