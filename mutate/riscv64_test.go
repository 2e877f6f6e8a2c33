package mutate

import (
	"fmt"
	"strings"
	"testing"
)

// The riscv64 rules make the mutants a mcount-dyn.S line should get: ABI
// and xN registers each within their class, off(reg) displacements (a bare
// (reg) given one), immediates of addi/li, inverted branches, and none on
// the symbol of la or call.
func TestRISCV64Mutants(t *testing.T) {
	text := "\tREG_S\tt0, FREGS_EPC(sp)\n" +
		"\tREG_S\tx10, FREGS_A0(sp)\n" +
		"\taddi\tsp, sp, -FREGS_SIZE_ON_STACK\n" +
		"\tla\ta1, function_trace_op\n" +
		"\tld\ta2, (a1)\n" +
		"\tbnez\tt1, 1f\n" +
		"\tcall\tftrace_stub\n" +
		"1:\tjr\tt0\n"
	pre := []byte(fmt.Sprintf("# 1 %q\n%s", "f.S", text))
	cl := classify(pre, map[string]bool{"f.S": true})["f.S"]
	got := map[string]bool{}
	for _, m := range fileMutants(hooks["riscv64"], cl, []byte(text), "", "f.S") {
		got[m.Mutation()] = true
	}
	for _, want := range []string{
		"register: t0 -> t1 in `REG_S t0, FREGS_EPC(sp)`",
		"register: x10 -> x11 in `REG_S x10, FREGS_A0(sp)`",
		"register: a1 -> a2 in `la a1, function_trace_op`",
		"displacement: displacement +8 in `REG_S t0, FREGS_EPC(sp)`",
		"displacement: displacement -8 in `ld a2, (a1)`",
		"branch: bnez -> beqz in `bnez t1, 1f`",
		"delete: delete `call ftrace_stub`",
	} {
		if !got[want] {
			t.Errorf("no mutant %q", want)
		}
	}
	immediate := false
	for m := range got {
		if strings.HasPrefix(m, "immediate:") && strings.Contains(m, "FREGS_SIZE_ON_STACK") {
			immediate = true
		}
		for _, bad := range []string{"immediate", "register: "} {
			if strings.Contains(m, bad) && (strings.Contains(m, "function_trace_op") && bad == "immediate" || strings.Contains(m, "ftrace_stub`") && bad == "register: ") {
				t.Errorf("mutant %q changes a symbol", m)
			}
		}
	}
	if !immediate {
		t.Errorf("no immediate mutant of the frame size: %v", got)
	}
	if n := len(got); n < 15 {
		t.Errorf("%d mutants, want the full set: %v", n, got)
	}
}
