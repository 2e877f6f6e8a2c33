package ftrace

import (
	"fmt"
	"testing"

	"trampemu/regs"
)

func TestConstants(t *testing.T) {
	archs(t, func(t *testing.T, a *regs.Arch) {
		// The reference's numbers: 512 words, 492 = 512 - (3 + 1 + 16), vars at 496.
		for _, c := range []struct {
			name      string
			got, want int
		}{
			{"ShadowStackWords", ShadowStackWords, 512},
			{"ShadowStackMaxOffset", ShadowStackMaxOffset, 492},
			{"TaskVarsOffset", TaskVarsOffset, 496},
			{"MaxDataWords", MaxDataWords, 32},
			{"word size", a.WordSize, 8},
		} {
			if c.got != c.want {
				t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
			}
		}
	})
}

func TestMetaWords(t *testing.T) {
	tests := []struct {
		name string
		word uint64
		enc  uint64
		want Meta
	}{
		{"reserved", ReservedWord(), 3, Meta{Type: MetaReserved, Offset: 3}},
		{"bitmap {0,3}", BitmapWord(0b1001), 0b1001<<12 | 1<<10 | 3, Meta{Type: MetaBitmap, Offset: 3, Bitmap: 0b1001}},
		{"bitmap all", BitmapWord(0xffff), 0xffff<<12 | 1<<10 | 3, Meta{Type: MetaBitmap, Offset: 3, Bitmap: 0xffff}},
		{"data idx 3, 2 words, off 6", DataWord(3, 2, 6), 3<<17 | 1<<12 | 2<<10 | 6, Meta{Type: MetaData, Offset: 6, Index: 3, Words: 2}},
		{"data idx 15, 32 words, off 491", DataWord(15, 32, 491), 15<<17 | 31<<12 | 2<<10 | 491, Meta{Type: MetaData, Offset: 491, Index: 15, Words: 32}},
		{"data idx 0, 1 word, off 5", DataWord(0, 1, 5), 2<<10 | 5, Meta{Type: MetaData, Offset: 5, Index: 0, Words: 1}},
	}
	for _, a := range regs.Arches {
		for _, tc := range tests {
			t.Run(a.Name+"/"+tc.name, func(t *testing.T) {
				if tc.word != tc.enc {
					t.Fatalf("encoded %#x, want %#x", tc.word, tc.enc)
				}
				got := DecodeMeta(tc.word)
				if got != tc.want {
					t.Fatalf("DecodeMeta(%#x) = %+v, want %+v", tc.word, got, tc.want)
				}
				if got.Encode() != tc.word {
					t.Fatalf("Encode(%+v) = %#x, want %#x", got, got.Encode(), tc.word)
				}
				// The word lands in guest memory in the guest's byte order.
				mem := regs.NewFlatMemory(a, a.Memory.Heap)
				mem.WriteWord(a.Memory.Heap.Base, tc.word)
				b := make([]byte, 8)
				mem.Read(a.Memory.Heap.Base, b)
				if a.ByteOrder.Uint64(b) != tc.word {
					t.Fatalf("bytes %x are not %#x in %s order", b, tc.word, a.ByteOrder)
				}
			})
		}
	}
}

// TestWorkedExample re-creates the reference's example through the tracer:
// ops A in slot 0 reserves nothing, ops B in slot 3 reserves 16 bytes.
func TestWorkedExample(t *testing.T) {
	archs(t, func(t *testing.T, a *regs.Arch) {
		e := newEnv(t, a)
		opsA := &GraphOps{Name: "A", EntryFunc: accept}
		var bData uint64
		opsB := &GraphOps{Name: "B", EntryFunc: func(g *Graph, _ *GraphEnt, o *GraphOps, _ *regs.Frame) bool {
			addr, ok := g.ReserveData(o, 16)
			if !ok {
				t.Fatal("ReserveData(16) failed")
			}
			bData = addr
			e.mem.WriteWord(addr, 0x1111)
			e.mem.WriteWord(addr+8, 0x2222)
			return true
		}}
		fill1, fill2 := &GraphOps{Name: "x1"}, &GraphOps{Name: "x2"}
		for _, o := range []*GraphOps{opsA, fill1, fill2, opsB} {
			if err := e.g.Register(o); err != nil {
				t.Fatal(err)
			}
		}
		if opsA.Index() != 0 || opsB.Index() != 3 {
			t.Fatalf("indices A=%d B=%d, want 0 and 3", opsA.Index(), opsB.Index())
		}
		ret, fn, retp := e.caller(0), e.fn(0), e.sp
		if !e.g.Enter(ret, fn, 0, retp, e.fregs) {
			t.Fatal("not traced")
		}
		// struct ftrace_ret_stack {ret, func, [fp,] retp} (the fp word with
		// HAVE_FUNCTION_GRAPH_FP_TEST, arm64), then the meta word, B's two
		// data words and its data word.
		fo := uint64(FrameOffsetOf(a))
		want := []uint64{ret, fn, retp}
		if fo != FrameOffset {
			want = []uint64{ret, fn, 0, retp}
		}
		want = append(want, 0b1001<<12|1<<10|fo, 0x1111, 0x2222, 3<<17|1<<12|2<<10|(fo+3))
		for i, w := range want {
			if got := e.word(i); got != w {
				t.Errorf("word[%d] = %#x, want %#x", i, got, w)
			}
		}
		if bData != e.g.Current().Stack+(fo+1)*8 {
			t.Errorf("reserve_data result %#x, want &word[%d] = %#x", bData, fo+1, e.g.Current().Stack+(fo+1)*8)
		}
		if c := e.g.Current().Curr; c != int(fo)+4 {
			t.Errorf("curr_ret_stack = %d, want %d", c, fo+4)
		}
		frames, err := e.g.Frames()
		if err != nil || len(frames) != 1 {
			t.Fatalf("Frames = %v, %v", frames, err)
		}
		f := frames[0]
		if f.Meta.Bitmap != 0b1001 || len(f.Data) != 1 || f.Data[0] != (Record{Index: 3, Words: 2, First: int(fo) + 1, Addr: bData}) || f.Words() != int(fo)+4 {
			t.Errorf("frame %+v", f)
		}
		if _, err := e.g.Return(e.fregs); err != nil {
			t.Fatal(err)
		}
		e.empty()
		e.noFaults()
	})
}

// TestTaskVars: each of the 16 fgraph_array slots has its own task
// variable, the word SHADOW_STACK_TASK_VARS(ret_stack)[idx]
// (kernel/trace/fgraph.c, v6.11+: ret_stack_get_task_var), the last 16
// words of the 4096-byte stack; a new task's are zero even on memory used
// before (graph_init_task's ret_stack_init_task_vars). Every arch.
func TestTaskVars(t *testing.T) {
	archs(t, func(t *testing.T, a *regs.Arch) {
		e := newEnv(t, a)
		// dirty the words the next task's shadow stack will take
		for addr := e.heap.next; addr < e.heap.next+2*ShadowStackSize && addr+8 <= a.Memory.Heap.End(); addr += 8 {
			e.mem.WriteWord(addr, ^uint64(0))
		}
		task, err := e.g.NewTask("dirty")
		if err != nil {
			t.Fatal(err)
		}
		// ret_stack_init_task_vars: all 16 zeroed at once, before any
		// user registers (whose registration zeroes only its own)
		for i := 0; i < ArraySize; i++ {
			if v := e.mem.ReadWord(task.Stack + 8*uint64(ShadowStackWords-ArraySize+i)); v != 0 {
				t.Fatalf("a new task's variable %d holds %#x", i, v)
			}
		}
		e.g.SetCurrent(task)
		seen := map[uint64]bool{}
		for i := 0; i < ArraySize; i++ {
			ops := &GraphOps{Name: fmt.Sprintf("u%d", i), EntryFunc: accept}
			if err := e.g.Register(ops); err != nil {
				t.Fatalf("user %d: %v", i, err)
			}
			addr, ok := e.g.TaskVar(ops)
			if want := task.Stack + 8*uint64(ShadowStackWords-ArraySize+ops.Index()); !ok || addr != want {
				t.Fatalf("user %d (index %d): task var at %#x %v, want %#x", i, ops.Index(), addr, ok, want)
			}
			if seen[addr] || addr+8 > task.Stack+ShadowStackSize {
				t.Fatalf("user %d: task var %#x shared or outside the stack", i, addr)
			}
			seen[addr] = true
		}
		if _, ok := e.g.TaskVar(&GraphOps{Name: "unregistered"}); ok {
			t.Error("an unregistered ops has a task variable")
		}
	})
}

// TestScratchReuse: the GraphEnt / GraphRet scratch hands out its four
// slots, one per level of calls in progress, then allocates; a level done
// frees its slot for the next call at that level.
func TestScratchReuse(t *testing.T) {
	var s graphScratch
	var got []*GraphEnt
	for i := 0; i < 6; i++ {
		got = append(got, s.ent(GraphEnt{Depth: i}))
	}
	for i, p := range got {
		inArray := i < len(s.ents.v) && p == &s.ents.v[i]
		if p.Depth != i || inArray != (i < 4) {
			t.Fatalf("level %d: depth %d, in the array %v", i, p.Depth, inArray)
		}
	}
	for range 6 {
		s.doneEnt()
	}
	if p := s.ent(GraphEnt{Depth: 9}); p != &s.ents.v[0] || p.Depth != 9 {
		t.Fatalf("after every level is done the first slot is not reused: %p", p)
	}
	r1 := s.ret(GraphRet{Func: 1})
	s.doneRet()
	if r2 := s.ret(GraphRet{Func: 2}); r2 != r1 || r2.Func != 2 {
		t.Fatalf("a done return's slot is not reused")
	}
}
