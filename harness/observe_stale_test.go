package harness

import (
	"testing"

	"trampemu/emu"
	"trampemu/regs"
	"trampemu/trampolines"
)

// poisonAt returns n bytes of the poison pattern starting at addr, in the
// arch's byte order, as the C side leaves the stack below sp.
func poisonAt(a *regs.Arch, addr uint64, n int) []byte {
	out := make([]byte, n)
	for i := range out {
		b := addr + uint64(i)
		out[i] = a.WordByte(emu.Poison(b&^7), int(b&7))
	}
	return out
}

// TestPoisonedBytes: poison is recognised at any alignment and length and
// one changed byte anywhere makes it written; no bytes are never poison.
func TestPoisonedBytes(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			base := a.Memory.Stack.End() - 256
			for _, c := range []struct {
				off uint64
				n   int
			}{{0, 8}, {8, 8}, {0, 4}, {4, 4}, {3, 8}, {6, 3}, {0, 16}, {5, 1}} {
				addr := base + c.off
				p := poisonAt(a, addr, c.n)
				if !poisonedBytes(a, p, addr) {
					t.Errorf("%d bytes at +%d: poison not recognised", c.n, c.off)
				}
				for i := range p {
					q := append([]byte(nil), p...)
					q[i] ^= 0x01
					if poisonedBytes(a, q, addr) {
						t.Errorf("%d bytes at +%d, byte %d changed: still poison", c.n, c.off, i)
					}
				}
				// The pattern of another address is not this one's poison.
				if c.n >= 8 && poisonedBytes(a, poisonAt(a, addr+8, c.n), addr) {
					t.Errorf("%d bytes at +%d: the next word's poison taken for this one's", c.n, c.off)
				}
			}
			if poisonedBytes(a, nil, base) {
				t.Error("no bytes taken for poison")
			}
		})
	}
}

// TestSlotsDecode: a frame copy decodes into one state per slot, each
// value in the arch's byte order and word size (4-byte slots too), and a
// slot is written exactly when its bytes are not the poison of its
// address or lie outside the poisoned range.
func TestSlotsDecode(t *testing.T) {
	for _, a := range regs.Arches {
		for _, lay := range []*regs.Layout{a.Frame, a.PtRegs, a.RetRegs} {
			if lay == nil {
				continue
			}
			t.Run(a.Name+"/"+lay.Name, func(t *testing.T) {
				base := a.Memory.Stack.End() - 1024
				raw := poisonAt(a, base, lay.Size)
				written := map[int]uint64{}
				for i, s := range lay.Slots {
					if i%2 == 1 {
						continue
					}
					v := uint64(0x1122334455667788) + uint64(i)
					b := raw[s.Off : s.Off+s.Size]
					if s.Size == 8 {
						a.PutWord(b, v)
					} else {
						v &= 0xffffffff
						a.ByteOrder.PutUint32(b, uint32(v))
					}
					written[i] = v
				}
				hc := HostCall{Layout: lay, Base: base, Raw: raw, arch: a, poisonLo: base, poisonHi: base + uint64(lay.Size)}
				st := hc.Slots()
				if len(st) != len(lay.Slots) {
					t.Fatalf("%d states for %d slots", len(st), len(lay.Slots))
				}
				for i, s := range st {
					v, w := written[i]
					if s.Index != i || s.Written != w || (w && s.Value != v) {
						t.Errorf("slot %s: %+v, want written %v value %#x", lay.Slots[i].Name, s, w, v)
					}
				}
				// Outside the poisoned range nothing is poison: the slot
				// above the range holds what the caller left there.
				last := lay.Slots[len(lay.Slots)-1]
				hc.poisonHi = base + uint64(last.Off)
				if st := hc.Slots(); !st[len(st)-1].Written {
					t.Errorf("slot %s above the poisoned range taken for unwritten", last.Name)
				}
				first := lay.Slots[0]
				hc.poisonLo, hc.poisonHi = base+uint64(first.Off)+1, base+uint64(lay.Size)
				if st := hc.Slots(); !st[0].Written {
					t.Errorf("slot %s below the poisoned range taken for unwritten", first.Name)
				}
				hc.Raw = raw[:lay.Size-1]
				if hc.Slots() != nil {
					t.Error("a short frame copy decoded")
				}
				hc.Raw, hc.Layout = raw, nil
				if hc.Slots() != nil {
					t.Error("a call without a frame decoded")
				}
			})
		}
	}
}

// readers is a user set reading everything at entry and at return, with
// the kprobe-style user.
var readers = UserSet{Name: "readers", Function: true, Regs: true, Graph: true,
	EntryReads:    []string{"ip", "sp", "fp", "retval", "arg0", "arg1", "arg2", "arg3", "arg4", "arg5", "arg6", "arg7"},
	GraphRetReads: []string{"retval", "fp", "sp", "ip", "arg0", "arg1", "arg2", "arg3", "arg4", "arg5", "arg6", "arg7"}}

// TestReadsStaleExactlyWhereUnwritten runs each arch's current pairing with
// every reader: every read of a frame slot by C is stale exactly when the
// trampoline did not write the slot (its copy at the call still holds
// poison) and C did not write it either, and it reads the slot's value;
// every read and write names a call into C of its run; the runs come out
// with their roles, the entry's leaving where it must. The merged exits
// leave argument slots unwritten, so stale and fresh reads both occur.
func TestReadsStaleExactlyWhereUnwritten(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			entry, err := Current(a, trampolines.Entry)
			if err != nil {
				t.Fatal(err)
			}
			exit, err := Current(a, trampolines.Exit)
			if err != nil {
				t.Fatal(err)
			}
			h, err := Start(Setup{Arch: a, Entry: entry, Exit: exit}, Options{Checks: true}, readers)
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			calls, err := RandomCalls(h, "add", 3, 1)
			if err != nil {
				t.Fatal(err)
			}
			if err := h.RunChecked(calls); err != nil {
				t.Fatal(err)
			}
			var stale, fresh, runs int
			roles := map[trampolines.Role]int{}
			for _, c := range calls {
				for _, inv := range c.Invocations {
					runs++
					roles[inv.Role]++
					if !inv.Left {
						t.Fatalf("%s run did not leave", inv.Role)
					}
					if inv.Role == trampolines.Entry && (inv.LeavePC != inv.WantPC || inv.EntryRet == 0 || !h.EntryUnit().Contains(inv.EnterPC)) {
						t.Errorf("entry run: entered %#x, left to %#x, want %#x (entry ret %#x)", inv.EnterPC, inv.LeavePC, inv.WantPC, inv.EntryRet)
					}
					if inv.Role == trampolines.Exit && !h.ExitUnit().Contains(inv.EnterPC) {
						t.Errorf("exit run entered at %#x, outside return_to_handler", inv.EnterPC)
					}
					if sp := inv.Before[a.SP]; inv.poisonHi != sp || inv.poisonLo != sp-PoisonDepth {
						t.Errorf("poisoned range [%#x, %#x), want below sp %#x", inv.poisonLo, inv.poisonHi, sp)
					}
					if len(inv.AboveBefore) != AboveWindow || len(inv.AboveAfter) != AboveWindow {
						t.Errorf("above windows %d, %d bytes", len(inv.AboveBefore), len(inv.AboveAfter))
					}
					for _, w := range inv.GoWrites {
						if w.Call < 0 || w.Call >= len(inv.Calls) || w.Size <= 0 {
							t.Errorf("Go write %+v outside the run's %d calls", w, len(inv.Calls))
						}
					}
					cWritten := map[string]bool{}
					for _, w := range inv.CWrites {
						if w.Call < 0 || w.Call >= len(inv.Calls) {
							t.Errorf("C write %+v outside the run's %d calls", w, len(inv.Calls))
						}
						cWritten[w.Slot] = true
					}
					for _, rd := range inv.Reads {
						if rd.Call < 0 || rd.Call >= len(inv.Calls) {
							t.Fatalf("read %+v outside the run's %d calls", rd, len(inv.Calls))
						}
						if rd.Slot == "" {
							if rd.Stale {
								t.Errorf("stack read %+v stale: the caller's stack is not poison", rd)
							}
							continue
						}
						hc := &inv.Calls[rd.Call]
						if hc.Layout == nil {
							t.Fatalf("read of %s at a call without a frame", rd.Slot)
						}
						s, ok := hc.Layout.Slot(rd.Slot)
						if !ok {
							t.Fatalf("read of %s, not a slot of %s", rd.Slot, hc.Layout.Name)
						}
						if rd.Addr != hc.Base+uint64(s.Off) {
							t.Errorf("read of %s at %#x, the slot is at %#x", rd.Slot, rd.Addr, hc.Base+uint64(s.Off))
						}
						if cWritten[rd.Slot] {
							continue
						}
						var st SlotState
						for _, x := range hc.Slots() {
							if hc.Layout.Slots[x.Index].Name == rd.Slot {
								st = x
							}
						}
						if rd.Stale == st.Written || rd.Value != st.Value {
							t.Errorf("%s read of %s by %s: stale %v value %#x; the frame at the call: written %v value %#x",
								inv.Role, rd.Slot, rd.Caller, rd.Stale, rd.Value, st.Written, st.Value)
						}
						if rd.Stale {
							stale++
						} else {
							fresh++
						}
					}
				}
			}
			if roles[trampolines.Entry] != len(calls) || roles[trampolines.Exit] != len(calls) {
				t.Errorf("%d runs: %v, want one of each role per call", runs, roles)
			}
			if stale == 0 || fresh == 0 {
				t.Errorf("%d stale and %d fresh slot reads: the test needs both", stale, fresh)
			}
		})
	}
}
