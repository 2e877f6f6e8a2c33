package ftrace

import (
	"fmt"
	"strings"

	"trampemu/regs"
)

// GraphDispatch is how the traced function's entry reaches the graph users:
// the merged multi-user fgraph, or one of the two forms of the rejected
// v5-v9 drafts of "function_graph: Allow multiple users" (Dec 2023-Apr
// 2024), modelled as an experiment.
type GraphDispatch int

// Dispatch forms.
const (
	// DispatchMerged is v6.11+ (kernel/trace/fgraph.c): one graph_ops
	// whose filter is the union of the users' (each user's ftrace_ops is a
	// sub-op, ftrace_startup_subops); function_graph_enter_regs calls a
	// lone user directly (fgraph_do_direct) and loops over several with
	// each user's filter tested (ftrace_ops_test).
	DispatchMerged GraphDispatch = iota
	// DispatchPerOpsDraft is the drafts' DYNAMIC_FTRACE_WITH_ARGS path
	// ("[PATCH v9 12/36] function_graph: Have the instances use their own
	// ftrace_ops for filtering",
	// 171318547875.254850.4177660630221220911.stgit@devnote2): every
	// fgraph_ops has its own ftrace_ops (func = the arch's
	// ftrace_graph_func), so ftrace's list function tests each user's
	// hash, and ftrace_graph_func calls function_graph_enter_ops for that
	// one user: the first pushes the frame, the next ones find it on top
	// (same func, BITMAP type, their bit clear: ftrace_push_return_trace
	// of "[PATCH v10 07/36] function_graph: Allow multiple users to attach
	// to function graph", 171509096221.162236.8806372072523195752.stgit@devnote2,
	// as since v4 of that patch) and add their bit. No direct mode, and no
	// BIT(0) in the frames only function_graph_enter_ops built.
	DispatchPerOpsDraft
	// DispatchLoop is the drafts' path without DYNAMIC_FTRACE_WITH_ARGS
	// (the same two patches): the arch's ftrace_graph_caller ->
	// prepare_ftrace_return -> function_graph_enter, which pushes one frame
	// and loops over every fgraph_ops testing its hash (ftrace_ops_test),
	// then sets bitmap | BIT(0) ("fgraph_idx = 0 as a tail-call checking
	// flag"). No direct mode.
	DispatchLoop
)

// GraphDispatches lists the forms in presentation order.
var GraphDispatches = []GraphDispatch{DispatchMerged, DispatchPerOpsDraft, DispatchLoop}

// String returns "merged", "per-ops-draft" or "loop".
func (d GraphDispatch) String() string {
	switch d {
	case DispatchMerged:
		return "merged"
	case DispatchPerOpsDraft:
		return "per-ops-draft"
	case DispatchLoop:
		return "loop"
	}
	return fmt.Sprintf("dispatch%d", int(d))
}

// ParseGraphDispatch is the inverse of String; the error names the valid
// forms.
func ParseGraphDispatch(s string) (GraphDispatch, error) {
	var names []string
	for _, d := range GraphDispatches {
		if d.String() == s {
			return d, nil
		}
		names = append(names, d.String())
	}
	return 0, fmt.Errorf("unknown fgraph dispatch %q: valid are %s", s, strings.Join(names, ", "))
}

// Dispatch returns the tracer's dispatch form.
func (g *Graph) Dispatch() GraphDispatch { return g.dispatch }

// SetsBit0 reports whether every frame Enter commits has BIT(0) set, so
// the user in slot 0 gets the return callbacks of frames it did not accept:
// true for the merged form and the drafts' function_graph_enter; the
// drafts' function_graph_enter_ops sets only its user's bit.
func (g *Graph) SetsBit0() bool { return g.dispatch != DispatchPerOpsDraft }

// enterOps is the drafts' function_graph_enter_ops(ret, func, fp, retp,
// gops) (v9 12/36) with the recursion lock the drafts' ftrace_graph_func
// takes around it: for the one user o. A frame on top for the same
// function whose BITMAP has o's bit clear was pushed by another user's
// ftrace_graph_func for this same entry and is reused (depth is not
// incremented again); o's accepted entry adds its bit with a
// read-modify-write of the BITMAP word. A refusing o drops what it reserved
// and, when it pushed the frame itself, pops it.
func (g *Graph) enterOps(o *GraphOps, ret, fn, fp, retp uint64, fregs *regs.Frame) bool {
	if g.stopped {
		g.stats.Entries++
		g.stats.Dead++
		return false
	}
	// if (fgraph_array[gops->idx] == &fgraph_stub) return -ENODEV (v9 12/36).
	if !o.Registered() || g.array[o.Index()] != o {
		return false
	}
	t := g.cur
	bit, ok := t.trylock()
	if !ok {
		g.stats.Entries++
		g.stats.Recursion++
		return false
	}
	defer t.unlock(bit)

	offset, reused := g.reusable(t, fn, o.Index())
	if !reused {
		g.stats.Entries++
		t.Depth++
		if offset, ok = g.push(t, ret, fn, fp, retp); !ok {
			t.Depth--
			return false
		}
	}
	fo := g.frameOff()
	base := offset - fo
	trace := g.scratch.ent(GraphEnt{Func: fn, Depth: t.Depth})
	defer g.scratch.doneEnt()

	save := t.Curr
	g.entering++
	accepted := g.callEntry(o, trace, fregs)
	g.entering--
	addr := t.Stack + 8*uint64(offset)
	if !accepted {
		t.Curr = save // clear out any saved storage
		if !reused {
			t.Curr -= fo + 1
			t.Depth--
			g.stats.Untraced++
		}
		return false
	}
	mask := uint16(1) << o.Index()
	if reused {
		// add_fgraph_index_bitmap: ret_stack[offset] |= bitmap << FGRAPH_INDEX_SHIFT.
		w := g.mem.ReadWord(addr)
		g.stats.ReadWords++
		g.mem.WriteWord(addr, w|bitmapWordAt(mask, fo))
		g.stats.WrittenWords++
		g.stats.TracedWords += uint64(t.Curr - save)
	} else {
		// set_fgraph_index_bitmap(current, offset, BIT(gops->idx)).
		g.mem.WriteWord(addr, bitmapWordAt(mask, fo))
		g.stats.WrittenWords++
		g.stats.Traced++
		g.stats.TracedWords += uint64(t.Curr - base)
	}
	words := t.Curr - base
	g.stats.LastFrameWords = words
	g.stats.MaxFrameWords = max(g.stats.MaxFrameWords, words)
	return true
}

// reusable is the frame test at the top of the drafts'
// ftrace_push_return_trace(..., fgraph_idx): the frame get_ret_stack finds
// through word[curr-1] is for func, its meta word is a BITMAP and bit idx
// is clear. It returns the word index of that frame's meta word.
func (g *Graph) reusable(t *Task, fn uint64, idx int) (int, bool) {
	if t.Curr <= 0 {
		return 0, false
	}
	s := ShadowStack{Mem: g.mem, Addr: t.Stack, Curr: t.Curr, FPTest: g.fpTest, Reads: &g.stats.ReadWords}
	base, err := s.topFrame(t.Curr)
	if err != nil {
		return 0, false
	}
	fo := s.off()
	if s.word(base+1) != fn {
		return 0, false
	}
	m := DecodeMeta(s.word(base + fo))
	if m.Type != MetaBitmap || m.Bitmap&(1<<idx) != 0 {
		return 0, false
	}
	return base + fo, true
}
