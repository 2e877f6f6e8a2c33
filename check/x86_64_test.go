package check

import (
	"testing"

	"trampemu/regs"
)

// The x86-64 parent_ip: the word above the fentry call's return address,
// read from the window above the entry sp only when the window holds it
// (16 bytes: the return address and the word above it).
func TestX86ParentIP(t *testing.T) {
	a := regs.X86_64
	conv, err := conventionOf(a)
	if err != nil {
		t.Fatal(err)
	}
	inv := handInvocation(t, a)
	parent := a.Memory.Text.Base + 0x40 // handInvocation's caller, above the return address
	for _, c := range []struct {
		n    int
		want uint64
	}{{len(inv.AboveBefore), parent}, {16, parent}, {15, 0}, {8, 0}, {0, 0}} {
		cp := *inv
		cp.AboveBefore = inv.AboveBefore[:c.n]
		if got := conv.parentIP(&cp); got != c.want {
			t.Errorf("a window of %d bytes: parent_ip %#x, want %#x", c.n, got, c.want)
		}
	}
}
