package ftrace

import (
	"fmt"

	"trampemu/regs"
)

// GraphEnt is struct ftrace_graph_ent (include/linux/ftrace.h, v6.11+): what
// an entry callback learns about the call.
type GraphEnt struct {
	Func  uint64 // the traced function
	Depth int    // curr_ret_depth after the increment
}

// GraphRet is struct ftrace_graph_ret (include/linux/ftrace.h, v6.11+):
// what a return callback learns about the call.
type GraphRet struct {
	Func uint64
	// Retval is ftrace_regs_get_return_value(fregs)
	// (CONFIG_FUNCTION_GRAPH_RETVAL); HasRetval is false when fregs is NULL
	// or has no return-value slot.
	Retval    uint64
	HasRetval bool
	Depth     int
	Overrun   uint64 // the task's trace_overrun at return
}

// GraphOps is struct fgraph_ops (include/linux/ftrace.h, v6.11+): one user
// of the function-graph tracer.
type GraphOps struct {
	Name string
	// EntryFunc is trace_func_graph_ent_t: true (the kernel's != 0) asks for
	// RetFunc at this function's return. It may call g.ReserveData. nil
	// behaves as ftrace_graph_entry_stub (never traces).
	EntryFunc func(g *Graph, trace *GraphEnt, ops *GraphOps, fregs *regs.Frame) bool
	// RetFunc is trace_func_graph_ret_t. It may call g.RetrieveData; the
	// frame's data is still on the shadow stack. nil is a no-op.
	RetFunc func(g *Graph, trace *GraphRet, ops *GraphOps, fregs *regs.Frame)
	// Filter is the ops' function filter (ftrace_ops_test on gops->ops);
	// nil accepts every function.
	Filter  func(ip uint64) bool
	Private any

	idx int // fgraph_array index + 1; 0 = not registered
}

// Index returns the ops' fgraph_array index, or -1 when not registered.
func (o *GraphOps) Index() int { return o.idx - 1 }

// Registered reports whether the ops holds a slot.
func (o *GraphOps) Registered() bool { return o.idx != 0 }

// Task is the per-task state of the function-graph tracer (struct
// task_struct fields, include/linux/sched.h, v6.11+). The shadow stack's
// contents live in guest memory only.
type Task struct {
	Name  string
	Stack uint64 // guest address of ret_stack (ShadowStackWords words)
	// Curr is curr_ret_stack: the first free word (0 = empty).
	Curr int
	// Depth is curr_ret_depth (-1 = no traced call in progress).
	Depth int
	// Overrun is trace_overrun: pushes refused because the stack was full.
	Overrun uint64
	// RecursionMissed counts refused ftrace_test_recursion_trylock calls.
	RecursionMissed uint64

	recursion uint8
}

// GraphMode says how function_graph_enter_regs reaches the users.
type GraphMode int

// Graph modes (kernel/trace/fgraph.c, v6.11+: fgraph_do_direct).
const (
	// ModeNone: no user registered.
	ModeNone GraphMode = iota
	// ModeDirect: one user, called through the static call without the
	// filter test.
	ModeDirect
	// ModeList: several users (or no static calls): loop over fgraph_array
	// with the filter test.
	ModeList
)

// String returns "none", "direct" or "list".
func (m GraphMode) String() string {
	switch m {
	case ModeNone:
		return "none"
	case ModeDirect:
		return "direct"
	case ModeList:
		return "list"
	}
	return fmt.Sprintf("mode%d", int(m))
}

// GraphStats are the tracer's counters.
type GraphStats struct {
	Entries        uint64 // Enter calls
	Traced         uint64 // Enter calls that returned true
	Dead           uint64 // Enter calls refused because tracing was stopped
	Recursion      uint64 // Enter calls refused by the recursion lock
	Overruns       uint64 // pushes refused for a full shadow stack (all tasks)
	Untraced       uint64 // frames popped again because no user accepted
	Returns        uint64 // Return calls
	ReturnsNoLock  uint64 // returns whose callbacks were skipped by the recursion lock
	Corrupt        uint64 // returns that found a corrupt shadow stack
	RetFuncs       uint64 // RetFunc calls made
	StaleBits      uint64 // set bitmap bits skipped because the slot held the stub
	TracedWords    uint64 // shadow-stack words of all traced frames at commit
	WrittenWords   uint64 // shadow-stack words the kernel wrote (frames pushed, meta words, fprobe headers)
	ReadWords      uint64 // shadow-stack words the kernel read back (returns, data retrieval, unwinding)
	UserTests      uint64 // loop mode: users' filters tested (ftrace_ops_test: a hash lookup each)
	LastFrameWords int    // words of the last traced frame (4 + reservations)
	MaxFrameWords  int
}

// GraphConfig is what a Graph is built from.
type GraphConfig struct {
	Arch *regs.Arch
	Mem  regs.Memory
	Heap *Heap
	// ReturnToHandler is the guest address of return_to_handler; frames of
	// tail calls record it as their return address (ftrace_graph_ret_addr).
	ReturnToHandler uint64
	// Warn, when set, is told of every recorded warning.
	Warn func(Warning)
	// NoDirect disables the single-user direct mode (a kernel without
	// CONFIG_HAVE_STATIC_CALL always loops over fgraph_array).
	NoDirect bool
	// Dispatch is the dispatch form (DispatchMerged unless set; the
	// per-ops draft needs a Kernel: Kernel.SetGraphDispatch).
	Dispatch GraphDispatch
}

// Graph is the multi-user function-graph tracer (kernel/trace/fgraph.c,
// v6.11+) over shadow stacks in guest memory. It is not safe for concurrent
// use: one Graph serves one emulated CPU.
type Graph struct {
	// scratch holds the ftrace_graph_ent / ftrace_graph_ret of the calls
	// in progress (Enter, ReturnFP), reused.
	scratch  graphScratch
	arch     *regs.Arch
	mem      regs.Memory
	heap     *Heap
	rth      uint64
	noDirect bool
	dispatch GraphDispatch
	// via is the user whose own ftrace_ops the arch's ftrace_graph_func
	// was called for (DispatchPerOpsDraft: container_of(op, struct
	// fgraph_ops, ops)); Enter then is function_graph_enter_ops for it.
	via *GraphOps
	// userOps registers (add) or unregisters a user's own ftrace_ops
	// (DispatchPerOpsDraft: register_ftrace_graph's ftrace_startup(&gops->ops)).
	userOps func(o *GraphOps, add bool) error
	fpTest  bool // HAVE_FUNCTION_GRAPH_FP_TEST: the fp word and its test

	array  [ArraySize]*GraphOps // fgraph_array; nil = fgraph_stub
	lru    []int                // free indices, oldest released first
	direct *GraphOps            // fgraph_direct_gops when in direct mode

	tasks    []*Task
	cur      *Task
	entering int // > 0 while entry callbacks run (fgraph_reserve_data's context)
	stopped  bool

	stats GraphStats
	warns warnings
	watch func(GraphEvent) // fgraph_watch.go
}

// NewGraph builds a tracer with one task ("init") whose shadow stack is
// allocated from cfg.Heap.
func NewGraph(cfg GraphConfig) (*Graph, error) {
	if cfg.Arch == nil || cfg.Mem == nil || cfg.Heap == nil {
		return nil, fmt.Errorf("fgraph: arch, memory and heap are required: %w", EINVAL)
	}
	if cfg.Dispatch == DispatchPerOpsDraft {
		return nil, fmt.Errorf("fgraph: the per-ops draft dispatch needs the ftrace_ops list: use Kernel.SetGraphDispatch: %w", EINVAL)
	}
	g := &Graph{arch: cfg.Arch, mem: cfg.Mem, heap: cfg.Heap, rth: cfg.ReturnToHandler, noDirect: cfg.NoDirect, dispatch: cfg.Dispatch}
	if o, err := OpsOf(cfg.Arch); err == nil {
		g.fpTest = o.GraphFPTest
	}
	g.warns.sink = cfg.Warn
	// fgraph_lru_table starts as 0..FGRAPH_ARRAY_SIZE-1 (kernel/trace/fgraph.c, v6.11+).
	for i := 0; i < ArraySize; i++ {
		g.lru = append(g.lru, i)
	}
	t, err := g.NewTask("init")
	if err != nil {
		return nil, err
	}
	g.cur = t
	return g, nil
}

// Arch returns the guest architecture.
func (g *Graph) Arch() *regs.Arch { return g.arch }

// Mem returns the guest memory the shadow stacks live in.
func (g *Graph) Mem() regs.Memory { return g.mem }

// Heap returns the guest heap allocator.
func (g *Graph) Heap() *Heap { return g.heap }

// ReturnToHandler returns the guest address of return_to_handler.
func (g *Graph) ReturnToHandler() uint64 { return g.rth }

// NewTask allocates a task with an empty shadow stack (4096 bytes of guest
// heap) and zeroed task variables for the registered users
// (kernel/trace/fgraph.c, v6.11+: graph_init_task, init_task_vars).
func (g *Graph) NewTask(name string) (*Task, error) {
	addr, err := g.heap.Alloc(ShadowStackSize, 8)
	if err != nil {
		return nil, fmt.Errorf("fgraph: shadow stack for task %s: %w", name, err)
	}
	t := &Task{Name: name, Stack: addr, Depth: -1}
	for i := 0; i < ArraySize; i++ {
		g.mem.WriteWord(g.taskVarAddr(t, i), 0)
	}
	g.tasks = append(g.tasks, t)
	return t, nil
}

// SetCurrent makes t the current task (a context switch).
func (g *Graph) SetCurrent(t *Task) { g.cur = t }

// Current returns the current task.
func (g *Graph) Current() *Task { return g.cur }

// Tasks returns every task, in creation order.
func (g *Graph) Tasks() []*Task { return append([]*Task(nil), g.tasks...) }

func (g *Graph) taskVarAddr(t *Task, idx int) uint64 {
	return t.Stack + 8*uint64(TaskVarsOffset+idx)
}

// TaskVar returns the guest address of the ops' task variable on the
// current task (fgraph_get_task_var, kernel/trace/fgraph.c, v6.12+), or
// false when the ops is not registered.
func (g *Graph) TaskVar(ops *GraphOps) (uint64, bool) {
	if !ops.Registered() {
		return 0, false
	}
	return g.taskVarAddr(g.cur, ops.Index()), true
}

// frameOff is FGRAPH_FRAME_OFFSET for this tracer's arch.
func (g *Graph) frameOff() int { return g.Stack().off() }

// maxOffset is SHADOW_STACK_MAX_OFFSET for this tracer's arch.
func (g *Graph) maxOffset() int { return g.Stack().max() }

// Stack returns a view of the current task's shadow stack.
func (g *Graph) Stack() ShadowStack {
	return ShadowStack{Mem: g.mem, Addr: g.cur.Stack, Curr: g.cur.Curr, FPTest: g.fpTest}
}

// Frames walks the current task's shadow stack, newest frame first. A frame
// still being built (inside Enter) is allowed at the top.
func (g *Graph) Frames() ([]ShadowFrame, error) { return g.Stack().Walk(g.entering > 0) }

// Stopped reports whether graph tracing was stopped for good
// (ftrace_graph_stop after a corrupt shadow stack).
func (g *Graph) Stopped() bool { return g.stopped }

// Stats returns the counters.
func (g *Graph) Stats() GraphStats { return g.stats }

// Warnings returns the recorded warnings in first-seen order.
func (g *Graph) Warnings() []Warning { return g.warns.list() }

// Warned reports whether a warning with this text was recorded.
func (g *Graph) Warned(text string) bool { return g.warns.has(text) }

// graphScratch keeps a few GraphEnt and GraphRet for reuse, one per level
// of calls in progress (an interrupt's nested call is one more).
type graphScratch struct {
	ents scratch[GraphEnt]
	rets scratch[GraphRet]
}

func (s *graphScratch) ent(v GraphEnt) *GraphEnt { return s.ents.get(v) }
func (s *graphScratch) doneEnt()                 { s.ents.n-- }
func (s *graphScratch) ret(v GraphRet) *GraphRet { return s.rets.get(v) }
func (s *graphScratch) doneRet()                 { s.rets.n-- }

// scratch is a small stack of reused values; deeper nesting allocates.
type scratch[T any] struct {
	v [4]T
	n int
}

func (s *scratch[T]) get(v T) *T {
	s.n++
	if s.n <= len(s.v) {
		s.v[s.n-1] = v
		return &s.v[s.n-1]
	}
	p := new(T)
	*p = v
	return p
}
