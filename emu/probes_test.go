package emu

import (
	"fmt"
	"strings"
	"testing"

	"trampemu/asm"
	"trampemu/regs"
)

// TestProbeMemGuestStores probes testdata's guest_stores (a loop of four
// 8-byte stores relative to the entry stack pointer) and checks the logged
// accesses, implicit stack traffic included.
func TestProbeMemGuestStores(t *testing.T) {
	type acc struct {
		pcOff int   // from guest_stores
		spOff int64 // address relative to the stack pointer at entry
		store bool
	}
	cases := []struct {
		arch *regs.Arch
		// perIter are the accesses of one loop iteration, in order, with
		// the instruction offsets the encodings give (x86-64: movq %rsp,%rsi
		// is 3 bytes, each movq %rdi,-N(%rsi) 4; s390x: each stg 6).
		perIter []acc
		// tail are the accesses after the loop: x86-64's ret pops the
		// return address at the entry sp; s390x's br %r14 touches no memory.
		tail []acc
	}{
		{regs.X86_64,
			[]acc{{3, -8, true}, {7, -16, true}, {11, -24, true}, {15, -32, true}},
			[]acc{{24, 0, false}}},
		{regs.S390X,
			[]acc{{0, 0, true}, {6, 8, true}, {12, 16, true}, {18, 24, true}},
			nil},
	}
	const iters = 3
	for _, c := range cases {
		t.Run(c.arch.Name, func(t *testing.T) {
			a := c.arch
			m := newTestMachine(t, a)
			start, end, ok := m.Image.FuncRange("guest_stores")
			if !ok {
				t.Fatal("no guest_stores")
			}
			unknown, err := m.ProbeMem(start, end)
			if err != nil {
				t.Fatal(err)
			}
			if len(unknown) != 0 {
				t.Errorf("instructions without memory facts: %v", unknown)
			}
			sp := stackTop(a)
			entrySP := sp
			if a.Link < 0 {
				entrySP -= 8 // Call pushes the return address
			}
			var want []Access
			add := func(x acc) {
				want = append(want, Access{PC: start + uint64(x.pcOff), Addr: entrySP + uint64(x.spOff), Size: 8, Load: !x.store, Store: x.store})
			}
			for range iters {
				for _, x := range c.perIter {
					add(x)
				}
			}
			for _, x := range c.tail {
				add(x)
			}

			m.SetProbing(true)
			if err := m.Call(start, sym(t, m, "done"), sp, []uint64{iters}, RunOptions{}); err != nil {
				t.Fatal(err)
			}
			got, overflow := m.TakeAccesses()
			if overflow {
				t.Error("log overflow")
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("accesses:\n%s\nwant:\n%s", fmtAccesses(got, entrySP), fmtAccesses(want, entrySP))
			}
			stores := 0
			for _, g := range got {
				if g.Store {
					stores++
				}
			}
			if stores != 4*iters {
				t.Errorf("%d stores, want 4 per iteration", stores)
			}
			if again, _ := m.TakeAccesses(); len(again) != 0 {
				t.Errorf("TakeAccesses did not clear the log: %d left", len(again))
			}

			// Probing off: the probes stay, nothing is logged.
			m.SetProbing(false)
			if err := m.Call(start, sym(t, m, "done"), sp, []uint64{iters}, RunOptions{}); err != nil {
				t.Fatal(err)
			}
			if off, _ := m.TakeAccesses(); len(off) != 0 {
				t.Errorf("probing off logged %d accesses", len(off))
			}
		})
	}
}

func fmtAccesses(as []Access, sp uint64) string {
	var b strings.Builder
	for _, x := range as {
		op := "load "
		if x.Store {
			op = "store"
		}
		fmt.Fprintf(&b, "  pc %#x %s sp%+d (%d bytes)\n", x.PC, op, int64(x.Addr-sp), x.Size)
	}
	return b.String()
}

// TestFetchFromUnmappedAddressIsFault jumps to addresses outside guest
// memory: the run must end in an *Error of kind KindFault at that address.
func TestFetchFromUnmappedAddressIsFault(t *testing.T) {
	cases := []struct {
		arch *regs.Arch
		src  string // jump_to(addr) jumps to its first argument
		bad  []uint64
	}{
		{regs.X86_64,
			"\t.text\nSYM_FUNC_START(jump_to)\n\tjmp\t*%rdi\nSYM_FUNC_END(jump_to)\nSYM_CODE_START(done)\n\tnop\nSYM_CODE_END(done)\n",
			[]uint64{0x1000, 0x00007fff00000000, regs.X86_64.Memory.Text.End() + 0x10000}},
		{regs.S390X,
			"\t.text\nSYM_FUNC_START(jump_to)\n\tbr\t%r2\nSYM_FUNC_END(jump_to)\nSYM_CODE_START(done)\n\tnopr\t%r7\nSYM_CODE_END(done)\n",
			[]uint64{0x1000, 0x40000000, regs.S390X.Memory.Text.End() + 0x10000}},
	}
	for _, c := range cases {
		for _, bad := range c.bad {
			t.Run(fmt.Sprintf("%s/%#x", c.arch.Name, bad), func(t *testing.T) {
				a := c.arch
				if _, ok := a.Memory.Find(bad); ok {
					t.Fatalf("%#x is mapped: the test needs an unmapped address", bad)
				}
				m := loadMachine(t, a, asm.Options{Arch: a}, asm.Source{Name: "jump_" + a.Name + ".S", Text: []byte(c.src)})
				fn, _ := m.Image.Symbol("jump_to")
				done, _ := m.Image.Symbol("done")
				err := m.Call(fn, done, stackTop(a), []uint64{bad}, RunOptions{Limit: 1000})
				e, ok := AsError(err)
				if !ok {
					t.Fatalf("got %v, want an *emu.Error", err)
				}
				if e.Kind != KindFault {
					t.Errorf("kind %q, want %q\n%v", e.Kind, KindFault, e)
				}
				if !e.HasAddr || e.Addr != bad || e.PC != bad {
					t.Errorf("fault at pc %#x address %#x (known %v), want both %#x\n%v", e.PC, e.Addr, e.HasAddr, bad, e)
				}
				if e.Arch != a.Name || !strings.Contains(e.Error(), string(KindFault)) {
					t.Errorf("message does not name %s and the fault:\n%v", a.Name, e)
				}
			})
		}
	}
}
