package emu

import (
	"strings"
	"testing"
	"time"

	"trampemu/regs"
)

// TestRISCV64Traps: ebreak (Unicorn 2.1.1 stops it with
// UC_ERR_INSN_INVALID, no interrupt) is a trap at the ebreak, unimp an
// invalid instruction at the unimp (the interrupt's pc is 4 past it), and
// a fault's pc is the faulting load, not the block's start.
func TestRISCV64Traps(t *testing.T) {
	a := regs.RISCV64
	cases := []struct {
		fn, insn string
		kind     Kind
	}{
		{"trap", "ebreak", KindTrap},
		{"bad_insn", "unimp", KindInvalid},
		{"bad_read", "ld a0,0(a1)", KindFault},
		{"bad_fetch", "", KindFault},
	}
	for _, c := range cases {
		t.Run(c.fn, func(t *testing.T) {
			m := newTestMachine(t, a)
			err := m.Call(sym(t, m, c.fn), sym(t, m, "done"), stackTop(a), nil, RunOptions{Limit: 1000, Timeout: 5 * time.Second})
			e, ok := AsError(err)
			if !ok {
				t.Fatalf("got %v, want an *emu.Error", err)
			}
			if e.Kind != c.kind || e.Arch != "riscv64" {
				t.Fatalf("kind %q arch %s, want %q riscv64\n%v", e.Kind, e.Arch, c.kind, e)
			}
			if c.insn == "" {
				if e.PC != 0x1000 {
					t.Errorf("pc %#x, want the fetch address 0x1000", e.PC)
				}
				return
			}
			if !strings.Contains(e.Insn, c.insn) || e.Regs[a.PC] != e.PC {
				t.Errorf("instruction %q at %#x (registers' pc %#x), want %q\n%v", e.Insn, e.PC, e.Regs[a.PC], c.insn, e)
			}
			for _, w := range []string{"riscv64", "ra ", "t6 ", "pc "} {
				if !strings.Contains(e.Error(), w) {
					t.Errorf("message lacks %q:\n%v", w, e)
				}
			}
		})
	}
}
