package ftrace

import (
	"errors"
	"strings"
	"testing"

	"trampemu/regs"
)

// FuzzMetaDecode: every word decodes; a decoded word re-encodes to itself
// for the fields that type uses.
func FuzzMetaDecode(f *testing.F) {
	for _, w := range []uint64{0, ReservedWord(), BitmapWord(0b1001), DataWord(3, 2, 6), DataWord(15, 32, 1023), ^uint64(0), 3 << 10} {
		f.Add(w)
	}
	f.Fuzz(func(t *testing.T, w uint64) {
		m := DecodeMeta(w)
		if m.Offset != MetaOffset(w) || m.Type != MetaTypeOf(w) || m.Offset < 0 || m.Offset > 1023 {
			t.Fatalf("%#x: %+v", w, m)
		}
		var used uint64
		switch m.Type {
		case MetaBitmap:
			used = 1<<28 - 1
		case MetaData:
			used = 1<<21 - 1
			if m.Words < 1 || m.Words > MaxDataWords || m.Index < 0 || m.Index >= ArraySize {
				t.Fatalf("%#x: DATA fields out of range: %+v", w, m)
			}
		default:
			used = 1<<12 - 1
		}
		if got := m.Encode(); got != w&used {
			t.Fatalf("%#x: decode %+v re-encodes to %#x, want %#x", w, m, got, w&used)
		}
		if DecodeMeta(m.Encode()) != m {
			t.Fatalf("%#x: round trip changed %+v", w, m)
		}
	})
}

// FuzzShadowWalk: arbitrary shadow-stack contents and curr_ret_stack. The
// 4096-byte stack is the fill word repeated with data written over its
// start (small inputs keep the fuzzer's byte minimizer fast). The walker,
// Return, the retrieves and RetAddr never panic and never touch memory
// outside the stack; what the walker accepts is a consistent chain, and
// Return agrees with it about the top frame.
func FuzzShadowWalk(f *testing.F) {
	// Seeds: a valid two-frame stack from the tracer, and some garbage.
	for i, a := range walkArches {
		e := newEnv(f, a)
		o := &GraphOps{Name: "s", EntryFunc: func(g *Graph, _ *GraphEnt, o *GraphOps, _ *regs.Frame) bool {
			g.ReserveData(o, 16)
			return true
		}}
		_ = e.g.Register(o)
		e.g.Enter(1, 2, 7, 3, nil)
		e.g.Enter(4, 5, 8, 6, nil)
		b := make([]byte, 8*e.g.Current().Curr)
		e.mem.Read(e.g.Current().Stack, b)
		f.Add(b, uint64(0), e.g.Current().Curr, uint8(i))
		f.Add(b[:len(b)-8], DataWord(0, 1, 9), e.g.Current().Curr, uint8(i))
	}
	f.Add([]byte{}, BitmapWord(1), 7, uint8(0))
	f.Add([]byte{0xff, 0xff, 0xff}, ^uint64(0), 1, uint8(1))
	f.Add([]byte{}, uint64(0), -3, uint8(2))
	f.Add(make([]byte, 64), uint64(3), 1000, uint8(1))
	f.Fuzz(fuzzWalk)
}

// walkArches are the arches FuzzShadowWalk picks from: their frames have
// 3 words, or 4 with arm64's fp (HAVE_FUNCTION_GRAPH_FP_TEST).
var walkArches = []*regs.Arch{regs.X86_64, regs.S390X, regs.ARM64}

func fuzzWalk(t *testing.T, data []byte, fill uint64, curr int, arch uint8) {
	a := walkArches[int(arch)%len(walkArches)]
	fo := FrameOffsetOf(a)
	if len(data) > ShadowStackSize {
		data = data[:ShadowStackSize]
	}
	// Only the shadow stack is mapped: any stray access is a fault.
	heap := regs.Region{Name: "heap", Base: a.Memory.Heap.Base, Size: ShadowStackSize}
	mem := regs.NewFlatMemory(a, heap)
	g, err := NewGraph(GraphConfig{Arch: a, Mem: mem, Heap: NewHeap(heap), ReturnToHandler: 0x42})
	if err != nil {
		t.Fatal(err)
	}
	task := g.Current()
	for i := 0; i < ShadowStackWords; i++ {
		mem.WriteWord(task.Stack+8*uint64(i), fill)
	}
	mem.Write(task.Stack, data)
	task.Curr = curr
	ops := &GraphOps{Name: "o"}
	_ = g.Register(ops)

	frames, werr := g.Frames()
	if werr != nil && !errors.Is(werr, ErrCorruptStack) {
		t.Fatalf("walker error %v does not wrap ErrCorruptStack", werr)
	}
	next := curr
	for _, fr := range frames {
		if fr.Top != next-1 || fr.Base < 0 || fr.Base+fo > fr.Top || fr.Meta.Type != MetaBitmap {
			t.Fatalf("inconsistent frame %+v (next %d)", fr, next)
		}
		for _, r := range fr.Data {
			if r.First <= fr.Base+fo || r.First+r.Words > fr.Top {
				t.Fatalf("record %+v outside frame %+v", r, fr)
			}
		}
		next = fr.Base
	}
	if werr == nil && next != 0 {
		t.Fatalf("walk ended at %d without error", next)
	}

	idx := 0
	g.RetAddr(&idx, 0x42, 0)
	g.RetrieveParentData(ops, 0)
	g.RetrieveParentData(ops, 3)
	var fp uint64 // the frame pointer the top frame recorded, for the FP test
	if len(frames) > 0 {
		fp = frames[0].FP
	}
	ret, rerr := g.ReturnFP(nil, fp)
	switch {
	case len(frames) > 0 && rerr != nil:
		t.Fatalf("walker accepted the top frame, Return failed: %v", rerr)
	case len(frames) > 0 && (ret != frames[0].Ret || task.Curr != frames[0].Base):
		t.Fatalf("Return %#x curr %d, walker says %#x base %d", ret, task.Curr, frames[0].Ret, frames[0].Base)
	case rerr != nil && errors.Is(rerr, ErrBadFramePointer):
		// a frame the walker rejects further up may still pop, and then
		// fail the FP test (arm64)
		if fo == FrameOffset || !g.Stopped() || !g.Warned(WarnBadFramePointer) {
			t.Fatalf("frame-pointer return error on %s: %v stopped %v", a.Name, rerr, g.Stopped())
		}
	case rerr != nil && (!errors.Is(rerr, ErrCorruptStack) || !g.Stopped() || !g.Warned(WarnBadRetStack)):
		t.Fatalf("corrupt return: %v stopped %v", rerr, g.Stopped())
	}
	if len(mem.Faults) > 0 {
		t.Fatalf("accesses outside the shadow stack: %v", mem.Faults)
	}
}

// FuzzFprobeHeader: for every encoding on both arches, an encodable pointer
// and size round-trip; what is rejected really does not fit.
func FuzzFprobeHeader(f *testing.F) {
	for _, a := range regs.Arches {
		f.Add(a.Memory.Heap.Base+0x1040, 15, uint8(0))
		f.Add(a.Memory.Heap.Base, 0, uint8(1))
	}
	f.Add(uint64(0x8ff00040), 3, uint8(0))
	f.Add(uint64(0xffff888100000040), 16, uint8(1))
	f.Add(^uint64(0), -1, uint8(2))
	f.Fuzz(func(t *testing.T, fp uint64, size int, sel uint8) {
		for _, a := range regs.Arches {
			enc := HeaderEncodings[int(sel)%len(HeaderEncodings)]
			c := HeaderCodec{Enc: enc, Arch: a}
			w, ok := c.Encode(fp, size)
			fits := size >= 0 && size <= MaxFprobeDataWords && (enc == HeaderTwoWord || fp>>60 == c.Pattern()>>60)
			if ok != fits {
				t.Fatalf("%s %v: Encode(%#x, %d) ok=%v, want %v", a.Name, enc, fp, size, ok, fits)
			}
			if !ok {
				continue
			}
			if len(w) != c.Words() {
				t.Fatalf("%d words, want %d", len(w), c.Words())
			}
			gfp, gsize := c.Decode(w)
			if gfp != fp || gsize != size {
				t.Fatalf("%s %v: round trip (%#x, %d) -> %#x -> (%#x, %d)", a.Name, enc, fp, size, w, gfp, gsize)
			}
			// Decoding arbitrary words never panics.
			c.Decode([]uint64{fp, uint64(size)})
		}
	})
}

// FuzzGlobMatch: glob_match never panics, a pattern without metacharacters
// matches exactly itself, and "*" matches everything.
func FuzzGlobMatch(f *testing.F) {
	f.Add("fprobe_selftest_target*", "fprobe_selftest_target2")
	f.Add("[a-c]?x", "bqx")
	f.Add("[!", "[!")
	f.Add(`\*`, "*")
	f.Fuzz(func(t *testing.T, pat, s string) {
		GlobMatch(pat, s)
		if !GlobMatch("*", s) {
			t.Fatalf("* does not match %q", s)
		}
		plain := true
		for i := 0; i < len(s); i++ {
			switch s[i] {
			case '*', '?', '[', '\\', 0:
				plain = false
			}
		}
		if plain && !GlobMatch(s, s) {
			t.Fatalf("%q does not match itself", s)
		}
		if plain && s != "" && GlobMatch(s, s+"x") {
			t.Fatalf("%q matches %q", s, s+"x")
		}
	})
}

// FuzzParseFprobeDesign: the --fprobe parser accepts exactly the design
// names (any case) and round-trips them.
func FuzzParseFprobeDesign(f *testing.F) {
	for _, s := range []string{"rethook", "fgraph", "FGRAPH", "none", "", "rethook "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseFprobeDesign(s)
		if err != nil {
			if d != DesignNone {
				t.Fatalf("%q: error %v with design %v", s, err, d)
			}
			return
		}
		if !strings.EqualFold(d.String(), s) {
			t.Fatalf("%q parsed as %v", s, d)
		}
		if d2, err := ParseFprobeDesign(d.String()); err != nil || d2 != d {
			t.Fatalf("%v does not round-trip: %v %v", d, d2, err)
		}
	})
}

// FuzzParseGraphDispatch: a name parses only to a form whose String is
// the name, and never panics.
func FuzzParseGraphDispatch(f *testing.F) {
	for _, d := range GraphDispatches {
		f.Add(d.String())
	}
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseGraphDispatch(s)
		if err == nil && d.String() != s {
			t.Fatalf("%q parsed to %v", s, d)
		}
	})
}
