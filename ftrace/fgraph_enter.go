package ftrace

import (
	"fmt"

	"trampemu/regs"
)

// Enter is function_graph_enter_regs (kernel/trace/fgraph.c, v6.14+) for the
// current task: ret is the traced function's return address, fn the traced
// function, fp its frame pointer (kept in the frame and compared at the
// return on arm64, HAVE_FUNCTION_GRAPH_FP_TEST; unused on x86-64 and
// s390x), retp the guest address of the return-address
// slot, fregs the ftrace_regs of the entry trampoline (may be nil). It
// returns true when the call is traced; the caller (arch glue) then replaces
// the return address with return_to_handler.
//
// Order, as in the kernel: recursion trylock; ++curr_ret_depth; push a frame
// (RESERVED meta word and {ret, func, retp}) unless curr + 3 + 1 >= 492,
// which counts trace_overrun; call each user's entry callback (direct mode:
// the single user without the filter test; list mode: each non-stub slot in
// index order whose filter accepts fn), dropping what a refusing user
// reserved; no user accepted: pop the frame; else write the BITMAP word with
// BIT(0) always set.
//
// Called from the arch's ftrace_graph_func for one user's own ftrace_ops
// (DispatchPerOpsDraft) it is the drafts' function_graph_enter_ops for
// that user (enterOps); otherwise, with DispatchLoop and the per-ops
// draft, the drafts' function_graph_enter: the same loop without the
// direct mode.
func (g *Graph) Enter(ret, fn, fp, retp uint64, fregs *regs.Frame) bool {
	if o := g.via; o != nil {
		g.via = nil // a nested entry (from a callback) is not this user's
		return g.enterOps(o, ret, fn, fp, retp, fregs)
	}
	g.stats.Entries++
	// ftrace_graph_is_dead() makes prepare_ftrace_return give up after
	// ftrace_graph_stop (kernel/trace/fgraph.c, arch/*/kernel/ftrace.c).
	if g.stopped {
		g.stats.Dead++
		return false
	}
	t := g.cur
	// 1. ftrace_test_recursion_trylock(func, ret) (kernel/trace/fgraph.c, v6.11+).
	bit, ok := t.trylock()
	if !ok {
		g.stats.Recursion++
		return false
	}
	defer t.unlock(bit)

	// 2. trace.depth = ++current->curr_ret_depth (kernel/trace/fgraph.c, v6.11+).
	t.Depth++
	// struct ftrace_graph_ent lives on the kernel's stack for the call:
	// one reused per nesting level, no allocation (no user keeps it).
	trace := g.scratch.ent(GraphEnt{Func: fn, Depth: t.Depth})
	defer g.scratch.doneEnt()

	// 3. ftrace_push_return_trace (kernel/trace/fgraph.c, v6.11+).
	offset, ok := g.push(t, ret, fn, fp, retp)
	if !ok {
		t.Depth--
		return false
	}
	base := offset - g.frameOff()

	// 4. the users (kernel/trace/fgraph.c, v6.11+, function_graph_enter_regs).
	var bitmap uint16
	g.entering++
	if d := g.direct; d != nil {
		idx, save := d.Index(), t.Curr
		if g.callEntry(d, trace, fregs) {
			bitmap |= 1 << idx
		} else {
			t.Curr = save // clear out any saved storage
		}
	} else {
		for i := 0; i < ArraySize; i++ {
			o := g.array[i]
			if o == nil { // fgraph_stub
				continue
			}
			save := t.Curr
			if o.Filter != nil {
				g.stats.UserTests++
			}
			if (o.Filter == nil || o.Filter(fn)) && g.callEntry(o, trace, fregs) {
				bitmap |= 1 << i
			} else {
				t.Curr = save
			}
		}
	}
	g.entering--

	// 5. nobody wants it: curr_ret_stack -= FGRAPH_FRAME_OFFSET + 1,
	// depth-- (kernel/trace/fgraph.c, v6.11+).
	if bitmap == 0 {
		t.Curr -= g.frameOff() + 1
		t.Depth--
		g.stats.Untraced++
		return false
	}
	// 6. set_bitmap(current, offset, bitmap | BIT(0)): BIT(0) is always set,
	// "fgraph_idx = 0 as a tail-call checking flag" (kernel/trace/fgraph.c, v6.11+).
	g.mem.WriteWord(t.Stack+8*uint64(offset), bitmapWordAt(bitmap|1, g.frameOff()))
	g.stats.WrittenWords++
	g.stats.Traced++
	words := t.Curr - base
	g.stats.TracedWords += uint64(words)
	g.stats.LastFrameWords = words
	g.stats.MaxFrameWords = max(g.stats.MaxFrameWords, words)
	return true
}

// push is ftrace_push_return_trace (kernel/trace/fgraph.c, v6.11+): it
// returns the word index of the frame's meta word. With
// HAVE_FUNCTION_GRAPH_FP_TEST the frame is {ret, func, fp, retp}.
func (g *Graph) push(t *Task, ret, fn, fp, retp uint64) (int, bool) {
	off := g.frameOff()
	if t.Curr < 0 || t.Curr+off+1 >= g.maxOffset() {
		if t.Curr < 0 {
			g.warn(WarnBadFrameOffset, fmt.Sprintf("task %s: curr_ret_stack %d", t.Name, t.Curr))
			return 0, false
		}
		// atomic_inc(&current->trace_overrun); return -EBUSY.
		t.Overrun++
		g.stats.Overruns++
		return 0, false
	}
	base := t.Curr
	w := func(i int, v uint64) { g.mem.WriteWord(t.Stack+8*uint64(i), v); g.stats.WrittenWords++ }
	w(base+off, reservedWordAt(off))
	w(base, ret)
	w(base+1, fn)
	if g.fpTest {
		w(base+2, fp)
	}
	w(base+off-1, retp)
	t.Curr += off + 1
	return base + off, true
}

func (g *Graph) callEntry(o *GraphOps, trace *GraphEnt, fregs *regs.Frame) bool {
	if o.EntryFunc == nil { // ftrace_graph_entry_stub returns 0
		return false
	}
	prev := fregs.Swap(o.Name)
	defer fregs.Swap(prev)
	traced := o.EntryFunc(g, trace, o, fregs)
	if traced && g.watch != nil {
		g.watch(GraphEvent{User: o.Name, Func: trace.Func, Depth: trace.Depth})
	}
	return traced
}

// ReserveData is fgraph_reserve_data (kernel/trace/fgraph.c, v6.11+), called
// from an entry callback: it reserves size bytes (rounded up to words) on
// the frame being built for ops and returns the guest address of the first
// word. It fails for size > FGRAPH_MAX_DATA_SIZE (256) or when
// curr + words + 1 >= SHADOW_STACK_MAX_OFFSET (trace_overrun is not counted).
// The DATA meta word goes directly above the payload with offset =
// offset(word[curr-1]) + words + 1. Reserving again stacks another record.
// A size <= 0 fails (the kernel is never passed 0).
func (g *Graph) ReserveData(ops *GraphOps, size int) (addr uint64, ok bool) {
	if ops == nil || !ops.Registered() {
		g.warn(WarnNotRegistered, "fgraph_reserve_data")
		return 0, false
	}
	if g.entering == 0 {
		g.warn(WarnReserveOutsideEntry, ops.Name)
		return 0, false
	}
	if size <= 0 || size > MaxDataSize {
		return 0, false
	}
	words := (size + 7) / 8
	t := g.cur
	curr := t.Curr
	if curr <= 0 || curr > g.maxOffset() {
		return 0, false
	}
	val := g.mem.ReadWord(t.Stack + 8*uint64(curr-1))
	data := t.Stack + 8*uint64(curr)
	curr += words + 1
	if curr >= g.maxOffset() {
		return 0, false
	}
	g.mem.WriteWord(t.Stack+8*uint64(curr-1), DataWord(ops.Index(), words, MetaOffset(val)+words+1))
	g.stats.WrittenWords++
	t.Curr = curr
	return data, true
}
