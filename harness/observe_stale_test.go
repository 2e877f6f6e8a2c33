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
					if i%2 == 0 { // the first slot, at the range's start, stays poison
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
			h := startCurrent(t, a, readers, Options{Checks: true})
			defer h.Close()
			calls, err := RandomCalls(h, "add", 3, 1)
			if err != nil {
				t.Fatal(err)
			}
			if err := h.RunChecked(calls); err != nil {
				t.Fatal(err)
			}
			var stale, fresh, runs, stackReads int
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
							stackReads++
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
			// Arguments past the argument registers are read from the
			// stack (not on arm64: 0 past x7, ArgsInRegsOnly).
			if len(a.Args) < 8 && !h.Setup.Entry.FrameLayout(a).Accessors.ArgsInRegsOnly && stackReads == 0 {
				t.Errorf("arguments 6 and 7 read, %d argument registers, and no stack read recorded", len(a.Args))
			}
			if stale == 0 || fresh == 0 {
				t.Errorf("%d stale and %d fresh slot reads: the test needs both", stale, fresh)
			}
		})
	}
}

// TestStaleAtTheEdges: the observer's staleness rule at the edges of its
// ranges, on memory of a real machine: the C-side scratch buffer (BPF's
// partial regs copy) from its first to its last byte, a read crossing its
// end judged as any other; an aligned word judged by the value read (the
// word at the deepest poisoned address and the one just below the entry
// sp are in the range, the entry sp's own word is not); a 4-byte or
// unaligned read judged by the bytes in memory.
func TestStaleAtTheEdges(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			m, err := emu.New(a)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			h := &Harness{Arch: a, M: m}
			o := observer{h}
			base := a.Memory.Stack.End() - 4096
			// Poison from base on, but for the word at base+8 (written).
			m.Write(base, poisonAt(a, base, 1024))
			m.Write(base+8, []byte{1, 2, 3, 4, 5, 6, 7, 8})
			h.scratchLo, h.scratchHi = base, base+64
			// The run's poisoned stack elsewhere: only the scratch rule
			// can call these stale; for the read crossing the scratch
			// end, over it: the stack's rule decides there.
			away := &Invocation{poisonLo: base + 2048, poisonHi: base + 2048 + 640}
			over := &Invocation{poisonLo: base, poisonHi: base + 640}
			word := func(addr uint64) uint64 { return a.Word(m.Mem(addr, 8)) }
			for _, c := range []struct {
				name string
				inv  *Invocation
				addr uint64
				n    int
				v    uint64
				want bool
			}{
				{"scratch: first word", away, base, 8, word(base), true},
				{"scratch: a written word", away, base + 8, 8, word(base + 8), false},
				{"scratch: last word", away, base + 56, 8, word(base + 56), true},
				{"scratch: 4 bytes", away, base + 60, 4, 0, true},
				{"past the scratch end", away, base + 64, 8, word(base + 64), false},
				{"crossing the scratch end: the stack's rule (poison in memory)", over, base + 60, 8, 0, true},
			} {
				if got := o.stale(c.inv, c.addr, c.n, c.v); got != c.want {
					t.Errorf("%s: stale %v, want %v", c.name, got, c.want)
				}
			}
			h.scratchLo, h.scratchHi = 0, 0
			lo, hi := base+128, base+128+256
			inv := &Invocation{poisonLo: lo, poisonHi: hi}
			for _, c := range []struct {
				name string
				addr uint64
				n    int
				v    uint64
				want bool
			}{
				// An aligned word: the value read decides, not memory.
				{"the deepest poisoned word", lo, 8, emu.Poison(lo), true},
				{"the word just below the entry sp", hi - 8, 8, emu.Poison(hi - 8), true},
				{"the entry sp's own word", hi, 8, emu.Poison(hi), false},
				{"below the poisoned range", lo - 8, 8, emu.Poison(lo - 8), false},
				{"a word read as poison though memory changed since", lo + 16, 8, emu.Poison(lo + 16), true},
				{"a word read as another value", lo + 16, 8, emu.Poison(lo+16) ^ 1, false},
				// 4 bytes or unaligned: the bytes in memory decide.
				{"4 poisoned bytes", lo + 32, 4, 0, true},
				{"8 unaligned poisoned bytes", lo + 36, 8, 0, true},
				{"4 bytes past the range", hi, 4, 0, false},
			} {
				if c.name == "a word read as poison though memory changed since" {
					m.Write(lo+16, []byte{9, 9, 9, 9, 9, 9, 9, 9})
				}
				if got := o.stale(inv, c.addr, c.n, c.v); got != c.want {
					t.Errorf("%s: stale %v, want %v", c.name, got, c.want)
				}
			}
		})
	}
}

// TestProbeBudget: with a budget of three, the first three runs are
// probed and no later one; with -1 every run is.
func TestProbeBudget(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			for _, c := range []struct{ budget, want int }{{3, 3}, {-1, 8}} {
				h := startCurrent(t, a, readers, Options{Checks: true, ProbeBudget: c.budget})
				calls, err := RandomCalls(h, "add", 4, 1)
				if err != nil {
					t.Fatal(err)
				}
				if err := h.RunChecked(calls); err != nil {
					t.Fatal(err)
				}
				probed, runs, later := 0, 0, false
				for _, call := range calls {
					for _, inv := range call.Invocations {
						runs++
						switch {
						case inv.Probed && later:
							t.Errorf("budget %d: run %d probed after an unprobed one", c.budget, runs)
						case inv.Probed:
							probed++
						default:
							later = true
						}
					}
				}
				h.Close()
				if runs != 8 || probed != c.want {
					t.Errorf("budget %d: %d of %d runs probed, want %d", c.budget, probed, runs, c.want)
				}
			}
		})
	}
}

// TestPoisonRangeAtEntry: every entry invocation's poisoned range ends
// where the C side's poison ends, the entry sp less the site form's kept
// bytes (ftrace.SiteForm.Keep: 8 for riscv64's v5.11-v6.2 ra-based site,
// whose saved parent sits right below sp; 0 elsewhere), so neither that
// parent nor the caller's word at the entry sp can read as stale while
// the word below them can; and an entry reached from a site that saves
// the link register below sp starts with that parent in it
// (Invocation.SiteLink), every other entry with what it was called with.
func TestPoisonRangeAtEntry(t *testing.T) {
	type pairing struct {
		a     *regs.Arch
		entry string // "" for the arch's current one
	}
	var ps []pairing
	for _, a := range regs.Arches {
		ps = append(ps, pairing{a, ""})
	}
	rv, err := regs.ArchByName("riscv64")
	if err != nil {
		t.Fatal(err)
	}
	ps = append(ps, pairing{rv, "ftrace_caller-v6.2"})
	for _, p := range ps {
		a := p.a
		t.Run(a.Name+"/"+p.entry, func(t *testing.T) {
			entry, err := Current(a, trampolines.Entry)
			if p.entry != "" {
				var v *trampolines.Variant
				if v, err = FindVariant(a, trampolines.Entry, p.entry); err == nil {
					entry, err = FromVariant(v)
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			s, err := IntendedSetup(a, entry)
			if err != nil {
				t.Fatal(err)
			}
			h, err := Start(s, Options{Checks: true}, readers)
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			keep := uint64(h.form.Keep)
			if (keep != 0) != (p.entry != "") || keep%8 != 0 {
				t.Fatalf("the site form keeps %d bytes: the pairings here expect whole words, and none but for the ra-based site", keep)
			}
			calls, err := RandomCalls(h, "add", 2, 1)
			if err != nil {
				t.Fatal(err)
			}
			if err := h.RunChecked(calls); err != nil {
				t.Fatal(err)
			}
			o, entries := observer{h}, 0
			for _, c := range calls {
				for _, inv := range c.Invocations {
					if inv.Role != trampolines.Entry {
						continue
					}
					entries++
					sp := inv.Before[a.SP]
					if inv.poisonLo != sp-PoisonDepth || inv.poisonHi != sp-keep {
						t.Errorf("poisoned [%#x, %#x), want [sp - %d, sp - %d) of sp %#x", inv.poisonLo, inv.poisonHi, PoisonDepth, keep, sp)
					}
					below := sp - keep - 8
					if !o.stale(inv, below, 8, emu.Poison(below)) {
						t.Errorf("the poison word right below the kept bytes at %#x does not read as stale", below)
					}
					if keep != 0 && o.stale(inv, sp-8, 8, emu.Poison(sp-8)) {
						t.Errorf("the word the site keeps at sp - 8 reads as stale")
					}
					if o.stale(inv, sp, 8, emu.Poison(sp)) {
						t.Errorf("the caller's word at the entry sp reads as stale")
					}
					if inv.SiteLink != h.form.LinkBelow {
						t.Errorf("SiteLink %v, want %v (the site form's LinkBelow)", inv.SiteLink, h.form.LinkBelow)
					}
					if inv.SiteLink && inv.Before[a.Link] != inv.BelowEntry {
						t.Errorf("the link register at entry %#x, want the parent the site saved below sp %#x", inv.Before[a.Link], inv.BelowEntry)
					}
				}
			}
			if entries == 0 {
				t.Fatal("no entry invocation ran")
			}
		})
	}
}
