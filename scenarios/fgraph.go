package scenarios

import (
	"errors"
	"fmt"
	"slices"

	"trampemu/ftrace"
	"trampemu/harness"
	"trampemu/regs"
)

// trace_selftest.c storage values (kernel/trace/trace_selftest.c, v6.11+:
// BYTE_NUMBER, SHORT_NUMBER, WORD_NUMBER, LONG_NUMBER).
const (
	byteNumber  = 123
	shortNumber = 12345
	wordNumber  = 1234567890
	longNumber  = 1234567890123456789
)

// storeFixture is struct fgraph_fixture of trace_selftest.c: one fgraph_ops
// storing store_size bytes at entry and checking them at return. The
// function filter is the selftest's DYN_FTRACE_TEST_NAME; here `add`.
type storeFixture struct {
	size     int
	typeName string
	gops     *ftrace.GraphOps
	errStr   string // error_str: "" once the return callback saw the value
	gotSize  int
	found    int64
}

func newStoreFixture(e *env, size int, typeName string) *storeFixture {
	f := &storeFixture{size: size, typeName: typeName}
	addIP := e.site("add")
	f.gops = &ftrace.GraphOps{
		Name:   "store_" + typeName,
		Filter: func(ip uint64) bool { return ip == addIP },
		// store_entry
		EntryFunc: func(g *ftrace.Graph, _ *ftrace.GraphEnt, ops *ftrace.GraphOps, _ *regs.Frame) bool {
			p, ok := g.ReserveData(ops, f.size)
			if !ok {
				f.errStr = "Failed to reserve " + f.typeName
				return false
			}
			b := make([]byte, 8)
			o := e.a.ByteOrder
			switch f.size {
			case 1:
				b[0] = byteNumber
			case 2:
				o.PutUint16(b, shortNumber)
			case 4:
				o.PutUint32(b, wordNumber)
			case 8:
				o.PutUint64(b, longNumber)
			}
			e.mem.Write(p, b[:f.size])
			return true
		},
		// store_return
		RetFunc: func(g *ftrace.Graph, _ *ftrace.GraphRet, ops *ftrace.GraphOps, _ *regs.Frame) {
			p, size, ok := g.RetrieveData(ops)
			if !ok {
				f.errStr = "Failed to retrieve " + f.typeName
				return
			}
			f.gotSize = size
			if f.size > size {
				f.errStr = fmt.Sprintf("Retrieved size %d is smaller than expected %d", size, f.size)
				return
			}
			b := make([]byte, 8)
			e.mem.Read(p, b[:f.size])
			o := e.a.ByteOrder
			var expect int64
			switch f.size {
			case 1:
				expect, f.found = byteNumber, int64(int8(b[0]))
			case 2:
				expect, f.found = shortNumber, int64(int16(o.Uint16(b)))
			case 4:
				expect, f.found = wordNumber, int64(int32(o.Uint32(b)))
			case 8:
				expect, f.found = longNumber, int64(o.Uint64(b))
			}
			if f.found != expect {
				f.errStr = fmt.Sprintf("%s returned not %d but %d", f.typeName, expect, f.found)
				return
			}
			f.errStr = ""
		},
	}
	// init_fgraph_fixture: "Failed to execute storage %s" until the return
	// callback clears it.
	f.errStr = "Failed to execute storage " + typeName
	return f
}

var storeSizes = []struct {
	size int
	name string
	want int64
}{{1, "byte", byteNumber}, {2, "short", shortNumber}, {4, "word", wordNumber}, {8, "long long", longNumber}}

func (f *storeFixture) report(r *runCtx, prefix string, want int64) {
	p := fmt.Sprintf("%ssize%d_", prefix, f.size)
	r.set(p+"retrieved_size", int64(f.gotSize))
	r.set(p+"found", f.found)
	r.expect(f.errStr == "", "storage of %d byte(s) (%s): %s", f.size, f.typeName, f.errStr)
	r.expectEq(p+"retrieved_size", 8)
	r.expectEq(p+"found", want)
}

// storageSingle is test_graph_storage_single for each size: register one
// fixture, call the function, unregister.
func storageSingle(r *runCtx) error {
	e, err := r.env(r.hdr)
	if err != nil {
		return err
	}
	for _, s := range storeSizes {
		f := newStoreFixture(e, s.size, s.name)
		if err := e.g.Register(f.gops); !r.expect(err == nil, "register_ftrace_graph(%s): %v", f.gops.Name, err) {
			return nil
		}
		before := e.g.Stats()
		if _, err := e.call("add"); err != nil {
			return err
		}
		after := e.g.Stats()
		r.set(fmt.Sprintf("size%d_frame_words", s.size), int64(after.LastFrameWords))
		r.set(fmt.Sprintf("size%d_traced", s.size), int64(after.Traced-before.Traced))
		r.expectEq(fmt.Sprintf("size%d_frame_words", s.size), int64(ftrace.FrameOffsetOf(r.a)+1+1+1))
		r.expect(e.g.Unregister(f.gops) == nil, "unregister_ftrace_graph(%s) failed", f.gops.Name)
		f.report(r, "", s.want)
	}
	return nil
}

// storageMulti is test_graph_storage_multi: all four fixtures at once on
// one function.
func storageMulti(r *runCtx) error {
	e, err := r.env(r.hdr)
	if err != nil {
		return err
	}
	var fs []*storeFixture
	for _, s := range storeSizes {
		f := newStoreFixture(e, s.size, s.name)
		if err := e.g.Register(f.gops); !r.expect(err == nil, "register_ftrace_graph(%s): %v", f.gops.Name, err) {
			return nil
		}
		fs = append(fs, f)
	}
	if _, err := e.call("add"); err != nil {
		return err
	}
	r.set("frame_words", int64(e.g.Stats().LastFrameWords))
	r.expectEq("frame_words", int64(ftrace.FrameOffsetOf(r.a)+1+4*2))
	for i, f := range fs {
		r.expect(e.g.Unregister(f.gops) == nil, "unregister_ftrace_graph(%s) failed", f.gops.Name)
		f.report(r, "", storeSizes[i].want)
	}
	return nil
}

// graphUser is a function-graph user that counts what it sees.
type graphUser struct {
	ops      *ftrace.GraphOps
	want     func(ip uint64) bool
	entries  map[string]int64
	returns  map[string]int64 // returns of frames it accepted (its filter matches)
	foreign  int64            // return callbacks for functions its filter rejects
	badEntry int64            // entries for functions its filter rejects
}

func newGraphUser(e *env, name string, filter string) *graphUser {
	u := &graphUser{entries: map[string]int64{}, returns: map[string]int64{}}
	u.want = func(ip uint64) bool { return ftrace.GlobMatch(filter, e.nameOf(ip)) }
	u.ops = &ftrace.GraphOps{
		Name:   name,
		Filter: u.want,
		EntryFunc: func(_ *ftrace.Graph, trace *ftrace.GraphEnt, _ *ftrace.GraphOps, _ *regs.Frame) bool {
			if !u.want(trace.Func) {
				u.badEntry++
			}
			u.entries[e.nameOf(trace.Func)]++
			return true
		},
		RetFunc: func(_ *ftrace.Graph, trace *ftrace.GraphRet, _ *ftrace.GraphOps, _ *regs.Frame) {
			if !u.want(trace.Func) {
				u.foreign++
				return
			}
			u.returns[e.nameOf(trace.Func)]++
		},
	}
	return u
}

// fgraphMulti is fgraph-multi.tc: four graph users with different filters,
// each sees only its own functions.
func fgraphMulti(r *runCtx) error {
	e, err := r.env(r.hdr)
	if err != nil {
		return err
	}
	type plan struct {
		name, filter string
		want         map[string]int64
	}
	fibCalls := int64(177) // fib(10) makes 177 traced calls
	plans := []plan{
		{"u0", "add", map[string]int64{"add": 2}},
		{"u1", "six", map[string]int64{"six": 1}},
		{"u2", "fprobe_selftest_target*", map[string]int64{target: 1, target2: 1}},
		{"u3", "fib", map[string]int64{"fib": fibCalls}},
	}
	users := make([]*graphUser, len(plans))
	for i, p := range plans {
		users[i] = newGraphUser(e, p.name, p.filter)
		if err := e.g.Register(users[i].ops); !r.expect(err == nil, "register %s: %v", p.name, err) {
			return nil
		}
	}
	r.set("mode_list", b2i(e.g.Mode() == ftrace.ModeList))
	r.expectEq("mode_list", 1)
	for _, w := range []string{"add", "six", target, target2, "fib", "add", "callee_saved"} {
		if _, err := e.call(w); err != nil {
			return err
		}
	}
	var total int64
	for _, p := range plans {
		for _, n := range p.want {
			total += n
		}
	}
	for i, p := range plans {
		u := users[i]
		var ent, ret int64
		for fn, n := range u.entries {
			ent += n
			r.expect(p.want[fn] == n, "%s (filter %q) saw %d entries of %s, want %d", p.name, p.filter, n, fn, p.want[fn])
		}
		for fn, n := range u.returns {
			ret += n
			r.expect(p.want[fn] == n, "%s (filter %q) saw %d returns of %s, want %d", p.name, p.filter, n, fn, p.want[fn])
		}
		var want int64
		for _, n := range p.want {
			want += n
		}
		r.set(p.name+"_index", int64(u.ops.Index()))
		r.set(p.name+"_entries", ent)
		r.set(p.name+"_returns", ret)
		r.set(p.name+"_foreign_entries", u.badEntry)
		r.set(p.name+"_foreign_returns", u.foreign)
		r.expectEq(p.name+"_entries", want)
		r.expectEq(p.name+"_returns", want)
		r.expectEq(p.name+"_foreign_entries", 0)
		// The BIT(0) quirk: function_graph_enter_regs sets bit 0 in every
		// frame's bitmap (kernel/trace/fgraph.c, v6.11+), so the user in
		// slot 0 gets the return callback of every traced frame and must
		// ignore the ones it did not accept; the others get none.
		// The drafts' function_graph_enter_ops sets only its own user's
		// bit (v9 12/36): no foreign returns there.
		wantForeign := int64(0)
		if u.ops.Index() == 0 && e.g.SetsBit0() {
			wantForeign = total - want
		}
		r.expectEq(p.name+"_foreign_returns", wantForeign)
	}
	// callee_saved matches no filter: ftrace_graph_func is not called for
	// it (the ops' filter is the union of the users' filters).
	st := e.g.Stats()
	r.set("graph_entries", int64(st.Entries))
	r.set("graph_traced", int64(st.Traced))
	r.expectEq("graph_entries", total)
	r.expectEq("graph_traced", total)
	for _, u := range users {
		r.expect(e.g.Unregister(u.ops) == nil, "unregister %s failed", u.ops.Name)
	}
	return nil
}

// seventeenUsers: 16 users fill fgraph_array; the 17th register_ftrace_graph
// is -ENOSPC; all 16 see the call; after one leaves, the 17th gets the
// freed slot.
func seventeenUsers(r *runCtx) error {
	e, err := r.env(r.hdr)
	if err != nil {
		return err
	}
	users := make([]*graphUser, 17)
	var registered int64
	for i := range users {
		users[i] = newGraphUser(e, fmt.Sprintf("user%d", i), "add")
		err := e.g.Register(users[i].ops)
		if i < ftrace.ArraySize {
			if r.expect(err == nil, "register user%d: %v", i, err) {
				registered++
			}
			continue
		}
		r.set("user17_enospc", b2i(errors.Is(err, ftrace.ENOSPC)))
	}
	r.set("registered", registered)
	r.expectEq("registered", ftrace.ArraySize)
	r.expectEq("user17_enospc", 1)
	var bitmap uint16
	users[15].ops.RetFunc = func(g *ftrace.Graph, trace *ftrace.GraphRet, _ *ftrace.GraphOps, _ *regs.Frame) {
		if fs, err := g.Frames(); err == nil && len(fs) > 0 {
			bitmap = fs[0].Meta.Bitmap
		}
		users[15].returns["add"]++
	}
	if _, err := e.call("add"); err != nil {
		return err
	}
	r.set("frame_bitmap", int64(bitmap))
	r.expectEq("frame_bitmap", 0xffff)
	seen := int64(0)
	for _, u := range users[:16] {
		if u.entries["add"] == 1 && u.returns["add"] == 1 {
			seen++
		}
	}
	r.set("users_that_saw_the_call", seen)
	r.expectEq("users_that_saw_the_call", 16)

	// One leaves: the 17th now fits, in the freed slot (the only free one).
	freed := users[7].ops.Index()
	r.expect(e.g.Unregister(users[7].ops) == nil, "unregister user7 failed")
	err = e.g.Register(users[16].ops)
	r.expect(err == nil, "register user16 after one left: %v", err)
	r.set("user17_index_after_one_left", int64(users[16].ops.Index()))
	r.expectEq("user17_index_after_one_left", int64(freed))
	if _, err := e.call("add"); err != nil {
		return err
	}
	r.set("user17_entries", users[16].entries["add"])
	r.expectEq("user17_entries", 1)
	return nil
}

// indexReuse shows the documented limitation of fgraph_array index reuse.
// V traces chain and stores a marker in its frame's data. chain(1) calls
// chain(0). Right after V accepted chain(1) (its frame is live on the
// shadow stack), a plain ftrace_ops callback at chain(1)'s entry
// unregisters V and registers N. This stands in for another CPU doing so
// while the task sits in chain(1): the Go model runs one emulated CPU and
// cannot stop a guest call half-way between two RunChecked batches. With
// 15 other users holding every other slot, N gets V's index: it enters and
// returns from chain(0) as its own, and at chain(1)'s return its return
// callback runs for a frame it never accepted and finds V's data under its
// own index. Second phase: with free slots, the LRU order of free indices
// hands N another index, and V's stale bit reaches nobody.
func indexReuse(r *runCtx) error {
	const marker = 0x5649435449 // "VICTI"
	for _, phase := range []struct {
		prefix  string
		fillers int
		vIndex  int
	}{{"full_", ftrace.ArraySize - 1, 5}, {"lru_", 0, 0}} {
		e, err := r.env(r.hdr)
		if err != nil {
			return err
		}
		e.label = "phase " + phase.prefix[:len(phase.prefix)-1]
		chainIP := e.site("chain")
		isChain := func(ip uint64) bool { return ip == chainIP }
		var fillers []*ftrace.GraphOps
		for i := 0; i < phase.fillers; i++ {
			fillers = append(fillers, &ftrace.GraphOps{Name: fmt.Sprintf("filler%d", i), Filter: func(uint64) bool { return false }})
		}
		var vRet int64
		v := &ftrace.GraphOps{Name: "V", Filter: isChain,
			EntryFunc: func(g *ftrace.Graph, _ *ftrace.GraphEnt, ops *ftrace.GraphOps, _ *regs.Frame) bool {
				if p, ok := g.ReserveData(ops, 8); ok {
					e.mem.WriteWord(p, marker)
				}
				return true
			},
			RetFunc: func(*ftrace.Graph, *ftrace.GraphRet, *ftrace.GraphOps, *regs.Frame) { vRet++ },
		}
		var nEnt, nRet, nForeign, nData int64
		var nEntered = map[int]bool{} // depth -> entered
		nFrames := int64(-1)          // frames on the shadow stack at N's entry
		n := &ftrace.GraphOps{Name: "N", Filter: isChain,
			EntryFunc: func(g *ftrace.Graph, trace *ftrace.GraphEnt, _ *ftrace.GraphOps, _ *regs.Frame) bool {
				nEnt++
				nEntered[trace.Depth] = true
				if fs, err := g.Frames(); err == nil {
					nFrames = int64(len(fs))
				}
				return true
			},
			RetFunc: func(g *ftrace.Graph, trace *ftrace.GraphRet, ops *ftrace.GraphOps, _ *regs.Frame) {
				nRet++
				if !nEntered[trace.Depth] {
					nForeign++
				}
				delete(nEntered, trace.Depth)
				if p, _, ok := g.RetrieveData(ops); ok && e.mem.ReadWord(p) == marker {
					nData++
				}
			},
		}
		// V at index vIndex, fillers around it.
		for i := 0; i < phase.fillers+1; i++ {
			ops := v
			if i != phase.vIndex {
				ops, fillers = fillers[0], fillers[1:]
			}
			if err := e.g.Register(ops); !r.expect(err == nil, "%sregister %s: %v", phase.prefix, ops.Name, err) {
				return nil
			}
		}
		r.set(phase.prefix+"v_index", int64(v.Index()))
		var swapErr error
		entries := 0
		// The mover runs after ftrace_graph_func on the ops list (the graph
		// ops is registered first), so at chain(1)'s entry V's frame is
		// already committed when it swaps.
		mover := &ftrace.Ops{Name: "mover", Filter: isChain, Func: func(uint64, uint64, *ftrace.Ops, *regs.Frame) {
			if entries++; entries != 1 {
				return
			}
			if fs, err := e.g.Frames(); err == nil {
				r.set(phase.prefix+"live_frames_at_swap", int64(len(fs)))
			}
			if err := e.g.Unregister(v); err != nil {
				swapErr = err
				return
			}
			swapErr = e.g.Register(n)
		}}
		if err := e.k.Ftrace.Register(mover); err != nil {
			return setupError{err}
		}
		p := phase.prefix
		if e.g.Dispatch() == ftrace.DispatchPerOpsDraft && phase.fillers == 0 {
			// The drafts' frame reuse (ftrace_push_return_trace of v10
			// 07/36: top frame for the same func, BITMAP, this user's bit
			// clear) cannot tell chain(0)'s entry from chain(1)'s when N's
			// bit is not in chain(1)'s frame (here, where N gets another
			// index than V; with V's index it is set): N adds its bit to chain(1)'s
			// frame, no frame is pushed for chain(0), and chain(0)'s
			// return pops chain(1)'s frame: it returns to chain(1)'s caller
			// with the rest of chain(1) skipped (arm64's frame-pointer test
			// stops graph tracing instead).
			c, err := e.callRaw("chain", 1)
			r.expect(swapErr == nil, "%sunregister V / register N: %v", p, swapErr)
			wrong := err != nil && errors.Is(err, ftrace.ErrBadFramePointer) || err == nil && !slices.Equal(c.Results, c.Want)
			if err != nil && !wrong {
				return err
			}
			r.set(p+"n_entry_frames", nFrames)
			r.set(p+"draft_reuse_went_wrong", b2i(wrong))
			r.expectEq(p+"n_entry_frames", 1)
			r.expectEq(p+"draft_reuse_went_wrong", 1)
			continue
		}
		if _, err := e.call("chain", 1); err != nil {
			return err
		}
		r.expect(swapErr == nil, "%sunregister V / register N: %v", phase.prefix, swapErr)
		r.set(p+"n_entry_frames", nFrames)
		r.expectEq(p+"n_entry_frames", 2)
		r.set(p+"n_index", int64(n.Index()))
		r.set(p+"n_entries", nEnt)
		r.set(p+"n_returns", nRet)
		r.set(p+"n_returns_for_frames_it_never_entered", nForeign)
		r.set(p+"n_read_v_data", nData)
		r.set(p+"v_returns", vRet)
		r.set(p+"stale_bits_skipped", int64(e.g.Stats().StaleBits))
		r.expectEq(p+"live_frames_at_swap", 1)
		r.expectEq(p+"v_returns", 0)
		r.expectEq(p+"n_entries", 1)
		if phase.fillers > 0 {
			// The limitation: N inherits V's index and V's frame.
			r.expectEq(p+"n_index", int64(phase.vIndex))
			r.expectEq(p+"n_returns", 2)
			r.expectEq(p+"n_returns_for_frames_it_never_entered", 1)
			r.expectEq(p+"n_read_v_data", 1)
		} else {
			// LRU: V's index 0 goes to the back of the free list.
			r.expect(n.Index() != phase.vIndex, "%sN got V's index %d although other slots were free", p, n.Index())
			r.expectEq(p+"n_returns", 1)
			r.expectEq(p+"n_returns_for_frames_it_never_entered", 0)
			r.expectEq(p+"n_read_v_data", 0)
		}
	}
	return nil
}

// tailCall: tail(a, b) jumps to add(a+1, b). Both are traced, so add's
// frame records return_to_handler as its return address and shares retp
// with tail's frame. From add's entry callback the scenario walks the
// shadow stack and asks ftrace_graph_ret_addr (the unwinder's helper) for
// the real return address.
func tailCall(r *runCtx) error {
	e, err := r.env(r.hdr)
	if err != nil {
		return err
	}
	tailIP, addIP := e.site("tail"), e.site("add")
	rth := e.h.RTH()
	var frames []ftrace.ShadowFrame
	var walkErr error
	var unwound uint64
	var returns int64
	u := &ftrace.GraphOps{Name: "unwinder",
		Filter: func(ip uint64) bool { return ip == tailIP || ip == addIP },
		EntryFunc: func(g *ftrace.Graph, trace *ftrace.GraphEnt, _ *ftrace.GraphOps, _ *regs.Frame) bool {
			if trace.Func == addIP {
				frames, walkErr = g.Frames()
				if len(frames) > 0 {
					idx := 0
					unwound = g.RetAddr(&idx, rth, frames[0].Retp)
				}
			}
			return true
		},
		RetFunc: func(*ftrace.Graph, *ftrace.GraphRet, *ftrace.GraphOps, *regs.Frame) { returns++ },
	}
	if err := e.g.Register(u); !r.expect(err == nil, "register: %v", err) {
		return nil
	}
	if _, err := e.call("tail"); err != nil {
		return err
	}
	r.expect(walkErr == nil, "shadow stack walk during add: %v", walkErr)
	r.set("frames_during_inner_call", int64(len(frames)))
	r.set("graph_returns", returns)
	r.expectEq("frames_during_inner_call", 2)
	r.expectEq("graph_returns", 2)
	if len(frames) == 2 {
		inner, outer := frames[0], frames[1]
		r.set("frames_share_retp", b2i(inner.Retp == outer.Retp))
		r.set("inner_ret_is_return_to_handler", b2i(inner.Ret == rth))
		r.set("outer_ret_is_caller", b2i(outer.Ret == e.ret))
		r.expect(inner.Func == addIP && outer.Func == tailIP, "frames are %s over %s, want add over tail", e.nameOf(inner.Func), e.nameOf(outer.Func))
		r.expectEq("frames_share_retp", 1)
		r.expectEq("inner_ret_is_return_to_handler", 1)
		r.expectEq("outer_ret_is_caller", 1)
	}
	r.set("ret_addr_finds_caller", b2i(unwound == e.ret))
	r.expect(unwound == e.ret, "ftrace_graph_ret_addr(return_to_handler, retp) = %s, want %s", e.h.Describe(unwound), e.h.Describe(e.ret))
	return nil
}

// recursion: an fprobe exit handler that calls a traced function. The Go
// model cannot re-enter the emulator from a host call, so "calls a traced
// function" is modelled by the kernel path a traced call takes
// (env.kernelCall): ftrace_ops_list_func -> ftrace_graph_func ->
// function_graph_enter_regs for the current task, the body, then
// ftrace_return_to_handler. The outer return holds the recursion lock's
// context bit; the first nested call passes on the transition bit (its
// return callbacks run, and the exit handler calls again); the second
// nested call finds both bits taken and is not traced (v6.17 fix:
// ftrace_test_recursion_trylock in ftrace_return_to_handler).
func recursion(r *runCtx) error {
	e, err := r.env(r.hdr)
	if err != nil {
		return err
	}
	rand1 := e.rand1()
	var entryCalls, exitCalls, nested, nestedTraced int64
	var nestedErr error
	fp := &ftrace.Fprobe{Name: "recursive",
		EntryHandler: func(*ftrace.Fprobe, uint64, uint64, *regs.Frame, uint64) int { entryCalls++; return 0 },
		ExitHandler: func(_ *ftrace.Fprobe, ip, _ uint64, fregs *regs.Frame, _ uint64) {
			exitCalls++
			if exitCalls > 8 { // a model bug must not recurse forever
				return
			}
			nested++
			res, traced, err := e.kernelCall(target2, rand1)
			if err != nil && nestedErr == nil {
				nestedErr = err
			}
			if traced {
				nestedTraced++
			}
			r.expect(res == rand1/divFactor+1, "nested target2(%d) = %d", rand1, res)
		},
	}
	if err := e.api.Register(fp, "fprobe_selftest_target*"); !r.expect(err == nil, "register_fprobe: %v", err) {
		return nil
	}
	before := e.g.Stats()
	var rbefore ftrace.RethookFprobeStats
	if e.rfp != nil {
		rbefore = e.rfp.Stats()
	}
	if _, err := e.call(target, rand1); err != nil {
		return err
	}
	if nestedErr != nil {
		return nestedErr
	}
	st := e.g.Stats()
	r.set("entry_handler_calls", entryCalls)
	r.set("exit_handler_calls", exitCalls)
	r.set("nested_calls", nested)
	r.set("nested_calls_traced", nestedTraced)
	r.set("task_recursion_missed", int64(e.g.Current().RecursionMissed))
	r.expectEq("entry_handler_calls", 2) // the outer call and the one nested pass
	r.expectEq("exit_handler_calls", 2)
	r.expectEq("nested_calls", 2)
	r.expectEq("nested_calls_traced", 1)
	if e.rfp != nil {
		// rethook: fprobe_handler's own trylock refuses the second nested
		// entry and counts it in nmissed (kernel/trace/fprobe.c v5.18-v6.13).
		r.set("recursion_refused", int64(e.rfp.Stats().Recursion-rbefore.Recursion))
		r.setU("nmissed", fp.NMissed())
		r.set("rethook_pending_after", int64(e.k.Rethook.Pending()))
		r.expectEq("recursion_refused", 1)
		r.expectEq("nmissed", 1)
		r.expectEq("rethook_pending_after", 0)
		return nil
	}
	r.set("recursion_refused", int64(st.Recursion-before.Recursion))
	r.set("shadow_stack_empty_after", b2i(e.g.Current().Curr == 0 && e.g.Current().Depth == -1))
	r.expectEq("recursion_refused", 1)
	r.expectEq("shadow_stack_empty_after", 1)
	return nil
}

// overflow: the chain workload nests 130 traced calls below the first (131
// levels). Phase "fgraph": one plain graph user (4 words per frame);
// phase "fprobe": one fprobe with 8 bytes of entry data in the chosen
// header encoding. A plain ftrace_ops behind ftrace_graph_func records the
// nesting level at which trace_overrun (or nmissed) first grew; both must
// equal Predict's value from the shadow-stack constants.
func overflow(r *runCtx) error {
	if r.design == ftrace.DesignRethook {
		return overflowRethook(r)
	}
	for _, ph := range []struct {
		prefix string
		probes int
	}{{"fgraph_", 0}, {"fprobe_", 1}} {
		e, err := r.env(r.hdr)
		if err != nil {
			return err
		}
		e.label = "phase " + ph.prefix[:len(ph.prefix)-1]
		var fps []*ftrace.Fprobe
		if ph.probes == 0 {
			chainIP := e.site("chain")
			u := &ftrace.GraphOps{Name: "graph", Filter: func(ip uint64) bool { return ip == chainIP },
				EntryFunc: func(*ftrace.Graph, *ftrace.GraphEnt, *ftrace.GraphOps, *regs.Frame) bool { return true }}
			if err := e.g.Register(u); err != nil {
				return setupError{err}
			}
		} else {
			fps, err = e.addProbes(ph.probes, 8, "chain")
			if err != nil {
				return err
			}
		}
		m, err := e.measureChain(fps)
		if err != nil {
			return err
		}
		want := Predict(e.a, e.hdr, ph.probes, 8)
		if ph.probes == 0 {
			want = Predict(e.a, e.hdr, 0, 0)
		}
		p := ph.prefix
		r.set(p+"frame_words", int64(want.WordsPerCall))
		r.set(p+"levels", harness.ChainDepth+1)
		r.set(p+"traced_levels", int64(m.traced))
		r.set(p+"first_overrun_level", int64(m.firstOverrun))
		r.set(p+"first_nmissed_level", int64(m.firstNmissed))
		r.set(p+"trace_overrun", int64(m.overrun))
		r.expectEq(p+"traced_levels", int64(want.MaxDepth))
		r.expectEq(p+"first_overrun_level", int64(want.FirstOverrun))
		r.expectEq(p+"first_nmissed_level", int64(want.FirstNmissed))
		if want.FirstOverrun > 0 {
			r.expectEq(p+"trace_overrun", int64(harness.ChainDepth+1-want.MaxDepth))
		}
	}
	return nil
}

// overflowRethook is overflow on the rethook design: one fprobe with 8
// bytes of entry data on chain takes a node per level from its pool of
// the default size (DefaultMaxactive: 1 address x num_possible_cpus() x
// 2); the level after the last node is the first whose nmissed grows, and
// no level below it is hooked (kernel/trace/fprobe.c v6.4-v6.13: an empty
// pool skips the entry handler and counts nmissed).
func overflowRethook(r *runCtx) error {
	e, err := r.env(r.hdr)
	if err != nil {
		return err
	}
	e.label = "phase rethook"
	data := 8
	if !e.rfp.Era().EntryData {
		data = 0 // no entry data before v6.4
	}
	fps, err := e.addProbes(1, data, "chain")
	if err != nil {
		return err
	}
	m, err := e.measureChain(fps)
	if err != nil {
		return err
	}
	pool := e.rfp.Rethook(fps[0]).Nodes
	want := ftrace.DefaultMaxactive(1, e.k.Rethook.CPUs)
	r.set("rethook_pool_nodes", int64(pool))
	r.set("rethook_levels", harness.ChainDepth+1)
	r.set("rethook_traced_levels", int64(m.traced))
	r.set("rethook_first_nmissed_level", int64(m.firstNmissed))
	r.setU("rethook_nmissed", fps[0].NMissed())
	r.set("rethook_pending_after", int64(e.k.Rethook.Pending()))
	r.expectEq("rethook_pool_nodes", int64(want))
	r.expectEq("rethook_traced_levels", int64(want))
	r.expectEq("rethook_first_nmissed_level", int64(want+1))
	r.expectEq("rethook_nmissed", int64(harness.ChainDepth+1-want))
	r.expectEq("rethook_pending_after", 0)
	return nil
}

// fprobeNest is test_fprobe_nest (lib/test_fprobe.c v6.4-v6.13):
// nr_maxactive = 1 and a probe on a function and on the one it calls. The
// stand-in is chain(1), which calls chain(0): one traced function calling
// a traced function. On rethook the inner call finds the pool empty:
// nmissed == 1, its entry handler not called (try_get comes first) and
// one exit; on fgraph nr_maxactive is deprecated (ignored): both levels
// run, nmissed == 0.
func fprobeNest(r *runCtx) error {
	e, err := r.env(r.hdr)
	if err != nil {
		return err
	}
	var entries, exits int64
	fp := &ftrace.Fprobe{Name: "nest", NrMaxactive: 1,
		EntryHandler: func(*ftrace.Fprobe, uint64, uint64, *regs.Frame, uint64) int { entries++; return 0 },
		ExitHandler:  func(*ftrace.Fprobe, uint64, uint64, *regs.Frame, uint64) { exits++ }}
	if err := e.api.RegisterSyms(fp, []string{"chain"}); !r.expect(err == nil, "register_fprobe_syms: %v", err) {
		return nil
	}
	if _, err := e.call("chain", 1); err != nil {
		return err
	}
	r.setU("nmissed", fp.NMissed())
	r.set("entry_handler_calls", entries)
	r.set("exit_handler_calls", exits)
	r.expect(e.api.Unregister(fp) == nil, "unregister_fprobe failed")
	if r.design == ftrace.DesignRethook {
		r.expectEq("nmissed", 1)
		r.expectEq("entry_handler_calls", 1)
		r.expectEq("exit_handler_calls", 1)
		return nil
	}
	r.expectEq("nmissed", 0)
	r.expectEq("entry_handler_calls", 2)
	r.expectEq("exit_handler_calls", 2)
	return nil
}
