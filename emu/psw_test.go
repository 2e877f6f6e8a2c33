package emu

import (
	"strings"
	"testing"
	"time"

	"trampemu/asm"
	"trampemu/regs"
)

// TestS390xInvalidPSWIsAFault: an lpswe of a PSW mask with EA set and BA
// clear (which the CPU refuses with a specification exception, and on
// which Unicorn 2.1.1's translator aborts the whole process) stops the run
// as a fault at the lpswe with the mask; a valid 64-bit mask runs on.
func TestS390xInvalidPSWIsAFault(t *testing.T) {
	a := regs.S390X
	src := `
	.text
	.globl bad_psw, good_psw, done
bad_psw:
	larl	%r1, psw_bad
	lpswe	0(%r1)
good_psw:
	larl	%r1, psw_good
	larl	%r2, done
	stg	%r2, 8(%r1)
	lpswe	0(%r1)
done:
	nopr	%r0
	.data
	.balign 8
psw_bad:
	.quad	0x0000000100000000, 0
psw_good:
	.quad	0x0000000180000000, 0
`
	m := loadMachine(t, a, asm.Options{Arch: a}, asm.Source{Name: "psw.S", Text: []byte(src)})
	opt := RunOptions{Limit: 1000, Timeout: 5 * time.Second}
	err := m.Call(sym(t, m, "bad_psw"), sym(t, m, "done"), stackTop(a), nil, opt)
	e, ok := AsError(err)
	if !ok {
		t.Fatalf("bad mask: got %v, want an *emu.Error", err)
	}
	if e.Kind != KindFault || !strings.Contains(e.Detail, "specification exception") || !strings.Contains(e.Detail, "0x0000000100000000") || !strings.Contains(e.Insn, "lpswe") {
		t.Errorf("bad mask: %s %q at %q, want a specification-exception fault at the lpswe naming the mask", e.Kind, e.Detail, e.Insn)
	}
	if err := m.Call(sym(t, m, "good_psw"), sym(t, m, "done"), stackTop(a), nil, opt); err != nil {
		t.Errorf("valid 64-bit mask: %v", err)
	}
}
