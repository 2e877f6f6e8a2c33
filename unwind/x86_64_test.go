package unwind_test

import (
	"errors"
	"os"
	"slices"
	"testing"

	"trampemu/unwind"
)

// stack is a little task stack for the walks: words by address.
type stack map[uint64]uint64

func (s stack) mem() unwind.Mem {
	return unwind.Mem{Read: func(a uint64) uint64 { return s[a] }, Lo: 0xffffc90000000000, Hi: 0xffffc90000004000}
}

// TestORCWalks: from an interrupt inside each function of badhints.S with
// its true stack (one pushed word under the return address into driver),
// the ORC walk of the correct function reaches driver's return address and
// the end of the stack without error; each wrong hint gives an unreliable
// walk that never names driver_ret.
func TestORCWalks(t *testing.T) {
	text, err := os.ReadFile("testdata/badhints.S")
	if err != nil {
		t.Fatal(err)
	}
	im, tab := Table(t, "badhints.S", text)
	sym := func(n string) uint64 {
		a, ok := im.Symbol(n)
		if !ok {
			t.Fatalf("no symbol %s", n)
		}
		return a
	}
	ret := sym("driver_ret")
	const sp = 0xffffc90000003f00
	for _, c := range []struct {
		fn    string
		off   uint64 // the interrupted instruction: the call after the push
		frame []uint64
		ok    bool
	}{
		{"good", 1, []uint64{0x1234, ret}, true},
		{"bad_offset", 1, []uint64{0x1234, ret}, false},
		{"bad_undef", 1, []uint64{0x1234, ret}, false},
		{"bad_nofunc", 4, []uint64{0x1234, ret}, false},
	} {
		t.Run(c.fn, func(t *testing.T) {
			s := stack{}
			for i, w := range c.frame {
				s[sp+8*uint64(i)] = w
			}
			o := unwind.ORC{Table: tab, Mem: s.mem()}
			w := o.FromRegs(unwind.Regs{IP: sym(c.fn) + c.off, SP: sp, BP: 0})
			found := slices.Contains(w.IPs(), ret)
			if c.ok {
				if w.Err != nil || !w.Done || !found {
					t.Errorf("walk %x: err %v done %v", w.IPs(), w.Err, w.Done)
				}
				return
			}
			if w.Err == nil || !errors.Is(w.Err, unwind.ErrUnreliable) {
				t.Errorf("walk %x: no error", w.IPs())
			}
			if c.fn != "bad_undef" && found && w.Err == nil {
				t.Errorf("walk %x reaches the caller", w.IPs())
			}
		})
	}
}
