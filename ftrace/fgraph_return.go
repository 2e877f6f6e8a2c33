package ftrace

import (
	"fmt"

	"trampemu/regs"
)

// Return is the core of ftrace_return_to_handler (kernel/trace/fgraph.c,
// v6.14+, with the v6.17 recursion lock) for the current task: it pops the
// top frame and returns the original return address. fregs is the
// ftrace_regs return_to_handler built (nil for the old ABIs).
//
// Order, as in the kernel: find the top frame through word[curr-1]; a
// corrupt stack stops graph tracing for good (ftrace_graph_stop), records
// the WARN "Bad function graph ret_stack pointer" and returns an error
// wrapping ErrCorruptStack (the kernel returns the address of panic). Then
// fregs->ip = ret; recursion trylock (on failure the callbacks are skipped);
// retval from ftrace_regs_get_return_value; each set bitmap bit's RetFunc
// unless the slot holds the stub (direct mode: only the direct user, if its
// bit is set), with the frame's data still on the stack; then
// curr_ret_stack = frame base, depth--.
//
// Besides the kernel's offset test, the word at the frame base + 3 must be
// a BITMAP meta word with offset 3 (a frame never committed, or overwritten,
// is corrupt rather than silently popped).
func (g *Graph) Return(fregs *regs.Frame) (uint64, error) {
	var fp uint64
	if g.fpTest && fregs != nil {
		fp, _ = fregs.Raw(fregs.Layout.Accessors.FP)
	}
	return g.ReturnFP(fregs, fp)
}

// ReturnFP is Return with the frame pointer ftrace_return_to_handler was
// given (the legacy argument, or ftrace_regs_get_frame_pointer /
// fgraph_ret_regs_frame_pointer, read by the caller): with
// HAVE_FUNCTION_GRAPH_FP_TEST (arm64) a frame whose fp differs stops graph
// tracing for good, records the WARN "Bad frame pointer" and returns an
// error wrapping ErrBadFramePointer, as ftrace_pop_return_trace does
// (kernel/trace/fgraph.c, v6.11+; the kernel returns the address of
// panic). Without the test fp is ignored.
func (g *Graph) ReturnFP(fregs *regs.Frame, fp uint64) (uint64, error) {
	g.stats.Returns++
	t := g.cur
	s := ShadowStack{Mem: g.mem, Addr: t.Stack, Curr: t.Curr, FPTest: g.fpTest, Reads: &g.stats.ReadWords}
	fo := s.off()
	base, err := s.topFrame(t.Curr)
	var meta Meta
	if err == nil {
		meta = DecodeMeta(s.word(base + fo))
		if meta.Type != MetaBitmap || meta.Offset != fo {
			err = fmt.Errorf("%w: frame at %d: meta word is %v, want BITMAP with offset %d", ErrCorruptStack, base, meta, fo)
		}
	}
	if err != nil {
		// ftrace_pop_return_trace: ftrace_graph_stop(); WARN(1, "Bad
		// function graph ret_stack pointer: %d", curr_ret_stack)
		// (kernel/trace/fgraph.c, v6.11+).
		g.stopped = true
		g.stats.Corrupt++
		g.warn(WarnBadRetStack, fmt.Sprintf("task %s: curr_ret_stack %d: %v", t.Name, t.Curr, err))
		return 0, fmt.Errorf("ftrace_return_to_handler: %s: %w", WarnBadRetStack, err)
	}
	ret := s.word(base)
	// struct ftrace_graph_ret, as GraphEnt: reused per nesting level.
	trace := g.scratch.ret(GraphRet{Func: s.word(base + 1), Overrun: t.Overrun, Depth: t.Depth})
	defer g.scratch.doneRet()
	if g.fpTest {
		if want := s.word(base + 2); want != fp {
			// ftrace_graph_stop(); WARN(1, "Bad frame pointer: expected %lx,
			// received %lx ...") (kernel/trace/fgraph.c, v6.11+).
			g.stopped = true
			g.stats.Corrupt++
			msg := fmt.Sprintf("task %s: expected %#x, received %#x from func %#x return to %#x", t.Name, want, fp, trace.Func, ret)
			g.warn(WarnBadFramePointer, msg)
			return 0, fmt.Errorf("ftrace_return_to_handler: %s: %w: %s", WarnBadFramePointer, ErrBadFramePointer, msg)
		}
	}

	core := fregs
	prev := core.Swap("ftrace_return_to_handler")
	defer core.Swap(prev)
	// if (fregs) ftrace_regs_set_instruction_pointer(fregs, ret)
	// (kernel/trace/fgraph.c, v6.14+).
	core.SetInstructionPointer(ret)

	// ftrace_test_recursion_trylock(trace.func, ret): this can fail because
	// the lock lets one nested call through (kernel/trace/fgraph.c, v6.17+).
	if bit, ok := t.trylock(); ok {
		trace.Retval, trace.HasRetval = core.ReturnValue()
		if d := g.direct; d != nil {
			if meta.Bitmap&(1<<d.Index()) != 0 {
				g.callRet(d, trace, fregs)
			}
		} else {
			for i := 0; i < ArraySize; i++ {
				if meta.Bitmap&(1<<i) == 0 {
					continue
				}
				o := g.array[i]
				if o == nil { // fgraph_stub: the user left
					g.stats.StaleBits++
					continue
				}
				g.callRet(o, trace, fregs)
			}
		}
		t.unlock(bit)
	} else {
		g.stats.ReturnsNoLock++
	}
	// current->curr_ret_stack = offset - FGRAPH_FRAME_OFFSET;
	// current->curr_ret_depth-- (kernel/trace/fgraph.c, v6.11+).
	t.Curr = base
	t.Depth--
	return ret, nil
}

func (g *Graph) callRet(o *GraphOps, trace *GraphRet, fregs *regs.Frame) {
	g.stats.RetFuncs++
	if g.watch != nil {
		g.watch(GraphEvent{User: o.Name, Return: true, Func: trace.Func, Depth: trace.Depth, Retval: trace.Retval, HasRetval: trace.HasRetval})
	}
	if o.RetFunc != nil {
		prev := fregs.Swap(o.Name)
		o.RetFunc(g, trace, o, fregs)
		fregs.Swap(prev)
	}
}

// RetrieveData is fgraph_retrieve_data (kernel/trace/fgraph.c, v6.11+): the
// ops' newest reservation on the top frame, with its size in bytes (whole
// words). ok is false when the frame holds none (the kernel's NULL).
func (g *Graph) RetrieveData(ops *GraphOps) (addr uint64, size int, ok bool) {
	return g.RetrieveParentData(ops, 0)
}

// RetrieveParentData is fgraph_retrieve_parent_data (kernel/trace/fgraph.c,
// v6.11+): as RetrieveData for the frame depth levels below the top (0 =
// top). From the frame's top word downwards, while the word is DATA: a
// matching index returns its payload; else the walk skips size+1 words. It
// stops at the frame's meta word.
func (g *Graph) RetrieveParentData(ops *GraphOps, depth int) (addr uint64, size int, ok bool) {
	if ops == nil || !ops.Registered() {
		g.warn(WarnNotRegistered, "fgraph_retrieve_data")
		return 0, 0, false
	}
	s := g.Stack()
	s.Reads = &g.stats.ReadWords // the kernel's reads (GraphStats.ReadWords)
	pos := s.Curr
	var base int
	for {
		if pos <= 0 {
			return 0, 0, false
		}
		b, err := s.topFrame(pos)
		if err != nil {
			// get_ret_stack: WARN_ON_ONCE(offs <= 0 || offs > offset).
			g.warn(WarnBadFrameOffset, err.Error())
			return 0, 0, false
		}
		base = b
		if depth--; depth < 0 {
			break
		}
		pos = base
	}
	idx := ops.Index()
	fo := s.off()
	for j := pos - 1; j > base+fo; {
		m := DecodeMeta(s.word(j))
		if m.Type != MetaData {
			return 0, 0, false
		}
		first := j - m.Words
		if first <= base+fo { // would leave the frame: corrupt
			g.warn(WarnBadFrameOffset, fmt.Sprintf("DATA word %d: %d words reach below frame at %d", j, m.Words, base))
			return 0, 0, false
		}
		if m.Index == idx {
			return s.Addr + 8*uint64(first), m.Words * 8, true
		}
		j = first - 1
	}
	return 0, 0, false
}

// RetAddr is ftrace_graph_ret_addr (kernel/trace/fgraph.c, v6.11+) on the
// current task, for an unwinder that found return address ret in the stack
// slot at retp: when ret is return_to_handler it returns the real return
// address from the first frame at or below *idx (0 = the top) whose retp
// matches and whose ret is not return_to_handler (frames of tail calls
// share retp and record return_to_handler), and sets *idx to that frame's
// base so the next call continues below it. Otherwise it returns ret.
func (g *Graph) RetAddr(idx *int, ret, retp uint64) uint64 {
	if ret != g.rth || idx == nil {
		return ret
	}
	s := g.Stack()
	s.Reads = &g.stats.ReadWords
	i := *idx
	if i == 0 {
		i = s.Curr
	}
	for i > 0 {
		base, err := s.topFrame(i)
		if err != nil {
			g.warn(WarnBadFrameOffset, err.Error())
			break
		}
		i = base
		if s.word(base+s.off()-1) == retp && s.word(base) != g.rth {
			*idx = i
			return s.word(base)
		}
	}
	return ret
}
