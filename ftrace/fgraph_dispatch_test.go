package ftrace

import (
	"strings"
	"testing"

	"trampemu/regs"
)

// dispatchKernel is a Kernel over flat memory with the dispatch form set
// and an ftrace_regs on the stack for kernel-path calls.
type dispatchKernel struct {
	k     *Kernel
	a     *regs.Arch
	mem   *regs.FlatMemory
	fregs uint64
	sp    uint64
}

func newDispatchKernel(t *testing.T, a *regs.Arch, d GraphDispatch) *dispatchKernel {
	t.Helper()
	mem := regs.NewFlatMemory(a, a.Memory.Heap, a.Memory.Stack)
	k, err := NewKernel(KernelConfig{Arch: a, Mem: mem, Heap: NewHeap(a.Memory.Heap), ReturnToHandler: a.Memory.Stubs.Base + 0x40})
	if err != nil {
		t.Fatal(err)
	}
	if err := k.SetGraphDispatch(d); err != nil {
		t.Fatal(err)
	}
	if err := k.EnableGraphViaOps(); err != nil {
		t.Fatal(err)
	}
	return &dispatchKernel{k: k, a: a, mem: mem, fregs: a.Memory.Stack.Base + 0x1000, sp: a.Memory.Stack.Base + 0x2000}
}

// call makes one traced call of fn returning to ret through the ops list
// (the entry trampoline's ftrace_ops_list_func) and, when the return
// address was hooked, ftrace_return_to_handler; it reports whether the
// call was hooked and the shadow-stack words of its frame.
func (d *dispatchKernel) call(t *testing.T, fn, ret uint64) (hooked bool, words int) {
	t.Helper()
	f := d.k.Frame(d.fregs, d.a.Frame)
	acc := d.a.Frame.Accessors
	f.Set(acc.IP, fn)
	f.Set(acc.SP, d.sp)
	readRet := func() uint64 { return d.mem.ReadWord(d.sp) }
	if acc.RetAddr != "" {
		f.Set(acc.RetAddr, ret)
		readRet = func() uint64 { v, _ := f.Raw(acc.RetAddr); return v }
	} else {
		d.mem.WriteWord(d.sp, ret)
	}
	d.k.OpsListFunc(fn, ret, d.k.FunctionTraceOp, d.fregs)
	if readRet() != d.k.RTH {
		return false, 0
	}
	words = d.k.Graph.Current().Curr
	back, _, err := d.k.ReturnToHandler(ExitFregs, d.fregs)
	if err != nil || back != ret {
		t.Fatalf("return: %#x, %v; want %#x", back, err, ret)
	}
	return true, words
}

// TestDispatchKernelPath: each dispatch form on every arch, three graph
// users on fn (one refusing) and one on another function: the C side's
// counts per form, one frame per traced call with the accepting users'
// bits, and each user's calls the same in every form.
func TestDispatchKernelPath(t *testing.T) {
	archs(t, func(t *testing.T, a *regs.Arch) {
		fn, other := a.Memory.Text.Base+0x100, a.Memory.Text.Base+0x200
		calls := map[GraphDispatch]string{}
		for _, d := range GraphDispatches {
			dk := newDispatchKernel(t, a, d)
			var log strings.Builder
			user := func(name string, want uint64, accept bool) *GraphOps {
				return &GraphOps{Name: name, Filter: func(ip uint64) bool { return ip == want },
					EntryFunc: func(_ *Graph, tr *GraphEnt, _ *GraphOps, _ *regs.Frame) bool {
						log.WriteString(name + " entry;")
						return accept
					},
					RetFunc: func(_ *Graph, tr *GraphRet, _ *GraphOps, _ *regs.Frame) {
						if tr.Func == want {
							log.WriteString(name + " return;")
						}
					}}
			}
			us := []*GraphOps{user("a", fn, true), user("b", fn, false), user("c", fn, true), user("d", other, true)}
			for _, u := range us {
				if err := dk.k.Graph.Register(u); err != nil {
					t.Fatal(err)
				}
			}
			if err := dk.k.SetGraphDispatch(DispatchMerged); err == nil {
				t.Fatalf("%s: dispatch changed with users registered", d)
			}
			ft, st := *dk.k.Ftrace, dk.k.Graph.Stats()
			hooked, words := dk.call(t, fn, a.Memory.Text.Base+0x10000)
			if calls := dk.k.Ftrace.Calls - ft.Calls; calls != 1 || dk.k.BadOpsArgs != 0 {
				t.Errorf("%s: ftrace_ops_list_func calls %d, with a wrong op %d; want 1, 0", d, calls, dk.k.BadOpsArgs)
			}
			if dk.k.Graph.entering != 0 {
				t.Errorf("%s: the entry callbacks' context (fgraph_reserve_data's) outlives them: entering %d", d, dk.k.Graph.entering)
			}
			fo := FrameOffsetOf(a)
			if !hooked || words != fo+1 {
				t.Fatalf("%s: hooked %v, frame of %d words, want %d", d, hooked, words, fo+1)
			}
			visited, lookups := dk.k.Ftrace.OpsVisited-ft.OpsVisited, dk.k.Ftrace.HashLookups-ft.HashLookups
			st2 := dk.k.Graph.Stats()
			tests, read := st2.UserTests-st.UserTests, st2.ReadWords-st.ReadWords
			// merged: graph_ops visited, 4 filters tested by fgraph; per-ops:
			// the list function visits and tests the 4 users' ops, the 2nd
			// and 3rd user read 3 words to find the frame and the 3rd
			// (accepting) its BITMAP word again; loop: fgraph tests 4.
			// The return reads 4 words (5 with the FP-test word).
			ret := uint64(4)
			if MustOps(a).GraphFPTest {
				ret++
			}
			want := map[GraphDispatch][4]uint64{DispatchMerged: {1, 0, 4, ret}, DispatchPerOpsDraft: {4, 4, 0, ret + 3 + 3 + 1}, DispatchLoop: {1, 0, 4, ret}}[d]
			if got := [4]uint64{visited, lookups, tests, read}; got != want {
				t.Errorf("%s: visited, lookups, fgraph tests, words read = %v, want %v", d, got, want)
			}
			// one frame traced, of fo+1 words, under every dispatch
			if traced, tw := st2.Traced-st.Traced, st2.TracedWords-st.TracedWords; traced != 1 || tw != uint64(fo+1) || st2.LastFrameWords != fo+1 || st2.MaxFrameWords != fo+1 {
				t.Errorf("%s: traced %d frames of %d words (last %d, max %d), want 1 of %d", d, traced, tw, st2.LastFrameWords, st2.MaxFrameWords, fo+1)
			}
			if d == DispatchPerOpsDraft && dk.k.Graph.SetsBit0() || d != DispatchPerOpsDraft && !dk.k.Graph.SetsBit0() {
				t.Errorf("%s: SetsBit0 %v", d, dk.k.Graph.SetsBit0())
			}
			if hooked, _ := dk.call(t, a.Memory.Text.Base+0x300, a.Memory.Text.Base+0x10010); hooked {
				t.Errorf("%s: a function no user wants was hooked", d)
			}
			for _, u := range us {
				if err := dk.k.Graph.Unregister(u); err != nil {
					t.Fatal(err)
				}
			}
			if n := len(dk.k.Ftrace.Ops()); d == DispatchPerOpsDraft && n != 0 {
				t.Errorf("%s: %d ftrace_ops left on the list after every user left", d, n)
			}
			calls[d] = log.String()
		}
		for _, d := range GraphDispatches {
			if calls[d] != calls[DispatchMerged] {
				t.Errorf("%s gave the users %q, merged %q", d, calls[d], calls[DispatchMerged])
			}
		}
	})
}

// TestDispatchConfig: the per-ops draft needs the Kernel's ops list, and
// the names parse back.
func TestDispatchConfig(t *testing.T) {
	a := regs.X86_64
	mem := regs.NewFlatMemory(a, a.Memory.Heap, a.Memory.Stack)
	if _, err := NewGraph(GraphConfig{Arch: a, Mem: mem, Heap: NewHeap(a.Memory.Heap), Dispatch: DispatchPerOpsDraft}); err == nil {
		t.Error("a bare Graph accepted the per-ops draft")
	}
	for _, d := range GraphDispatches {
		if got, err := ParseGraphDispatch(d.String()); err != nil || got != d {
			t.Errorf("%s: %v %v", d, got, err)
		}
	}
	if _, err := ParseGraphDispatch("perops"); err == nil || !strings.Contains(err.Error(), "per-ops-draft") {
		t.Errorf("bad name: %v", err)
	}
}
