package ftrace

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"trampemu/regs"
)

// TestGraphStatsCount: the graph's counters (GraphStats) against a
// scripted run on every arch: two nested traced calls (the inner one
// reserving a word of data), one call no user accepts, the returns. Each
// counter is the count the run implies: a push writes the frame's
// FGRAPH_FRAME_OFFSET + 1 words, set_bitmap one more, a reservation its
// DATA word (kernel/trace/fgraph.c, v6.11+).
func TestGraphStatsCount(t *testing.T) {
	archs(t, func(t *testing.T, a *regs.Arch) {
		e := newEnv(t, a)
		rets := 0
		_ = e.g.Register(&GraphOps{Name: "a",
			EntryFunc: func(g *Graph, tr *GraphEnt, o *GraphOps, _ *regs.Frame) bool {
				if tr.Func == e.fn(1) {
					if _, ok := g.ReserveData(o, 8); !ok {
						t.Fatal("reservation refused")
					}
				}
				return tr.Func != e.fn(2)
			},
			RetFunc: func(*Graph, *GraphRet, *GraphOps, *regs.Frame) { rets++ }})
		if fs, err := e.g.Frames(); err != nil || len(fs) != 0 {
			t.Fatalf("an empty shadow stack walks to %v, %v; want no frames", fs, err)
		}
		e.call(e.fn(0), 0, 0, func(uint64) uint64 {
			return e.call(e.fn(1), 1, 0, func(v uint64) uint64 {
				fs, err := e.g.Frames()
				if fo := FrameOffsetOf(a); err != nil || len(fs) != 2 || fs[0].Words() != fo+3 || fs[1].Words() != fo+1 {
					t.Fatalf("frames %+v, %v: want the inner one of %d words (1 of data), the outer of %d", fs, err, fo+3, fo+1)
				}
				return v
			})
		})
		e.call(e.fn(2), 2, 0, ident)
		fo := FrameOffsetOf(a)
		st := e.g.Stats()
		got := [6]uint64{st.Entries, st.Traced, st.Untraced, st.Returns, st.RetFuncs, st.Corrupt}
		if want := [6]uint64{3, 2, 1, 2, uint64(rets), 0}; got != want || rets != 2 {
			t.Errorf("entries, traced, untraced, returns, retfuncs, corrupt = %v, want %v (retfunc calls %d)", got, want, rets)
		}
		// 3 pushes, 2 bitmaps, 1 DATA word; the frames: fo+1, fo+1+2.
		if st.WrittenWords != uint64(3*(fo+1)+2+1) || st.TracedWords != uint64(2*(fo+1)+2) {
			t.Errorf("written %d, traced words %d; want %d, %d", st.WrittenWords, st.TracedWords, 3*(fo+1)+3, 2*(fo+1)+2)
		}
		if st.LastFrameWords != fo+3 || st.MaxFrameWords != fo+3 {
			t.Errorf("last frame %d, max %d words; want %d", st.LastFrameWords, st.MaxFrameWords, fo+3)
		}
		if len(e.warns) != 0 {
			t.Errorf("warnings %v", e.warns)
		}
		e.empty()
	})
}

// TestDispatchNestedFrames: under every dispatch form a call traced inside
// another gets its own frame above the outer one; the frame-word counters
// count that frame alone (its words from its base, not from the stack's
// bottom).
func TestDispatchNestedFrames(t *testing.T) {
	archs(t, func(t *testing.T, a *regs.Arch) {
		for _, d := range GraphDispatches {
			dk := newDispatchKernel(t, a, d)
			outer, inner := a.Memory.Text.Base+0x100, a.Memory.Text.Base+0x200
			if err := dk.k.Graph.Register(&GraphOps{Name: "all", EntryFunc: accept}); err != nil {
				t.Fatal(err)
			}
			fo := FrameOffsetOf(a)
			// The outer call's entry, then the inner call on a lower sp.
			f := dk.k.Frame(dk.fregs, a.Frame)
			acc := a.Frame.Accessors
			f.Set(acc.IP, outer)
			f.Set(acc.SP, dk.sp)
			if acc.RetAddr != "" {
				f.Set(acc.RetAddr, a.Memory.Text.Base+0x10000)
			} else {
				dk.mem.WriteWord(dk.sp, a.Memory.Text.Base+0x10000)
			}
			dk.k.OpsListFunc(outer, a.Memory.Text.Base+0x10000, dk.k.FunctionTraceOp, dk.fregs)
			if c := dk.k.Graph.Current().Curr; c != fo+1 {
				t.Fatalf("%s: outer frame: curr %d, want %d", d, c, fo+1)
			}
			st := dk.k.Graph.Stats()
			dk.sp -= 0x100
			hooked, words := dk.call(t, inner, a.Memory.Text.Base+0x10010)
			st2 := dk.k.Graph.Stats()
			if !hooked || words != 2*(fo+1) {
				t.Fatalf("%s: inner call hooked %v, curr %d; want %d", d, hooked, words, 2*(fo+1))
			}
			if tw := st2.TracedWords - st.TracedWords; tw != uint64(fo+1) || st2.LastFrameWords != fo+1 || st2.MaxFrameWords != fo+1 {
				t.Errorf("%s: the inner frame counted %d words (last %d, max %d), want %d", d, tw, st2.LastFrameWords, st2.MaxFrameWords, fo+1)
			}
		}
	})
}

// TestDataReachingTheMetaWord: a DATA word whose size reaches down to the
// frame's meta word (the payload would overlap it) is corrupt: no data,
// a warning (get_data_type_data's frame bound, kernel/trace/fgraph.c,
// v6.11+), for the data lookup and for the walker; one word shorter it is
// found.
func TestDataReachingTheMetaWord(t *testing.T) {
	archs(t, func(t *testing.T, a *regs.Arch) {
		e := newEnv(t, a)
		o := &GraphOps{Name: "d", EntryFunc: func(g *Graph, _ *GraphEnt, o *GraphOps, _ *regs.Frame) bool {
			_, ok := g.ReserveData(o, 8)
			return ok
		}}
		_ = e.g.Register(o)
		if !e.g.Enter(e.caller(0), e.fn(0), 0, e.sp, e.fregs) {
			t.Fatal("not traced")
		}
		top := e.g.Current().Curr - 1
		word := e.word(top)
		addr, size, ok := e.g.RetrieveParentData(o, 0)
		if fo := FrameOffsetOf(a); !ok || size != 8 || addr != e.g.Current().Stack+8*uint64(fo+1) {
			t.Fatalf("the reserved word: %#x size %d ok %v", addr, size, ok)
		}
		e.mem.WriteWord(e.g.Current().Stack+8*uint64(top), DataWord(o.Index(), 2, MetaOffset(word)))
		if addr, _, ok := e.g.RetrieveParentData(o, 0); ok || !e.g.Warned(WarnBadFrameOffset) {
			t.Fatalf("2 words over a 1-word payload: found %#x %v, warnings %v", addr, ok, e.warns)
		}
		if fs, err := e.g.Frames(); !errors.Is(err, ErrCorruptStack) {
			t.Fatalf("the walker accepts the record: %+v, %v", fs, err)
		}
	})
}

// TestRethookCoreNodes: rethook_alloc's argument checks at their bounds,
// the pool's nodes laid out one object apart in the guest with
// node->rethook set, current->rethooks linked through the nodes' llist
// words newest first, a tail call's node (its return address already the
// trampoline) handled with the node below it, and an empty list an error
// (kernel/trace/rethook.c, v6.7+).
func TestRethookCoreNodes(t *testing.T) {
	archs(t, func(t *testing.T, a *regs.Arch) {
		r := newRethookEnv(t, a, RethookV613)
		c := r.k.Rethook
		var handled []uint64
		h := func(n *RethookNode, ret uint64, _ *regs.Frame) { handled = append(handled, n.Addr) }
		for _, bad := range []struct{ size, num int }{{RethookNodeSize, 0}, {RethookNodeSize - 1, 1}} {
			if _, err := c.Alloc(PoolObjpool, h, bad.size, bad.num); !errors.Is(err, EINVAL) {
				t.Errorf("rethook_alloc(size %d, num %d): %v, want EINVAL", bad.size, bad.num, err)
			}
		}
		if _, err := c.Alloc(PoolObjpool, h, RethookNodeSize, 1); err != nil {
			t.Errorf("rethook_alloc(sizeof(struct rethook_node), 1): %v", err)
		}
		used := r.heap.Used()
		const size, num = RethookNodeSize + 12, 3
		obj := uint64(size+7) &^ 7
		rh, err := c.Alloc(PoolFreelist, h, size, num)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.heap.Used() - used; got != num*obj+32 {
			t.Errorf("pool and struct rethook took %d heap bytes, want %d", got, num*obj+32)
		}
		var nodes []*RethookNode
		for n := c.TryGet(rh); n != nil; n = c.TryGet(rh) {
			nodes = append(nodes, n)
		}
		if len(nodes) != num {
			t.Fatalf("%d nodes in the pool, want %d", len(nodes), num)
		}
		base := nodes[0].Addr
		for _, n := range nodes {
			base = min(base, n.Addr)
		}
		hdr := r.mem.ReadWord(base + RethookNodeOffRethook)
		for i, n := range nodes {
			if off := n.Addr - base; off%obj != 0 || off >= num*obj {
				t.Errorf("node %d at pool offset %d: not on a %d-byte object", i, off, obj)
			}
			for _, m := range nodes[:i] {
				if m.Addr == n.Addr {
					t.Errorf("nodes %d and another share %#x", i, n.Addr)
				}
			}
			if got := r.mem.ReadWord(n.Addr + RethookNodeOffRethook); got != hdr || hdr < base+num*obj {
				t.Errorf("node %d: node->rethook %#x, want the struct rethook after the pool (%#x)", i, got, hdr)
			}
		}
		if _, err := c.TrampolineHandler(r.fregs, 0); err == nil {
			t.Error("rethook_trampoline_handler with no node: no error")
		}
		// A call, then a tail call from it: its return address is the
		// trampoline already.
		r.setEntry(1, r.caller(0))
		frame, _ := MustOps(a).RethookFrame(r.fregs)
		st := c.Stats()
		for i, n := range nodes[:2] {
			if err := c.Hook(n, r.fregs); err != nil {
				t.Fatal(i, err)
			}
		}
		if got := r.mem.ReadWord(nodes[0].Addr + RethookNodeOffLlist); got != 0 {
			t.Errorf("the first hooked node's next %#x, want NULL", got)
		}
		if got, want := r.mem.ReadWord(nodes[1].Addr+RethookNodeOffLlist), nodes[0].Addr+RethookNodeOffLlist; got != want {
			t.Errorf("the second node's next %#x, want the first's llist %#x", got, want)
		}
		if nodes[1].RetAddr() != c.Trampoline || c.Pending() != 2 {
			t.Fatalf("the tail call's node holds %#x, %d pending", nodes[1].RetAddr(), c.Pending())
		}
		got, err := c.TrampolineHandler(r.fregs, frame)
		if err != nil || got != r.caller(0) {
			t.Fatalf("return through the tail call: %#x, %v; want %#x", got, err, r.caller(0))
		}
		if st2 := c.Stats(); st2.Hooks-st.Hooks != 2 || st2.Returns-st.Returns != 1 || len(handled) != 2 || c.Pending() != 0 {
			t.Errorf("hooks %d, returns %d, handlers run on %d nodes, %d pending; want 2, 1, 2, 0", st2.Hooks-st.Hooks, st2.Returns-st.Returns, len(handled), c.Pending())
		}
	})
}

// fpEncodings are the header encodings every arch can hold heap pointers
// in (the v17 draft's cannot on s390x: TestFprobeHeaderArch).
var fpEncodings = []HeaderEncoding{HeaderMerged, HeaderTwoWord}

// TestFprobeRecordsAndCounts: two probes with exit handlers on one
// function, the newer without data: their records follow each other on
// the shadow stack, the older's data comes back to its exit handler where
// its entry handler wrote it, both exits run; the counters count what the
// run did (a push of FGRAPH_FRAME_OFFSET + 1 words, the DATA word, the
// bitmap, each record's header words; one header read per record, one
// fprobe_ip_table lookup per entry and one existence check per record:
// kernel/trace/fprobe.c, v6.14+).
func TestFprobeRecordsAndCounts(t *testing.T) {
	for _, enc := range fpEncodings {
		t.Run(enc.String(), func(t *testing.T) {
			archs(t, func(t *testing.T, a *regs.Arch) {
				f := newFprobeEnv(t, a, enc, false)
				hw, fo := f.m.codec.Words(), FrameOffsetOf(a)
				exits := map[string]int{}
				var entryData uint64
				older := &Fprobe{Name: "older", EntryDataSize: 16,
					EntryHandler: func(_ *Fprobe, _, _ uint64, _ *regs.Frame, d uint64) int {
						entryData = d
						f.mem.WriteWord(d, 0x1111)
						f.mem.WriteWord(d+8, 0x2222)
						return 0
					},
					ExitHandler: func(fp *Fprobe, _, _ uint64, _ *regs.Frame, d uint64) {
						exits[fp.Name]++
						if d != entryData || d == 0 || f.mem.ReadWord(d) != 0x1111 || f.mem.ReadWord(d+8) != 0x2222 {
							t.Errorf("exit data %#x (%#x, %#x), entry data %#x", d, f.mem.ReadWord(d), f.mem.ReadWord(d+8), entryData)
						}
					}}
				newer := &Fprobe{Name: "newer", ExitHandler: func(fp *Fprobe, _, _ uint64, _ *regs.Frame, d uint64) {
					exits[fp.Name]++
					if d != 0 {
						t.Errorf("newer: exit data %#x, want NULL", d)
					}
				}}
				for _, fp := range []*Fprobe{older, newer} {
					if err := f.m.Register(fp, "fprobe_selftest_target"); err != nil {
						t.Fatal(err)
					}
				}
				call := func() (written, read uint64) {
					gs := f.g.Stats()
					f.call(f.fn(0), 0, 1, ident)
					gs2 := f.g.Stats()
					return gs2.WrittenWords - gs.WrittenWords, gs2.ReadWords - gs.ReadWords
				}
				written, read2 := call()
				if exits["older"] != 1 || exits["newer"] != 1 {
					t.Fatalf("exits %v, want one each", exits)
				}
				if want := uint64(fo + 1 + 1 + 1 + 2*hw); written != want {
					t.Errorf("shadow-stack words written %d, want %d", written, want)
				}
				if ms := f.m.Stats(); ms.Entries != 1 || ms.Exits != 1 || ms.HashLookups != 3 {
					t.Errorf("entries %d, exits %d, lookups %d; want 1, 1, 3", ms.Entries, ms.Exits, ms.HashLookups)
				}
				if err := f.m.Unregister(newer); err != nil {
					t.Fatal(err)
				}
				if _, read1 := call(); read2-read1 != uint64(hw) {
					t.Errorf("words read with two records %d, with one %d: want %d more", read2, read1, hw)
				}
				if len(f.warns) != 0 {
					t.Errorf("warnings %v", f.warns)
				}
			})
		})
	}
}

// TestFprobeBudgetWarn: an entry handler that grows a later probe's
// entry_data_size in its struct fprobe makes that probe's record larger
// than the reservation made for it: a warning, and the probe gets no
// record (no exit call); the earlier one keeps its own.
func TestFprobeBudgetWarn(t *testing.T) {
	for _, enc := range fpEncodings {
		t.Run(enc.String(), func(t *testing.T) {
			archs(t, func(t *testing.T, a *regs.Arch) {
				f := newFprobeEnv(t, a, enc, false)
				exits := map[string]int{}
				exit := func(fp *Fprobe, _, _ uint64, _ *regs.Frame, _ uint64) { exits[fp.Name]++ }
				later := &Fprobe{Name: "later", EntryDataSize: 8, ExitHandler: exit}
				first := &Fprobe{Name: "first", EntryDataSize: 8, ExitHandler: exit,
					EntryHandler: func(*Fprobe, uint64, uint64, *regs.Frame, uint64) int {
						f.mem.WriteWord(later.Addr()+FprobeOffDataSize, 16)
						return 0
					}}
				for _, fp := range []*Fprobe{later, first} { // first is the newest: it runs first
					if err := f.m.Register(fp, "other_function"); err != nil {
						t.Fatal(err)
					}
				}
				f.call(f.fn(2), 2, 0, ident)
				if !f.g.Warned(WarnFprobeBudget) || exits["first"] != 1 || exits["later"] != 0 {
					t.Fatalf("warnings %v, exits %v: want the budget warning, first's exit only", f.warns, exits)
				}
			})
		})
	}
}

// TestFprobeRecordOverflow: a record header whose size reaches past the
// reserved words (the shadow stack overwritten between entry and exit) is
// fprobe_return's WARN_ON_ONCE(curr + size > size_words): no exit call
// with that record; with two-word headers, a header that would straddle
// the end is the same warning.
func TestFprobeRecordOverflow(t *testing.T) {
	for _, enc := range fpEncodings {
		t.Run(enc.String(), func(t *testing.T) {
			archs(t, func(t *testing.T, a *regs.Arch) {
				f := newFprobeEnv(t, a, enc, false)
				hw := f.m.codec.Words()
				exits := map[string]int{}
				exit := func(fp *Fprobe, _, _ uint64, _ *regs.Frame, _ uint64) { exits[fp.Name]++ }
				p := &Fprobe{Name: "p", EntryDataSize: 8, ExitHandler: exit}
				if err := f.m.Register(p, "other_function"); err != nil {
					t.Fatal(err)
				}
				spoil := func(fp *Fprobe, at, words int) {
					frames, err := f.g.Frames()
					if err != nil || len(frames) != 1 || len(frames[0].Data) != 1 {
						t.Fatalf("frames %+v %v", frames, err)
					}
					w, ok := f.m.codec.Encode(fp.Addr(), words)
					if !ok {
						t.Fatalf("%s: cannot encode %d words", enc, words)
					}
					for i, v := range w {
						f.mem.WriteWord(frames[0].Data[0].Addr+8*uint64(at+i), v)
					}
				}
				f.call(f.fn(2), 2, 0, func(uint64) uint64 { spoil(p, 0, 3); return 0 })
				if !f.g.Warned(WarnFprobeOverflow) || exits["p"] != 0 {
					t.Fatalf("a 3-word record in %d words: warnings %v, exits %v", hw+1, f.warns, exits)
				}
				if hw != 2 {
					return
				}
				// [q's header][p's header][p's word]: q's size made 2 puts the
				// next header at word 4 of 5.
				f = newFprobeEnv(t, a, enc, false)
				p = &Fprobe{Name: "p", EntryDataSize: 8, ExitHandler: exit}
				q := &Fprobe{Name: "q", ExitHandler: exit}
				for _, fp := range []*Fprobe{p, q} {
					if err := f.m.Register(fp, "other_function"); err != nil {
						t.Fatal(err)
					}
				}
				exits = map[string]int{}
				f.call(f.fn(2), 2, 0, func(uint64) uint64 { spoil(q, 0, 2); return 0 })
				if !f.g.Warned(WarnFprobeOverflow) || exits["q"] != 1 || exits["p"] != 0 {
					t.Fatalf("a header straddling the end: warnings %v, exits %v", f.warns, exits)
				}
			})
		})
	}
}

// TestFprobeStructOnDirtyMemory: struct fprobe is written whole at
// registration (nmissed, the flags word and its padding, entry_data_size,
// the handler marks, hlist_array) over memory holding anything, and
// nothing around it.
func TestFprobeStructOnDirtyMemory(t *testing.T) {
	archs(t, func(t *testing.T, a *regs.Arch) {
		f := newFprobeEnv(t, a, HeaderMerged, false)
		// An object before it, then struct fprobe, then unused heap.
		at, err := f.heap.Alloc(64, 8)
		if err != nil {
			t.Fatal(err)
		}
		dirt := make([]byte, 4*FprobeStructSize)
		for i := range dirt {
			dirt[i] = 0xa5
		}
		f.mem.Write(at, dirt)
		fp := &Fprobe{Name: "d", EntryDataSize: 8, ExitHandler: func(*Fprobe, uint64, uint64, *regs.Frame, uint64) {}}
		if err := f.m.Register(fp, "other_function"); err != nil {
			t.Fatal(err)
		}
		if fp.Addr() < at+FprobeStructSize || fp.Addr()+FprobeStructSize > at+uint64(len(dirt)) {
			t.Fatalf("struct fprobe at %#x, outside the dirtied %#x+%d: the heap moved on", fp.Addr(), at, len(dirt))
		}
		got := make([]byte, len(dirt))
		f.mem.Read(at, got)
		off := int(fp.Addr() - at)
		for i, b := range got {
			if inside := i >= off && i < off+FprobeStructSize; !inside && b != 0xa5 {
				t.Errorf("byte %d before or after struct fprobe changed to %#x", i-off, b)
			}
		}
		want := make([]byte, FprobeStructSize)
		a.PutWord(want[FprobeOffDataSize:], 8)
		a.PutWord(want[FprobeOffExit:], 1)
		if s := got[off : off+FprobeStructSize]; !bytes.Equal(s, want) {
			t.Errorf("struct fprobe\n% x\nwant\n% x", s, want)
		}
	})
}

// TestFprobeSharedAddress: two probes on one function and a third
// elsewhere, on both backends (fgraph for probes with an exit handler,
// the fast path's ftrace_ops for entry-only ones): unregistering one of
// the two leaves the other firing there; a function no probe names never
// reaches fprobe's callbacks (the filter hashes), nor does the third's
// function once it is gone. The env's calls reach fgraph for every
// function: fgraph tests the filters itself (GraphConfig.NoDirect).
func TestFprobeSharedAddress(t *testing.T) {
	for _, fast := range []bool{false, true} {
		t.Run(fmt.Sprint("fast=", fast), func(t *testing.T) {
			archs(t, func(t *testing.T, a *regs.Arch) {
				f := newFprobeEnvCfg(t, a, HeaderMerged, fast, true)
				entries := map[string]int{}
				mk := func(name string) *Fprobe {
					fp := &Fprobe{Name: name, EntryHandler: func(fp *Fprobe, _, _ uint64, _ *regs.Frame, _ uint64) int { entries[fp.Name]++; return 0 }}
					if !fast {
						fp.ExitHandler = func(*Fprobe, uint64, uint64, *regs.Frame, uint64) {}
					}
					return fp
				}
				p1, p2, p3 := mk("p1"), mk("p2"), mk("p3")
				for _, c := range []struct {
					fp  *Fprobe
					sym string
				}{{p1, "fprobe_selftest_target"}, {p2, "fprobe_selftest_target"}, {p3, "fprobe_selftest_target2"}} {
					if err := f.m.Register(c.fp, c.sym); err != nil {
						t.Fatal(err)
					}
				}
				callbacks := func() uint64 {
					s := f.m.Stats()
					return s.Entries + s.FtraceEntries
				}
				before := callbacks()
				f.call(f.fn(2), 2, 0, ident) // other_function: no probe
				if got := callbacks() - before; got != 0 {
					t.Errorf("an unprobed function reached fprobe's callbacks %d times", got)
				}
				if err := f.m.Unregister(p1); err != nil {
					t.Fatal(err)
				}
				if err := f.m.Unregister(p3); err != nil {
					t.Fatal(err)
				}
				if got := f.m.ProbesAt(f.fn(0)); len(got) != 1 || got[0] != p2 {
					t.Fatalf("probes at the shared function after p1 left: %v", got)
				}
				f.call(f.fn(0), 0, rand1, ident)
				before = callbacks()
				f.call(f.fn(1), 1, rand1, ident)
				if entries["p2"] != 1 || entries["p1"] != 0 || entries["p3"] != 0 || callbacks() != before {
					t.Errorf("entries %v, callbacks for p3's function after it left %d", entries, callbacks()-before)
				}
				if fast && f.m.Stats().FtraceEntries != 1 || !fast && f.m.Stats().FtraceEntries != 0 {
					t.Errorf("fast-path entries %d (fast path %v)", f.m.Stats().FtraceEntries, fast)
				}
			})
		})
	}
}
