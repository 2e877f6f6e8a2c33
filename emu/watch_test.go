package emu

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"trampemu/regs"

	"trampemu/asm"
)

// Every watch event carries the guest word at WatchOptions.Tag as it was
// when the event happened: a driver's call number ties trampoline runs to
// calls.
func TestWatchEventsCarryTag(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			m := newTestMachine(t, a)
			if err := m.Bind("host_add", func(m *Machine) error { m.SetReturn(0); return nil }, true); err != nil {
				t.Fatal(err)
			}
			fn := sym(t, m, "guest_add")
			tagWord := a.Memory.Data.End() - 8
			// The range holds guest_add's first instruction only: entering it
			// is an enter event, the block after the host call a leave.
			if err := m.Watch(fn, fn+1, WatchOptions{Tag: tagWord}); err != nil {
				t.Fatal(err)
			}
			for _, tag := range []uint64{0x1111, 0xfeedface00000002} {
				m.WriteWord(tagWord, tag)
				if err := m.Call(fn, sym(t, m, "done"), stackTop(a), []uint64{1, 2}, RunOptions{}); err != nil {
					t.Fatal(err)
				}
				var evs []WatchEvent
				m.DrainWatch(func(ev *WatchEvent) { evs = append(evs, *ev) })
				if len(evs) != 2 || !evs[0].Enter || evs[1].Enter {
					t.Fatalf("tag %#x: got %d events %+v, want an enter and a leave", tag, len(evs), evs)
				}
				for _, ev := range evs {
					if ev.Tag != tag {
						t.Errorf("event at %#x: tag %#x, want %#x", ev.PC, ev.Tag, tag)
					}
				}
			}
			err := m.Watch(fn, fn+1, WatchOptions{Tag: 0x10})
			if err == nil || !strings.Contains(err.Error(), "not in") {
				t.Errorf("a tag outside guest memory: got %v, want an error", err)
			}
		})
	}
}

// The C side names machines by id: a closed machine's id is reused and
// every id finds its own machine.
func TestMachineIDsAreReused(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			m1, m2 := newTestMachine(t, a), newTestMachine(t, a)
			id1 := m1.id
			m1.Close()
			m3 := newTestMachine(t, a)
			if m3.id != id1 {
				t.Errorf("new machine got id %d, want the freed %d", m3.id, id1)
			}
			if machineByID(m3.id) != m3 || machineByID(m2.id) != m2 {
				t.Error("an id does not find its machine")
			}
			// The reused id still routes host calls to the right machine.
			if err := m3.Bind("host_add", func(m *Machine) error { m.SetReturn(m.Arg(0) * m.Arg(1)); return nil }, true); err != nil {
				t.Fatal(err)
			}
			if err := m3.Call(sym(t, m3, "guest_add"), sym(t, m3, "done"), stackTop(a), []uint64{6, 7}, RunOptions{}); err != nil {
				t.Fatal(err)
			}
			if r := m3.Reg(a.Ret[0]); r != 43 {
				t.Errorf("guest returned %d, want 43", r)
			}
		})
	}
}

// The interrupt model interrupts each run of the armed range once, at the
// next instruction boundary each time (and again from the first when a run
// is too short for its boundary), and overwrites the stack below sp with
// the poison pattern after the Go callback has seen the interrupted state;
// switched off, it leaves the runs alone.
func TestInterruptsVisitEveryBoundary(t *testing.T) {
	const xor = 0x5afe000000000000
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			m := newTestMachine(t, a)
			if err := m.Bind("host_add", func(m *Machine) error { m.SetReturn(m.Arg(0) + m.Arg(1)); return nil }, true); err != nil {
				t.Fatal(err)
			}
			fn, end, ok := m.Image.FuncRange("guest_add")
			if !ok {
				t.Fatal("no guest_add")
			}
			ins, err := asm.Listing(m.Image, asm.ForImage(m.Image), fn, end)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Watch(fn, end, WatchOptions{PoisonXor: xor}); err != nil {
				t.Fatal(err)
			}
			var pcs, sps []uint64
			err = m.Interrupts(fn, end, 64, func(m *Machine, pc uint64) error {
				r := m.Regs()
				if r[a.PC] != pc {
					t.Errorf("interrupt at %#x: regs say pc %#x", pc, r[a.PC])
				}
				sp := r[a.SP]
				pcs, sps = append(pcs, pc), append(sps, sp)
				m.WriteWord(sp-40, 0x1234) // the interrupt's frame must overwrite it
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			// a dead run after the last boundary, then the first boundary
			// again; then two runs switched off
			runs := len(ins) + 4
			for i := 0; i < runs; i++ {
				m.SetInterrupting(i < runs-2)
				n := len(pcs)
				if err := m.Call(fn, sym(t, m, "done"), stackTop(a), []uint64{1, 2}, RunOptions{}); err != nil {
					t.Fatal(err)
				}
				if r := m.Reg(a.Ret[0]); r != 4 {
					t.Fatalf("run %d: guest_add returned %d, want 4", i, r)
				}
				m.DrainWatch(func(*WatchEvent) {})
				if len(pcs) > n {
					addr := sps[n] - 40
					if got, want := m.ReadWord(addr), uint64(xor)^(addr&0xffffffffffff); got != want {
						t.Errorf("run %d: the word below sp holds %#x after the interrupt, want the poison %#x", i, got, want)
					}
				}
			}
			var want []uint64
			for _, in := range ins {
				want = append(want, in.Addr)
			}
			want = append(want, ins[0].Addr)
			if !slices.Equal(pcs, want) {
				t.Errorf("interrupted at %#x, want %#x", pcs, want)
			}
		})
	}
}

// A split watch range is two: control going straight from the first part
// into the second is a leave of the first and an enter of the second, and
// without the split it is neither.
func TestWatchSplit(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			m := newTestMachine(t, a)
			lo, hi := sym(t, m, "split_a"), sym(t, m, "done")
			b := sym(t, m, "split_b")
			for _, split := range []uint64{b, 0} {
				if err := m.Watch(lo, hi, WatchOptions{Split: split}); err != nil {
					t.Fatal(err)
				}
				if err := m.Call(lo, sym(t, m, "done"), stackTop(a), nil, RunOptions{}); err != nil {
					t.Fatal(err)
				}
				var got []string
				m.DrainWatch(func(ev *WatchEvent) {
					what := "leave"
					if ev.Enter {
						what = "enter"
					}
					got = append(got, fmt.Sprintf("%s %s", what, m.Image.Describe(ev.PC)))
				})
				// (the run stops at done, before a leave there)
				want := []string{"enter split_a"}
				if split != 0 {
					want = []string{"enter split_a", "leave split_b", "enter split_b"}
				}
				if !slices.Equal(got, want) {
					t.Errorf("split %#x: events %q, want %q", split, got, want)
				}
			}
		})
	}
}

// WatchOptions.Keep leaves the bytes right below sp alone, at the enter
// (its poison starts Keep below sp) and at an interrupt of the interrupt
// model alike, while the words below them get the pattern. guest_add
// writes nothing 24 bytes or more below its entry sp before it calls
// host_add (its own frame is above that or, on s390x, 160 below).
func TestWatchKeep(t *testing.T) {
	const xor, keep, below = 0x5afe000000000000, 24, 64
	const kept, moved = 0x1111222233334444, 0x5555666677778888
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			m := newTestMachine(t, a)
			fn, end, ok := m.Image.FuncRange("guest_add")
			if !ok {
				t.Fatal("no guest_add")
			}
			var entrySP uint64
			var got [2]uint64
			if err := m.Bind("host_add", func(m *Machine) error {
				if entrySP != 0 {
					got = [2]uint64{m.ReadWord(entrySP - keep), m.ReadWord(entrySP - keep - 8)}
				}
				m.SetReturn(m.Arg(0) + m.Arg(1))
				return nil
			}, true); err != nil {
				t.Fatal(err)
			}
			if err := m.Watch(fn, end, WatchOptions{PoisonBelow: below, Keep: keep, PoisonXor: xor}); err != nil {
				t.Fatal(err)
			}
			call := func() {
				t.Helper()
				if err := m.Call(fn, sym(t, m, "done"), stackTop(a), []uint64{1, 2}, RunOptions{}); err != nil {
					t.Fatal(err)
				}
				m.DrainWatch(func(ev *WatchEvent) {
					if ev.Enter {
						entrySP = ev.Regs[a.SP]
					}
				})
			}
			call() // learns the entry sp
			poison := xor ^ (entrySP-keep-8)&0xffffffffffff
			m.WriteWord(entrySP-keep, kept)
			m.WriteWord(entrySP-keep-8, kept)
			call()
			if got != [2]uint64{kept, poison} {
				t.Errorf("enter: words at entry sp-%d, -%d are %#x, want kept %#x and the poison %#x", keep, keep+8, got, uint64(kept), poison)
			}
			// The interrupt at the first boundary: its callback writes
			// both words, the interrupt's frame overwrites only the lower.
			if err := m.Interrupts(fn, end, below, func(m *Machine, pc uint64) error {
				sp := m.Regs()[a.SP]
				m.WriteWord(sp-keep, moved)
				m.WriteWord(sp-keep-8, moved)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			call()
			if got != [2]uint64{moved, poison} {
				t.Errorf("interrupt: words at entry sp-%d, -%d are %#x, want kept %#x and the poison %#x", keep, keep+8, got, uint64(moved), poison)
			}
		})
	}
}
