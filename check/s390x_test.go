package check

import (
	"fmt"
	"testing"

	"trampemu/harness"
	"trampemu/regs"
)

// TestS390xTracedFrame: the 24-byte frame an s390x entry builds for the
// traced function below its entry sp R (arch/s390/kernel/mcount.S
// ftrace_regs_entry, v6.x: back chain R at R+128, r14 = ip+6 at R+112,
// r15 = R-24 at R+120), checked only when its back chain word is there,
// and the chain each call into C walks must go through it.
func TestS390xTracedFrame(t *testing.T) {
	a := regs.S390X
	const fsize = regs.S390TracedFuncFrameSize
	build := func() *harness.Invocation {
		inv := handInvocation(t, a)
		r := inv.Before[a.SP]
		a.PutWord(inv.AboveBefore[128:], r)
		a.PutWord(inv.AboveBefore[112:], inv.EntryRet)
		a.PutWord(inv.AboveBefore[120:], r-fsize)
		inv.Calls[0].Backchain = []uint64{inv.Calls[0].Regs[a.SP], r - fsize, r, inv.DriverSP, 0}
		return inv
	}
	for _, c := range []struct {
		name string
		edit func(inv *harness.Invocation)
		want func(inv *harness.Invocation) []string
	}{
		{"sound", func(*harness.Invocation) {}, nil},
		{"no frame: no back chain word R", func(inv *harness.Invocation) {
			a.PutWord(inv.AboveBefore[128:], inv.Before[a.SP]+8)
			a.PutWord(inv.AboveBefore[112:], 0)
		}, nil},
		{"a window too short for the frame", func(inv *harness.Invocation) { inv.AboveBefore = inv.AboveBefore[:135] }, nil},
		{"a window just long enough", func(inv *harness.Invocation) {
			inv.AboveBefore = inv.AboveBefore[:136]
			a.PutWord(inv.AboveBefore[112:], 0)
		}, func(inv *harness.Invocation) []string {
			return []string{fmt.Sprintf("the frame built for the traced function (entry sp-24) holds r14 = 0x0, want its ip+6 %#x (the unwinder's return address)", inv.EntryRet)}
		}},
		{"wrong r14 and r15", func(inv *harness.Invocation) {
			a.PutWord(inv.AboveBefore[112:], inv.EntryRet+2)
			a.PutWord(inv.AboveBefore[120:], inv.Before[a.SP])
		}, func(inv *harness.Invocation) []string {
			r := inv.Before[a.SP]
			return []string{
				fmt.Sprintf("the frame built for the traced function (entry sp-24) holds r14 = %#x, want its ip+6 %#x (the unwinder's return address)", inv.EntryRet+2, inv.EntryRet),
				fmt.Sprintf("the frame built for the traced function (entry sp-24) holds r15 = %#x, want the frame's own address %#x", r, r-fsize),
			}
		}},
		{"a chain of two past the frame", func(inv *harness.Invocation) {
			inv.Calls[0].Backchain = []uint64{inv.Calls[0].Regs[a.SP], inv.Before[a.SP]}
		}, func(inv *harness.Invocation) []string {
			r := inv.Before[a.SP]
			return []string{fmt.Sprintf("at the call to %s the back chain goes from sp to %#x, not to the frame built for the traced function (%#x)", harness.HostOpsListFunc, r, r-fsize)}
		}},
		{"a chain of one: nothing to follow", func(inv *harness.Invocation) {
			inv.Calls[0].Backchain = inv.Calls[0].Backchain[:1]
		}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			inv := build()
			c.edit(inv)
			got := s390xTracedFrame(a, inv, inv.AboveBefore)
			var want []string
			if c.want != nil {
				want = c.want(inv)
			}
			if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
				t.Errorf("got %q\nwant %q", got, want)
			}
		})
	}
}
