package ftrace

import (
	"errors"
	"fmt"
	"testing"

	"trampemu/regs"
)

func ident(v uint64) uint64 { return v }

// storeN writes the low n bytes of v at addr in guest byte order, as
// *(u8/u16/u32/u64 *)data = v would.
func storeN(mem regs.Memory, a *regs.Arch, addr uint64, n int, v uint64) {
	b := make([]byte, 8)
	switch n {
	case 1:
		b[0] = byte(v)
	case 2:
		a.ByteOrder.PutUint16(b, uint16(v))
	case 4:
		a.ByteOrder.PutUint32(b, uint32(v))
	case 8:
		a.ByteOrder.PutUint64(b, v)
	}
	mem.Write(addr, b[:n])
}

func loadN(mem regs.Memory, a *regs.Arch, addr uint64, n int) uint64 {
	b := make([]byte, 8)
	mem.Read(addr, b[:n])
	switch n {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(a.ByteOrder.Uint16(b))
	case 4:
		return uint64(a.ByteOrder.Uint32(b))
	}
	return a.ByteOrder.Uint64(b)
}

// TestSelftestStorage re-creates trace_selftest's fgraph storage test: four
// users store 1, 2, 4 and 8 bytes and read them back on return, singly and
// all four at once; the retrieved size is a whole word.
func TestSelftestStorage(t *testing.T) {
	values := []struct {
		size int
		val  uint64
	}{{1, 123}, {2, 12345}, {4, 1234567890}, {8, 1234567890123456789}}
	for _, together := range []bool{false, true} {
		t.Run(fmt.Sprint("together=", together), func(t *testing.T) {
			archs(t, func(t *testing.T, a *regs.Arch) {
				e := newEnv(t, a)
				var ops []*GraphOps
				seen := make([]int, len(values))
				for i, v := range values {
					ops = append(ops, &GraphOps{
						Name: fmt.Sprint("store", v.size),
						EntryFunc: func(g *Graph, _ *GraphEnt, o *GraphOps, _ *regs.Frame) bool {
							addr, ok := g.ReserveData(o, v.size)
							if !ok {
								t.Errorf("%s: reserve failed", o.Name)
								return false
							}
							storeN(e.mem, a, addr, v.size, v.val)
							return true
						},
						RetFunc: func(g *Graph, _ *GraphRet, o *GraphOps, _ *regs.Frame) {
							addr, size, ok := g.RetrieveData(o)
							if !ok {
								if o.Index() != 0 || !together {
									t.Errorf("%s: nothing retrieved", o.Name)
								}
								return
							}
							if size != 8 {
								t.Errorf("%s: retrieved size %d, want 8", o.Name, size)
							}
							if got := loadN(e.mem, a, addr, v.size); got != v.val {
								t.Errorf("%s: read back %d, want %d", o.Name, got, v.val)
							}
							seen[i]++
						},
					})
				}
				run := func(users ...*GraphOps) {
					for _, o := range users {
						if err := e.g.Register(o); err != nil {
							t.Fatal(err)
						}
					}
					e.call(e.fn(0), 0, 7, ident)
					for _, o := range users {
						if err := e.g.Unregister(o); err != nil {
							t.Fatal(err)
						}
					}
				}
				if together {
					run(ops...)
					if words, want := e.g.Stats().LastFrameWords, FrameOffsetOf(a)+1+4*2; words != want {
						t.Errorf("frame used %d words, want %d", words, want)
					}
				} else {
					for _, o := range ops {
						run(o)
					}
				}
				for i, n := range seen {
					if n != 1 {
						t.Errorf("user %d read back %d times, want 1", i, n)
					}
				}
				e.empty()
				e.noFaults()
			})
		})
	}
}

// TestStackedAndParentData: two reservations in one entry stack (the later
// is found first); a nested frame reads its parent's record.
func TestStackedAndParentData(t *testing.T) {
	archs(t, func(t *testing.T, a *regs.Arch) {
		e := newEnv(t, a)
		depthSeen := map[int]bool{}
		o := &GraphOps{Name: "s",
			EntryFunc: func(g *Graph, tr *GraphEnt, o *GraphOps, _ *regs.Frame) bool {
				a1, ok1 := g.ReserveData(o, 8)
				a2, ok2 := g.ReserveData(o, 16)
				if !ok1 || !ok2 || a2 != a1+16 {
					t.Fatalf("reservations %#x %v, %#x %v", a1, ok1, a2, ok2)
				}
				e.mem.WriteWord(a1, 100+uint64(tr.Depth))
				e.mem.WriteWord(a2, 200+uint64(tr.Depth))
				return true
			},
			RetFunc: func(g *Graph, tr *GraphRet, o *GraphOps, _ *regs.Frame) {
				addr, size, ok := g.RetrieveData(o)
				if !ok || size != 16 || e.mem.ReadWord(addr) != 200+uint64(tr.Depth) {
					t.Errorf("depth %d: top record %#x size %d ok %v", tr.Depth, addr, size, ok)
				}
				if tr.Depth == 1 {
					p, size, ok := g.RetrieveParentData(o, 1)
					if !ok || size != 16 || e.mem.ReadWord(p) != 200 {
						t.Errorf("parent record %#x size %d ok %v", p, size, ok)
					}
					if _, _, ok := g.RetrieveParentData(o, 2); ok || len(e.warns) != 0 {
						t.Errorf("no grandparent frame exists: found %v, warnings %v", ok, e.warns)
					}
				}
				depthSeen[tr.Depth] = true
			},
		}
		_ = e.g.Register(o)
		e.call(e.fn(0), 0, 0, func(uint64) uint64 {
			frames, err := e.g.Frames()
			if err != nil || len(frames) != 1 || len(frames[0].Data) != 2 || frames[0].Data[0].Words != 2 {
				t.Fatalf("frames %+v err %v", frames, err)
			}
			return e.call(e.fn(1), 1, 0, ident)
		})
		if !depthSeen[0] || !depthSeen[1] {
			t.Fatalf("depths seen %v", depthSeen)
		}
		e.empty()
	})
}

func TestReserveLimits(t *testing.T) {
	archs(t, func(t *testing.T, a *regs.Arch) {
		e := newEnv(t, a)
		results := map[int]bool{}
		o := &GraphOps{Name: "r", EntryFunc: func(g *Graph, _ *GraphEnt, o *GraphOps, _ *regs.Frame) bool {
			for _, n := range []int{257, 0, -1, 256} {
				_, ok := g.ReserveData(o, n)
				results[n] = ok
			}
			return true
		}}
		_ = e.g.Register(o)
		if _, ok := e.g.ReserveData(o, 8); ok || !e.g.Warned(WarnReserveOutsideEntry) {
			t.Fatal("ReserveData outside an entry callback must fail with a warning")
		}
		e.call(e.fn(0), 0, 0, ident)
		if results[257] || results[0] || results[-1] || !results[256] {
			t.Fatalf("reserve results %v: only 256 may succeed", results)
		}
		if want := FrameOffsetOf(a) + 1 + 33; e.g.Stats().LastFrameWords != want {
			t.Fatalf("frame words %d, want %d", e.g.Stats().LastFrameWords, want)
		}
	})
}

// modelNest computes from the constants alone how many nested calls are
// traced before trace_overrun increments on arch a, when each frame tries
// to reserve d words (0: none) and is traced whether or not that succeeds.
func modelNest(a *regs.Arch, d int) (traced, withData int) {
	curr, fo, max := 0, FrameOffsetOf(a), ShadowStackMaxOffsetOf(a)
	for curr+fo+1 < max {
		curr += fo + 1
		if d > 0 && curr+d+1 < max {
			curr += d + 1
			withData++
		}
		traced++
	}
	return traced, withData
}

func TestOverflowDepth(t *testing.T) {
	tests := []struct {
		name         string
		words        int  // data words reserved per frame
		needData     bool // the user refuses frames without its data
		traced, data int  // hand-computed from 492 and the frame sizes
		// with HAVE_FUNCTION_GRAPH_FP_TEST (arm64): 5-word frames under
		// a maximum offset of 491
		tracedFP, dataFP int
	}{
		{"no data", 0, false, 122, 0, 98, 0},
		{"1 word", 1, false, 82, 81, 70, 70},
		{"1 word, data required", 1, true, 81, 81, 70, 70},
		{"32 words", 32, false, 15, 13, 18, 12},
		{"32 words, data required", 32, true, 13, 13, 12, 12},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			archs(t, func(t *testing.T, a *regs.Arch) {
				mt, md := modelNest(a, tc.words)
				if tc.needData {
					mt = md
				}
				if FrameOffsetOf(a) != FrameOffset {
					tc.traced, tc.data = tc.tracedFP, tc.dataFP
				}
				if mt != tc.traced || md != tc.data {
					t.Fatalf("model says %d traced, %d with data; table says %d, %d", mt, md, tc.traced, tc.data)
				}
				e := newEnv(t, a)
				reserved := 0
				_ = e.g.Register(&GraphOps{Name: "deep", EntryFunc: func(g *Graph, _ *GraphEnt, o *GraphOps, _ *regs.Frame) bool {
					if tc.words == 0 {
						return true
					}
					_, ok := g.ReserveData(o, 8*tc.words)
					if ok {
						reserved++
					}
					return ok || !tc.needData
				}})
				task := e.g.Current()
				n := 0
				for e.g.Enter(e.caller(n), e.fn(n%8), 0, e.sp+uint64(8*n), nil) {
					n++
					if task.Overrun != 0 {
						t.Fatalf("trace_overrun %d after %d traced calls", task.Overrun, n)
					}
				}
				if n != tc.traced || reserved != tc.data {
					t.Fatalf("%d nested calls traced (%d with data), want %d (%d)", n, reserved, tc.traced, tc.data)
				}
				wantOverrun := uint64(1)
				if fo, max := FrameOffsetOf(a), ShadowStackMaxOffsetOf(a); tc.needData && tc.data*(fo+1+tc.words+1)+fo+1 < max {
					// The next frame fits but its data does not: a failed
					// reservation is not an overrun.
					wantOverrun = 0
				}
				if task.Overrun != wantOverrun || task.Depth != n-1 || e.g.Stats().Overruns != wantOverrun {
					t.Fatalf("trace_overrun %d (counted %d) depth %d, want %d and %d", task.Overrun, e.g.Stats().Overruns, task.Depth, wantOverrun, n-1)
				}
				if _, err := e.g.Frames(); err != nil {
					t.Fatal(err)
				}
				for i := n - 1; i >= 0; i-- {
					if r, err := e.g.Return(nil); err != nil || r != e.caller(i) {
						t.Fatalf("return %d: %#x %v", i, r, err)
					}
				}
				e.empty()
				e.noFaults()
			})
		})
	}
}

// TestTailCallRetAddr: A tail-calls B; both frames share retp and B's ret is
// return_to_handler; the unwinder finds A's real return address.
func TestTailCallRetAddr(t *testing.T) {
	archs(t, func(t *testing.T, a *regs.Arch) {
		e := newEnv(t, a)
		_ = e.g.Register(&GraphOps{Name: "g", EntryFunc: accept})
		R, P := e.caller(0), e.sp
		if !e.g.Enter(R, e.fn(0), 0, P, nil) { // A; the glue writes rth to *P
			t.Fatal("A not traced")
		}
		C := e.caller(5)
		if !e.g.Enter(C, e.fn(2), 0, P-64, nil) || // A calls C normally ...
			!mustReturn(t, e, C) || // ... C returns
			!e.g.Enter(e.rth, e.fn(1), 0, P, nil) { // A tail-calls B
			t.Fatal("not traced")
		}
		idx := 0
		if got := e.g.RetAddr(&idx, e.rth, P); got != R || idx != 0 {
			t.Fatalf("RetAddr = %#x idx %d, want %#x idx 0", got, idx, R)
		}
		idx = 0
		if got := e.g.RetAddr(&idx, R, P); got != R || idx != 0 {
			t.Fatalf("a real return address must come back unchanged, got %#x", got)
		}
		if got := e.g.RetAddr(&idx, e.rth, P+8); got != e.rth || len(e.warns) != 0 {
			t.Fatalf("no frame has that retp: got %#x, warnings %v", got, e.warns)
		}
		if got := e.g.RetAddr(nil, e.rth, P); got != e.rth {
			t.Fatalf("nil idx: got %#x", got)
		}
		// B returns into return_to_handler, which then pops A.
		if !mustReturn(t, e, e.rth) || !mustReturn(t, e, R) {
			t.FailNow()
		}
		e.empty()
	})
}

func mustReturn(t *testing.T, e *env, want uint64) bool {
	t.Helper()
	got, err := e.g.Return(nil)
	if err != nil || got != want {
		t.Errorf("Return = %#x, %v; want %#x", got, err, want)
		return false
	}
	return true
}

// TestRecursion: callbacks that call a traced function recurse at most once
// (the lock lets one nested call through) and leave a consistent stack.
func TestRecursion(t *testing.T) {
	archs(t, func(t *testing.T, a *regs.Arch) {
		t.Run("retfunc", func(t *testing.T) {
			e := newEnv(t, a)
			rets := 0
			_ = e.g.Register(&GraphOps{Name: "rec", EntryFunc: accept,
				RetFunc: func(*Graph, *GraphRet, *GraphOps, *regs.Frame) {
					rets++
					e.call(e.fn(9), 9, 0, ident)
				}})
			e.call(e.fn(0), 0, 0, ident)
			if st := e.g.Stats(); rets != 2 || st.Recursion != 1 || st.Traced != 2 {
				t.Fatalf("retfunc ran %d times, %d refused, %d traced; want 2, 1, 2", rets, st.Recursion, st.Traced)
			}
			e.empty()
		})
		t.Run("entryfunc", func(t *testing.T) {
			e := newEnv(t, a)
			entries, rets := 0, 0
			_ = e.g.Register(&GraphOps{Name: "rec",
				EntryFunc: func(*Graph, *GraphEnt, *GraphOps, *regs.Frame) bool {
					entries++
					e.call(e.fn(9), 9, 0, ident)
					return true
				},
				RetFunc: func(*Graph, *GraphRet, *GraphOps, *regs.Frame) { rets++ }})
			e.call(e.fn(0), 0, 0, ident)
			if st := e.g.Stats(); entries != 2 || rets != 2 || st.Recursion != 1 {
				t.Fatalf("entries %d rets %d refused %d; want 2, 2, 1", entries, rets, st.Recursion)
			}
			e.empty()
		})
		t.Run("return under lock", func(t *testing.T) {
			e := newEnv(t, a)
			rets := 0
			_ = e.g.Register(&GraphOps{Name: "r", EntryFunc: accept,
				RetFunc: func(*Graph, *GraphRet, *GraphOps, *regs.Frame) { rets++ }})
			e.g.Enter(e.caller(0), e.fn(0), 0, e.sp, nil)
			task := e.g.Current()
			b1, _ := task.trylock()
			b2, _ := task.trylock()
			if r, err := e.g.Return(nil); err != nil || r != e.caller(0) {
				t.Fatalf("Return %#x %v", r, err)
			}
			task.unlock(b2)
			task.unlock(b1)
			if rets != 0 || e.g.Stats().ReturnsNoLock != 1 {
				t.Fatalf("callbacks ran %d times under a held lock", rets)
			}
			e.empty()
		})
	})
}

// TestCorruptStack: every corruption is an error, a warning and the end of
// graph tracing; nothing panics or reads outside the stack.
func TestCorruptStack(t *testing.T) {
	tests := []struct {
		name  string
		spoil func(e *env)
	}{
		{"empty stack", func(e *env) { e.g.Current().Curr = 0 }},
		{"offset 0", func(e *env) { e.mem.WriteWord(e.metaWord(), BitmapWord(1)&^1023) }},
		{"offset beyond curr", func(e *env) { e.mem.WriteWord(e.metaWord(), DataWord(0, 1, 500)) }},
		{"offset below a frame", func(e *env) { e.mem.WriteWord(e.metaWord(), BitmapWord(1)&^1023|2) }},
		{"meta not bitmap", func(e *env) { e.mem.WriteWord(e.metaWord(), ReservedWord()) }},
		{"curr too large", func(e *env) { e.g.Current().Curr = 600 }},
		{"curr negative", func(e *env) { e.g.Current().Curr = -5 }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			archs(t, func(t *testing.T, a *regs.Arch) {
				e := newEnv(t, a)
				rets := 0
				_ = e.g.Register(&GraphOps{Name: "g", EntryFunc: accept,
					RetFunc: func(*Graph, *GraphRet, *GraphOps, *regs.Frame) { rets++ }})
				if !e.g.Enter(e.caller(0), e.fn(0), 0, e.sp, e.fregs) {
					t.Fatal("not traced")
				}
				tc.spoil(e)
				_, err := e.g.Return(e.fregs)
				if !errors.Is(err, ErrCorruptStack) {
					t.Fatalf("Return error %v, want ErrCorruptStack", err)
				}
				if !e.g.Stopped() || !e.g.Warned(WarnBadRetStack) || len(e.warns) != 1 || rets != 0 {
					t.Fatalf("stopped %v warnings %v rets %d", e.g.Stopped(), e.warns, rets)
				}
				if st := e.g.Stats(); st.Returns != 1 || st.Corrupt != 1 || st.RetFuncs != 0 {
					t.Fatalf("returns %d, corrupt %d, retfuncs %d; want 1, 1, 0", st.Returns, st.Corrupt, st.RetFuncs)
				}
				if _, err := e.g.Frames(); err == nil && e.g.Current().Curr != 0 {
					t.Fatal("the walker accepts the corrupt stack")
				}
				if e.g.Enter(e.caller(1), e.fn(1), 0, e.sp, e.fregs) || e.g.Stats().Dead != 1 {
					t.Fatal("tracing must stay stopped")
				}
				e.noFaults()
			})
		})
	}
}

// TestReturnFregs: Return writes the original return address into the IP
// slot and hands the return value to the callbacks; fregs may be NULL or
// lack an IP slot.
func TestReturnFregs(t *testing.T) {
	archs(t, func(t *testing.T, a *regs.Arch) {
		e := newEnv(t, a)
		var last GraphRet
		_ = e.g.Register(&GraphOps{Name: "g", EntryFunc: accept,
			RetFunc: func(_ *Graph, tr *GraphRet, _ *GraphOps, _ *regs.Frame) { last = *tr }})
		retRegs := &regs.Frame{Arch: a, Layout: a.RetRegs, Base: a.Memory.Stack.Base + 0x3000, Mem: e.mem}
		for _, tc := range []struct {
			name   string
			fregs  *regs.Frame
			hasIP  bool
			hasRet bool
		}{
			{"ftrace_regs", e.fregs, true, true},
			{"fgraph_ret_regs", retRegs, false, true},
			{"NULL", nil, false, false},
		} {
			e.g.Enter(e.caller(3), e.fn(3), 0, e.sp, nil)
			tc.fregs.SetReturnValue(0x1234)
			tc.fregs.SetInstructionPointer(0)
			if r, err := e.g.Return(tc.fregs); err != nil || r != e.caller(3) {
				t.Fatalf("%s: Return %#x %v", tc.name, r, err)
			}
			ip, _ := tc.fregs.InstructionPointer()
			if (ip == e.caller(3)) != tc.hasIP {
				t.Errorf("%s: IP slot %#x", tc.name, ip)
			}
			if last.HasRetval != tc.hasRet || (tc.hasRet && last.Retval != 0x1234) {
				t.Errorf("%s: retval %#x has %v", tc.name, last.Retval, last.HasRetval)
			}
			if last.Func != e.fn(3) || last.Depth != 0 {
				t.Errorf("%s: trace %+v", tc.name, last)
			}
		}
		e.empty()
		e.noFaults()
	})
}

// metaWord is the address of the first frame's meta word: after the
// frame's FGRAPH_FRAME_OFFSET words (3; 4 with the FP-test word).
func (e *env) metaWord() uint64 { return e.g.Current().Stack + 8*uint64(FrameOffsetOf(e.arch)) }
