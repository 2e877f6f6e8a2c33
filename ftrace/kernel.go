package ftrace

import (
	"fmt"

	"trampemu/regs"
)

// CoreCaller is the Frame.Caller of accesses made by the modelled kernel
// core itself (not by a registered callback).
const CoreCaller = "kernel"

// ExitABI is what return_to_handler hands to ftrace_return_to_handler.
type ExitABI int

// Exit ABIs by kernel era.
const (
	// ExitLegacy (<= v6.4): unsigned long ftrace_return_to_handler(unsigned
	// long frame_pointer); the callbacks get no registers.
	ExitLegacy ExitABI = iota
	// ExitRetRegs (v6.5..v6.13): (struct fgraph_ret_regs *).
	ExitRetRegs
	// ExitFregs (v6.14+): (struct ftrace_regs *).
	ExitFregs
)

// KernelConfig is what a Kernel is built from.
type KernelConfig struct {
	Arch *regs.Arch
	Mem  regs.Memory
	Heap *Heap
	// ReturnToHandler is the guest address of return_to_handler.
	ReturnToHandler uint64
	// Obs sees every frame access (nil: none recorded).
	Obs regs.Observer
	// Warn is told of recorded warnings.
	Warn func(Warning)
	// RethookTrampoline is the guest address of arch_rethook_trampoline (0:
	// none loaded; the rethook-era fprobe then cannot hook returns).
	RethookTrampoline uint64
	// CPUs is num_possible_cpus() of the model (0: DefaultCPUs).
	CPUs int
}

// DefaultCPUs is the model's num_possible_cpus() when none is given: the
// emulated machine runs one task on one CPU, but a kernel sizes its pools
// for the possible CPUs; two keeps "x CPUs" visible in every count.
const DefaultCPUs = 2

// Kernel is the kernel side the trampolines call: the ftrace_ops list, the
// function-graph tracer and the arch glue between them and the trampolines
// (arch/x86/kernel/ftrace.c, arch/s390/kernel/ftrace.c).
type Kernel struct {
	Arch   *regs.Arch
	Mem    regs.Memory
	Heap   *Heap
	Obs    regs.Observer
	Ftrace *Ftrace
	Graph  *Graph
	// Rethook is the rethook core (kernel/trace/rethook.c).
	Rethook *RethookCore
	// FunctionTraceOp is the guest address of the struct ftrace_ops the
	// trampolines load from function_trace_op (ftrace_list_end when the
	// list function is in use: a zeroed object here).
	FunctionTraceOp uint64
	// RTH is the guest address of return_to_handler.
	RTH uint64
	// EntryFrame is the structure the entry trampoline hands
	// ftrace_ops_list_func as its fregs (nil: Arch.Frame; arm64's
	// WITH_REGS entries of v5.5-v6.1 hand a pt_regs, Arch.PtRegs).
	EntryFrame *regs.Layout
	// ExitFrame is the struct ftrace_regs return_to_handler hands
	// ftrace_return_to_handler (ExitFregs; nil: Arch.Frame), the form of
	// its build (regs.Arch.FregsForms: riscv64 v6.16).
	ExitFrame *regs.Layout

	graphOps Ops // ftrace_graph_func as an ftrace_ops (v5.16+ x86-64, v6.14+ s390x, v6.0+ arm64)
	// OpsArgs counts dispatches whose op argument was not FunctionTraceOp.
	BadOpsArgs uint64
	// userOps are the graph users' own ftrace_ops (DispatchPerOpsDraft).
	userOps map[*GraphOps]*Ops
	// partialRegs is the pt_regs buffer of PartialRegs (0 until used).
	partialRegs uint64
	// entryView and exitView are the frames OpsListFunc and
	// ReturnToHandler hand out, reused every call (no callback keeps its
	// fregs past the call, as in the kernel, where it is the trampoline's
	// stack): a host call allocates nothing.
	entryView, exitView regs.Frame
}

// NewKernel builds the kernel side with an empty ops list and a graph
// tracer whose shadow stacks come from the heap.
func NewKernel(cfg KernelConfig) (*Kernel, error) {
	k := &Kernel{Arch: cfg.Arch, Mem: cfg.Mem, Heap: cfg.Heap, Obs: cfg.Obs, Ftrace: &Ftrace{}, RTH: cfg.ReturnToHandler}
	g, err := NewGraph(GraphConfig{Arch: cfg.Arch, Mem: cfg.Mem, Heap: cfg.Heap, ReturnToHandler: cfg.ReturnToHandler, Warn: cfg.Warn})
	if err != nil {
		return nil, err
	}
	k.Graph = g
	cpus := cfg.CPUs
	if cpus <= 0 {
		cpus = DefaultCPUs
	}
	k.Rethook = &RethookCore{Trampoline: cfg.RethookTrampoline, CPUs: cpus, mem: cfg.Mem, arch: cfg.Arch, heap: cfg.Heap, g: g,
		lists: map[*Task][]*RethookNode{}, warn: func(kind, detail string) { g.warn(kind, detail) }}
	op, err := cfg.Heap.Alloc(256, 64)
	if err != nil {
		return nil, err
	}
	k.FunctionTraceOp = op
	k.graphOps = Ops{Name: "ftrace_graph_func", Func: k.graphFunc, Filter: g.Wants}
	return k, nil
}

// Frame returns a view of the structure at addr with the given layout, or
// nil for a NULL pointer.
func (k *Kernel) Frame(addr uint64, layout *regs.Layout) *regs.Frame {
	if addr == 0 || layout == nil {
		return nil
	}
	return &regs.Frame{Arch: k.Arch, Layout: layout, Base: addr, Mem: k.Mem, Obs: k.Obs, Caller: CoreCaller}
}

// view is Frame in the caller's reused frame v.
func (k *Kernel) view(v *regs.Frame, addr uint64, layout *regs.Layout) *regs.Frame {
	if addr == 0 || layout == nil {
		return nil
	}
	*v = regs.Frame{Arch: k.Arch, Layout: layout, Base: addr, Mem: k.Mem, Obs: k.Obs, Caller: CoreCaller}
	return v
}

// GraphActive reports whether a graph user is registered.
func (k *Kernel) GraphActive() bool { return k.Graph.AnyRegistered() }

// EnableGraphViaOps registers ftrace_graph_func on the ops list, what
// register_ftrace_graph does on DYNAMIC_FTRACE_WITH_ARGS kernels. With the
// per-ops draft dispatch there is no shared graph_ops: each user's own
// ftrace_ops went on the list when it registered.
func (k *Kernel) EnableGraphViaOps() error {
	if k.graphOps.Registered() || k.Graph.dispatch == DispatchPerOpsDraft {
		return nil
	}
	return k.Ftrace.Register(&k.graphOps)
}

// SetGraphDispatch selects how traced entries reach the graph users
// (GraphDispatch). It must be called before the first graph user
// registers. With DispatchPerOpsDraft every user registered from now on
// gets its own ftrace_ops on the list, calling the arch's
// ftrace_graph_func for that user (v9 12/36: fgraph_init_ops,
// register_ftrace_graph -> ftrace_startup(&gops->ops)).
func (k *Kernel) SetGraphDispatch(d GraphDispatch) error {
	if n := len(k.Graph.Registered()); n > 0 {
		return fmt.Errorf("fgraph dispatch %s: %d graph users already registered: set it first: %w", d, n, EBUSY)
	}
	if k.graphOps.Registered() {
		if err := k.Ftrace.Unregister(&k.graphOps); err != nil {
			return err
		}
	}
	g := k.Graph
	g.dispatch, g.userOps = d, nil
	if d == DispatchPerOpsDraft {
		if k.userOps == nil {
			k.userOps = map[*GraphOps]*Ops{}
		}
		g.userOps = k.registerUserOps
	}
	g.updateMode()
	return nil
}

// registerUserOps puts a graph user's own ftrace_ops on the list (add) or
// takes it off (DispatchPerOpsDraft).
func (k *Kernel) registerUserOps(o *GraphOps, add bool) error {
	if !add {
		op := k.userOps[o]
		delete(k.userOps, o)
		if op == nil {
			return fmt.Errorf("no ftrace_ops for graph user %s: %w", o.Name, EINVAL)
		}
		return k.Ftrace.Unregister(op)
	}
	op := &Ops{Name: o.Name, Filter: o.Filter, Func: func(ip, _ uint64, _ *Ops, fregs *regs.Frame) {
		if fregs == nil {
			return
		}
		prev, prevCaller := k.Graph.via, fregs.Swap(CoreCaller)
		k.Graph.via = o
		MustOps(k.Arch).GraphFunc(k, ip, fregs)
		k.Graph.via = prev
		fregs.Swap(prevCaller)
	}}
	if err := k.Ftrace.Register(op); err != nil {
		return err
	}
	k.userOps[o] = op
	return nil
}

// OpsListFunc is ftrace_ops_list_func(ip, parent_ip, op, fregs), the
// function the trampoline's callback site is patched to call.
func (k *Kernel) OpsListFunc(ip, parent, op, fregs uint64) {
	if op != k.FunctionTraceOp {
		k.BadOpsArgs++
	}
	layout := k.EntryFrame
	if layout == nil {
		layout = k.Arch.Frame
	}
	k.Ftrace.Dispatch(ip, parent, k.view(&k.entryView, fregs, layout))
}

// graphFunc is ftrace_graph_func, the arch's (ArchOps.GraphFunc:
// x86_64.go, s390x.go, arm64.go) with the core as the frame's user.
func (k *Kernel) graphFunc(ip, parentIP uint64, _ *Ops, fregs *regs.Frame) {
	if fregs == nil {
		return // v5.10-style callers pass no registers: nothing to hook
	}
	prev := fregs.Swap(CoreCaller)
	defer fregs.Swap(prev)
	MustOps(k.Arch).GraphFunc(k, ip, fregs)
}

// PrepareFtraceReturnX86 is x86-64's prepare_ftrace_return(ip, parent,
// frame_pointer) as ftrace_graph_caller called it up to v5.15
// (arch/x86/kernel/ftrace.c): parent points at the return-address slot.
// arm64's of v5.5-v6.13 has the same arguments (arch/arm64/kernel/ftrace.c)
// but files the frame under the frame pointer (ArchOps.PrepareRetp).
func (k *Kernel) PrepareFtraceReturnX86(ip, parent, fp uint64) {
	old := k.Mem.ReadWord(parent)
	retp := parent
	if r := MustOps(k.Arch).PrepareRetp; r != nil {
		retp = r(parent, fp)
	}
	if k.Graph.Enter(old, ip, fp, retp, nil) {
		k.Mem.WriteWord(parent, k.RTH)
	}
}

// PrepareFtraceReturnS390 is s390x's prepare_ftrace_return(ra, sp, ip) as
// the <= v6.13 ftrace_graph_caller block called it
// (arch/s390/kernel/ftrace.c): ip is psw.addr (ip + MCOUNT_INSN_SIZE); the
// new r14 is returned.
func (k *Kernel) PrepareFtraceReturnS390(ra, sp, ip uint64) uint64 {
	ip -= uint64(k.Arch.McountInsnSize)
	if k.Graph.Enter(ra, ip, 0, sp, nil) {
		return k.RTH
	}
	return ra
}

// PrepareABI is how an era's ftrace_graph_caller calls
// prepare_ftrace_return (the old graph entry path).
type PrepareABI int

// prepare_ftrace_return ABIs by arch and era.
const (
	// PrepareUnknown: not set (the arch's default applies).
	PrepareUnknown PrepareABI = iota
	// PrepareIPParentFP: x86-64 (<= v5.15, arch/x86/kernel/ftrace.c) and
	// arm64 (v5.5-v6.13, arch/arm64/kernel/ftrace.c)
	// void prepare_ftrace_return(ip, unsigned long *parent, frame_pointer).
	PrepareIPParentFP
	// PrepareRaSpIP: s390x v5.2..v6.12 (arch/s390/kernel/ftrace.c)
	// unsigned long prepare_ftrace_return(ra, sp, ip), the new r14
	// returned; ftrace_graph_caller loads "lmg %r2,%r3" from gprs[14]
	// and "lg %r4" from psw.addr. It came with "s390/ftrace: use
	// HAVE_FUNCTION_GRAPH_RET_ADDR_PTR" (Martin Schwidefsky, s390 pull for
	// the 5.2 merge window, tag s390-5.2-1: arch/s390/kernel/entry.h,
	// ftrace.c, mcount.S), which passes sp as the graph entry's retp.
	PrepareRaSpIP
	// PrepareParentIP: s390x before v5.2 (v4.x, v4.19 mcount.S)
	// unsigned long prepare_ftrace_return(parent, ip): "lg %r2" from
	// gprs[14], "lg %r3" from psw.addr; no stack pointer (retp NULL).
	PrepareParentIP
	// PrepareParentIPFP: arm64 up to v4.20 (arch/arm64/kernel/ftrace.c
	// v4.19: void prepare_ftrace_return(unsigned long *parent, unsigned
	// long self_addr, unsigned long frame_pointer); entry-ftrace.S v4.19
	// ftrace_graph_caller: "mcount_get_lr_addr x0; mcount_get_pc x1;
	// mcount_get_parent_fp x2"). v5.0 flipped the first two ("arm64:
	// ftrace: always pass instrumented pc in x0", Mark Rutland, v5.0
	// merge window; the v5.0 files read: figozhang/runninglinuxkernel_5.0
	// @875e3166701d).
	// riscv64 v5.11-v6.7 (arch/riscv/kernel/ftrace.c) has the same
	// prepare_ftrace_return; both: function_graph_enter(*parent,
	// self_addr, frame_pointer, parent), *parent = return_to_handler on 0.
	PrepareParentIPFP
)

// PrepareCall is what one call of prepare_ftrace_return did: the traced
// function it was given (Func, after the ip adjustment the C code makes),
// and the value it returned (Returns: the ABI returns one).
type PrepareCall struct {
	Func, Ret uint64
	Returns   bool
	// Slot is the parent pointer of the ABIs that hook through one
	// ((ip, &parent, fp), riscv64's (&parent, ip, fp)), 0 otherwise.
	Slot uint64
}

// PrepareFtraceReturn is prepare_ftrace_return in the given ABI; args
// are the first three argument registers.
func (k *Kernel) PrepareFtraceReturn(abi PrepareABI, args [3]uint64) (PrepareCall, error) {
	switch abi {
	case PrepareIPParentFP:
		k.PrepareFtraceReturnX86(args[0], args[1], args[2])
		return PrepareCall{Func: args[0], Slot: args[1]}, nil
	case PrepareRaSpIP:
		ret := k.PrepareFtraceReturnS390(args[0], args[1], args[2])
		return PrepareCall{Func: args[2] - uint64(k.Arch.McountInsnSize), Ret: ret, Returns: true}, nil
	case PrepareParentIPFP:
		parent, ip, fp := args[0], args[1], args[2]
		if k.Graph.Enter(k.Mem.ReadWord(parent), ip, fp, parent, nil) {
			k.Mem.WriteWord(parent, k.RTH)
		}
		return PrepareCall{Func: ip, Slot: parent}, nil
	case PrepareParentIP:
		// arch/s390/kernel/ftrace.c v4.19: ip -= MCOUNT_INSN_SIZE;
		// function_graph_enter(parent, ip, 0, NULL).
		ip := args[1] - uint64(k.Arch.McountInsnSize)
		ret := args[0]
		if k.Graph.Enter(ret, ip, 0, 0, nil) {
			ret = k.RTH
		}
		return PrepareCall{Func: ip, Ret: ret, Returns: true}, nil
	}
	return PrepareCall{}, fmt.Errorf("prepare_ftrace_return: unknown ABI %d", abi)
}

// ReturnToHandler is ftrace_return_to_handler for an exit ABI; arg is what
// return_to_handler passed in the first argument register. It returns the
// original return address and the function whose frame was popped.
//
// v6.14+ (kernel/trace/fgraph.c): ftrace_return_to_handler(fregs) reads the
// frame pointer (ftrace_regs_get_frame_pointer) before popping; v6.5..v6.13
// reads fgraph_ret_regs_frame_pointer; <= v6.4 receives the frame pointer
// itself.
func (k *Kernel) ReturnToHandler(abi ExitABI, arg uint64) (ret, fn uint64, err error) {
	var f *regs.Frame
	switch abi {
	case ExitFregs:
		f = k.view(&k.exitView, arg, k.exitFrame())
	case ExitRetRegs:
		f = k.view(&k.exitView, arg, k.Arch.RetRegs)
	case ExitLegacy:
	default:
		return 0, 0, fmt.Errorf("unknown exit ABI %d", abi)
	}
	fp := arg // the legacy ABI passes the frame pointer itself
	if f != nil {
		fp, _ = f.FramePointer()
	}
	if t := k.Graph.Current(); t != nil && t.Curr > 0 {
		s := k.Graph.Stack()
		if top, err := s.Frame(t.Curr, false); err == nil {
			fn = top.Func
		}
	}
	ret, err = k.Graph.ReturnFP(f, fp)
	return ret, fn, err
}

// exitFrame is ExitFrame, else Arch.Frame.
func (k *Kernel) exitFrame() *regs.Layout {
	if k.ExitFrame != nil {
		return k.ExitFrame
	}
	return k.Arch.Frame
}

// RethookCallback is arch_rethook_trampoline_callback(regs), what
// arch_rethook_trampoline calls with the pt_regs it built (Arch.PtRegs
// where that is not Frame: arm64). It returns the C function's return
// value (returns false: void).
func (k *Kernel) RethookCallback(regsAddr uint64) (ret uint64, returns bool, err error) {
	p := k.Frame(regsAddr, k.PtRegsLayout())
	if p == nil {
		return 0, false, fmt.Errorf("%s: regs is NULL", SymRethookCallback)
	}
	return MustOps(k.Arch).RethookCallback(k, p)
}

// PtRegsLayout is struct pt_regs of the arch (Arch.PtRegs, else Frame:
// x86-64 and s390x ftrace_regs wrap a pt_regs).
func (k *Kernel) PtRegsLayout() *regs.Layout {
	if k.Arch.PtRegs != nil {
		return k.Arch.PtRegs
	}
	return k.Arch.Frame
}
