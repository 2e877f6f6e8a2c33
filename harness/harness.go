package harness

import (
	"fmt"
	"time"

	"trampemu/asm"
	"trampemu/emu"
	"trampemu/ftrace"
	"trampemu/regs"
	"trampemu/trampolines"
	"trampemu/unwind"
)

// Options configure a Harness.
type Options struct {
	// Checks turns on observation: trampoline enter/leave callbacks, memory
	// probes on the trampoline code, stack poison. Off for raw speed.
	Checks bool
	// NoClobber makes the kernel host functions leave volatile registers
	// as they were (real C may change them; default is to clobber).
	NoClobber bool
	// Limit and Timeout bound each run (defaults of emu.RunOptions); in the
	// checked driver the instruction limit bounds each batch of calls.
	Limit   uint64
	Timeout time.Duration
	// ProbeBudget is how many trampoline invocations get their memory
	// accesses logged (the probes cost every trampoline instruction a
	// helper call; a trampoline's accesses repeat); 0 means 256, -1 all.
	ProbeBudget int
	// Interrupts, when set (with Checks), models an asynchronous interrupt
	// at an instruction boundary of every run of that role's trampoline,
	// a different boundary each run (unwind.go).
	Interrupts trampolines.Role
	// OnCall, when set, is called as each call of RunChecked completes (and
	// for a call cut short by a failed run), with its invocations; they are
	// recycled after it returns, so it must not keep them. Without OnCall,
	// calls keep their invocations. It runs inside the emulator's host
	// call: analysis takes RunBatch's observations after the run instead;
	// OnCall is for streaming many calls (benchmarks).
	OnCall func(*Call)
	// CallLimit, when not 0 (with Checks), bounds the instructions of each
	// call of the checked driver: a call that runs more stops the run as
	// the instruction limit does (a runaway trampoline is stopped after a
	// few clean calls' worth of instructions, not Limit's).
	CallLimit uint64
	// AllHostRegs records every register at each host call in
	// HostCall.Regs (trampemu trace shows them); without it, with Checks,
	// only those the checks read (hostRegs), which the host call reads in
	// C with its arguments.
	AllHostRegs bool
	// NoFast keeps every host call in Go (no C fast path, armFast): the
	// reference of the traced-call profile benchmark.
	NoFast bool
}

// Site is a traced function's call site.
type Site struct {
	Addr uint64 // the call site
	// IP is rec->ip, the ip passed to callbacks and held by the filters:
	// Addr, or past it in a site form with another (ftrace.SiteForm.RecIP).
	IP     uint64
	Func   string // the function's symbol
	Resume uint64 // where the entry trampoline returns to (Addr + MCOUNT_INSN_SIZE)
}

// Harness is a machine with one pairing loaded and the kernel stand-ins
// bound to it.
type Harness struct {
	Setup Setup
	Arch  *regs.Arch
	Image *asm.Image
	M     *emu.Machine
	K     *ftrace.Kernel
	Opts  Options

	entryUnit, exitUnit asm.Unit
	Sites               []Site
	siteByAddr          map[uint64]int
	// Unknown lists trampoline instructions whose memory accesses the
	// disassembler cannot describe (probes and counts miss them).
	Unknown []asm.Inst

	driverSP uint64
	facts    RunFacts // copied into every invocation
	rth      uint64   // return_to_handler
	// The runtime's fast-driver target word and the drivers' exit.
	targetWord, exitAddr uint64
	// The checked driver's call table and its cursor and end words
	// (driver.go), and the calls of the batch it is making.
	callTable, cursorWord, endWord uint64
	batch                          []batchCall

	// functionOps is the function tracer's ftrace_ops (nil: none).
	functionOps *ftrace.Ops
	// directOps is the direct trampoline a direct call's ops sends every
	// traced call to (installDirectOps; 0: none).
	directOps uint64

	// FunctionHits counts the function tracer's calls; LastTraced is the
	// last (ip, parent) it saw.
	FunctionHits uint64
	LastTraced   [2]uint64

	// Rethooks is the rethook-era fprobe manager of a user set's graph
	// user when the exit is arch_rethook_trampoline (nil otherwise).
	Rethooks *ftrace.RethookFprobes

	// Host-call counts per kernel function (entries and exits of the
	// trampolines when they work).
	Dispatches, Returns, Prepares uint64

	gen           func(int) *Call // the checked driver's calls
	total         int
	next          int
	inv           *Invocation
	lastLeft      *Invocation // the invocation whose leave came last (RunCalls)
	mem           recMem
	obs           observer
	free          []*Invocation // recycled invocations (with OnCall, Recycle)
	collecting    bool          // RunBatch: finished calls go to collected
	collected     []*Call
	probing       int // invocations left to probe (-1: all)
	probesStopped bool
	lateOps       []*ftrace.Ops // registered by Enable after the graph path
	invCall       *Call         // the call the current invocation belongs to
	orcTable      *unwind.Table // the image's ORC table (x86-64), parsed at the first walk
	orcErr        error
	unwind        unwinder        // the arch's unwinder rule (interrupts on)
	hooks         *harnessArch    // the arch's hooks (arch.go)
	hostRegs      []int           // the registers a host call records (hostRegsOf)
	hostRegSet    emu.RegSet      // hostRegs as a set
	entryPg       bool            // Setup.Entry.Pg(), asked at every entry run
	entryNoRegs   bool            // Setup.Entry.NoRegs(), asked at every ops call
	form          ftrace.SiteForm // Setup.Form(), asked at every entry run

	// scratchLo, scratchHi bound a C-side buffer poisoned before each use
	// (the BPF user's ftrace_partial_regs copy, bpf.go): a read of a word
	// in it that still holds poison is stale, like one of the stack.
	scratchLo, scratchHi uint64
}

// New builds the pairing's image, loads it into a new machine and binds the
// kernel stand-ins. Tracing is off until Enable.
func New(s Setup, o Options) (*Harness, error) {
	im, err := s.Build()
	if err != nil {
		return nil, err
	}
	m, err := emu.New(s.Arch)
	if err != nil {
		return nil, err
	}
	hooks, err := hooksOf(s.Arch)
	if err != nil {
		m.Close()
		return nil, err
	}
	h := &Harness{Setup: s, Arch: s.Arch, Image: im, M: m, Opts: o, siteByAddr: map[uint64]int{}, hooks: hooks, entryPg: s.Entry.Pg(), entryNoRegs: s.Entry.NoRegs(), form: s.Form()}
	h.mem, h.obs = recMem{h}, observer{h}
	if err := h.init(); err != nil {
		m.Close()
		return nil, err
	}
	return h, nil
}

// Start is New, then Install(sc), then Enable: a machine with the
// user set's users registered and every call site tracing (in that order:
// enabling turns on the graph path the registered users need).
func Start(s Setup, o Options, sc UserSet) (*Harness, error) {
	h, err := New(s, o)
	if err != nil {
		return nil, err
	}
	if err := h.Install(sc); err != nil {
		h.Close()
		return nil, err
	}
	if err := h.Enable(); err != nil {
		h.Close()
		return nil, err
	}
	return h, nil
}

// Close releases the machine.
func (h *Harness) Close() { h.M.Close() }

func (h *Harness) sym(name string) uint64 {
	a, _ := h.Image.Symbol(name)
	return a
}

func (h *Harness) init() error {
	a, m, im := h.Arch, h.M, h.Image
	if err := m.Load(im); err != nil {
		return err
	}
	h.entryUnit, _ = im.Unit(string(trampolines.Entry))
	h.exitUnit, _ = im.Unit(string(trampolines.Exit))
	h.rth = h.sym(symReturnToHandler)
	h.targetWord, h.exitAddr = h.sym(symTarget), h.sym(symExit)
	h.callTable, h.cursorWord, h.endWord = h.sym(symCalls), h.sym(symCursor), h.sym(symEnd)
	h.driverSP = (a.Memory.Stack.End() - 16<<10) &^ 15

	var obs regs.Observer
	if h.Opts.Checks {
		obs = h.obs
	}
	var rethook uint64
	if h.Setup.Exit.Role == trampolines.Rethook {
		rethook = h.sym(ftrace.SymRethookTrampoline)
	}
	k, err := ftrace.NewKernel(ftrace.KernelConfig{
		Arch: a, Mem: h.mem, Heap: ftrace.NewHeap(a.Memory.Heap), ReturnToHandler: h.rth, Obs: obs,
		RethookTrampoline: rethook,
	})
	if err != nil {
		return err
	}
	h.K = k
	k.EntryFrame = h.Setup.Entry.FrameLayout(a)
	k.ExitFrame = h.Setup.Exit.FrameLayout(a)
	h.facts = RunFacts{Ops: k.FunctionTraceOp, DriverSP: h.driverSP, PoisonXor: emu.PoisonXor}
	if h.hooks.driverRecord != nil {
		h.facts.DriverRecord = h.hooks.driverRecord(h)
	}
	for i := range h.facts.Clobbered {
		h.facts.Clobbered[i] = emu.ClobberValue(i)
	}

	clobber := !h.Opts.NoClobber
	binds := []struct {
		name    string
		fn      emu.HostFunc
		clobber bool // a kernel function: clobbers, and sets where the trampoline must go
	}{
		{HostOpsListFunc, h.hostOpsListFunc, true},
		{HostReturnToHandler, h.hostReturnToHandler, true},
		{HostPrepareFtraceRet, h.hostPrepareFtraceReturn, true},
		{HostRethookCallback, h.hostRethookCallback, true},
		{HostNext, h.hostNext, false},
		{HostDirectHook, func(*emu.Machine) error { return nil }, false},
	}
	for _, b := range binds {
		kernel := b.clobber
		b.clobber = b.clobber && clobber
		if kernel && h.Opts.Checks {
			b.fn = h.expecting(b.fn)
		}
		if err := m.Bind(b.name, b.fn, b.clobber); err != nil {
			return err
		}
	}

	// The traced call sites, as __mcount_loc lists them.
	for _, addr := range im.McountLoc() {
		name, off, _ := im.Lookup(addr)
		pg := h.entryPg
		if !ftrace.MustOps(a).SiteAt(pg, off) {
			return fmt.Errorf("call site %s is not where %s puts one in a function (offsets %v)", im.Describe(addr), a.Name, ftrace.MustOps(a).Offsets(pg))
		}
		h.siteByAddr[addr] = len(h.Sites)
		form := h.form
		h.Sites = append(h.Sites, Site{Addr: addr, IP: addr + form.RecIP, Func: name, Resume: addr + form.Return})
	}

	// The ops pointer the trampolines load, and the callback call sites.
	if err := m.WriteMem(h.sym(symFunctionTraceOp), wordBytes(a, k.FunctionTraceOp)); err != nil {
		return err
	}
	if err := h.patchCallbackSites(); err != nil {
		return err
	}

	if h.Opts.Checks {
		lo, hi := min(h.entryUnit.Start, h.exitUnit.Start), max(h.entryUnit.End, h.exitUnit.End)
		unknown, err := m.ProbeMem(lo, hi)
		if err != nil {
			return err
		}
		h.Unknown = unknown
		h.hostRegs = hostRegsOf(a)
		h.hostRegSet = emu.NewRegSet(h.hostRegs)
		// After a run the flags matter only to a check of full pt_regs
		// (a user that gets them: Install turns them on) and to a trace.
		m.SetLeaveFlags(h.Opts.AllHostRegs)
		if err := m.Prefetch(h.hostRegs); err != nil {
			return err
		}
		m.SetProbing(true)
		h.probing = h.Opts.ProbeBudget
		if h.probing == 0 {
			h.probing = 256
		}
		// Split: an entry trampoline that branches straight into
		// return_to_handler (an s390x error injection after the graph hook)
		// ends its run there, and the exit trampoline's begins.
		split := max(h.entryUnit.Start, h.exitUnit.Start)
		// Keep: what the entry's call site stores below sp and reads back
		// (ftrace.SiteForm.Keep), which the kernel's interrupts leave too.
		if err := m.Watch(lo, hi, emu.WatchOptions{PoisonBelow: PoisonDepth, Keep: h.form.Keep, PoisonXor: emu.PoisonXor,
			Full: h.sync, Tag: h.cursorWord, Split: split}); err != nil {
			return err
		}
		if h.Opts.Interrupts != "" {
			if err := h.armInterrupts(h.Opts.Interrupts); err != nil {
				return err
			}
		}
		// Fail fast: a trampoline run that leaves to another place than
		// the one it must (Invocation.WantPC, told at each host call), an
		// entry trampoline entered again straight from the block its run
		// left to (its call site: the kernel would go round for ever), or
		// a leave above the driver's sp ends the run there.
		m.SetGuard(&emu.Guard{Reentry: h.entryUnit.Start, SPMax: h.driverSP})
		m.SetCallLimit(h.Opts.CallLimit)
	}
	m.SetCounting(true)
	return nil
}

func wordBytes(a *regs.Arch, v uint64) []byte {
	b := make([]byte, 8)
	a.PutWord(b, v)
	return b
}

// patchCallbackSites points the entry trampoline's callback call at
// ftrace_ops_list_func, as the kernel's ftrace_update_ftrace_func does:
// x86-64 rewrites the call at ftrace_call (and ftrace_regs_call); s390x
// stores the function in ftrace_func (ftrace_trace_function in v4.x) or
// rewrites a brasl at ftrace_call.
func (h *Harness) patchCallbackSites() error {
	a, m, im := h.Arch, h.M, h.Image
	dispatch := im.HostFuncs[HostOpsListFunc]
	ps, err := callbackPatches(a, im, dispatch, h.entryPg)
	if err != nil {
		return modelMismatch(a, h.Setup.Entry, err)
	}
	if err := h.apply(ps); err != nil {
		return err
	}
	// DYNAMIC_FTRACE_WITH_CALL_OPS (arm64 v6.3+): every call site's ops
	// literal points at the ops the trampoline calls op->func of, here the
	// list ops whose func is ftrace_ops_list_func (ftrace_rec_update_ops;
	// arch/arm64/kernel/ftrace.c ftrace_rec_set_ops), for every site: the
	// literal is only read while the site calls the trampoline. A -pg
	// site (v4.19-v5.4) has none: its function starts with the prologue.
	if lit := ftrace.MustOps(a).CallOpsLiteral; lit != nil && !h.entryPg {
		h.K.SetOpsFunc(dispatch)
		for _, s := range h.Sites {
			if err := m.WriteMem(lit(s.Addr), wordBytes(a, h.K.FunctionTraceOp)); err != nil {
				return fmt.Errorf("the ops literal of %s: %w", s.Func, err)
			}
		}
	}
	for _, ptr := range ftrace.MustOps(a).FuncPointers {
		if addr, ok := im.Symbol(ptr); ok {
			if err := m.WriteMem(addr, wordBytes(a, dispatch)); err != nil {
				return err
			}
		}
	}
	return nil
}

func (h *Harness) apply(ps []Patch) error {
	for _, p := range ps {
		if err := h.M.PatchCode(p.Addr, p.Bytes); err != nil {
			return err
		}
	}
	return nil
}

// Enable patches the call sites of the named functions (all when none are
// given) to call the entry trampoline, as ftrace_make_call does, and turns
// on the graph path the entry variant uses when graph users are registered.
func (h *Harness) Enable(funcs ...string) error {
	target := h.sym(h.Setup.Entry.Symbol)
	want := map[string]bool{}
	for _, f := range funcs {
		want[f] = true
	}
	for _, s := range h.Sites {
		if len(funcs) > 0 && !want[s.Func] {
			continue
		}
		p, err := sitePatch(h.form, s.Addr, target)
		if err != nil {
			return fmt.Errorf("enabling %s: %w", s.Func, err)
		}
		if err := h.apply([]Patch{p}); err != nil {
			return err
		}
	}
	if err := h.enableGraphPath(); err != nil {
		return err
	}
	for _, o := range h.lateOps {
		if err := h.K.Ftrace.Register(o); err != nil {
			return err
		}
	}
	h.lateOps = nil
	return nil
}

// Disable restores every call site to its NOP.
func (h *Harness) Disable() error {
	for _, s := range h.Sites {
		if err := h.M.PatchCode(s.Addr, h.form.NopSite); err != nil {
			return err
		}
	}
	return nil
}

// enableGraphPath turns on what starts graph tracing for the entry variant
// once a graph user is registered: the ftrace_graph_func ops, or the patched
// branch into ftrace_graph_caller (ftrace_enable_ftrace_graph_caller).
//
// Without a graph user, a graph call the arch disables by rewriting it
// (ftrace.ArchOps.DisableGraph, riscv64) is written as the kernel's
// ftrace_disable_ftrace_graph_caller leaves it.
func (h *Harness) enableGraphPath() error {
	if !h.K.GraphActive() {
		if h.Setup.Entry.Graph == trampolines.GraphViaCaller && ftrace.MustOps(h.Arch).DisableGraph != nil {
			ps, err := graphCallerDisables(h.Setup, h.Image)
			if err != nil {
				return err
			}
			return h.apply(ps)
		}
		return nil
	}
	switch h.Setup.Entry.Graph {
	case trampolines.GraphViaOps:
		return h.K.EnableGraphViaOps()
	case trampolines.GraphViaCaller:
		ps, err := graphCallerPatches(h.Setup, h.Image)
		if err != nil {
			return err
		}
		return h.apply(ps)
	}
	return nil
}

// ---- host functions ----

// expecting wraps a kernel host function: after it ran, the guard learns
// where the current trampoline run must leave to (emu.Machine.ExpectLeave).
func (h *Harness) expecting(fn emu.HostFunc) emu.HostFunc {
	return func(m *emu.Machine) error {
		err := fn(m)
		if inv := h.inv; inv != nil {
			m.ExpectLeave(inv.WantPC)
		}
		return err
	}
}

// hostOpsListFunc is ftrace_ops_list_func(ip, parent_ip, op, fregs).
func (h *Harness) hostOpsListFunc(m *emu.Machine) error {
	ip, parent, op, fregs := m.Arg(0), m.Arg(1), m.Arg(2), m.Arg(3)
	if h.entryPg {
		// No ARCH_SUPPORTS_FTRACE_OPS (arm64 v4.19-v5.4): the list func
		// is ftrace_ops_no_ops(ip, parent_ip), which passes the ops
		// itself and no registers (kernel/trace/ftrace.c v5.0); x2 and
		// x3 hold whatever they held.
		op, fregs = h.K.FunctionTraceOp, 0
	}
	h.Dispatches++
	if h.entryNoRegs {
		fregs = 0 // the entry's ABI block: no registers for the ops (Tramp.NoRegs)
	}
	h.noteHostCall(HostOpsListFunc, fregs, h.K.EntryFrame)
	if inv := h.inv; inv != nil {
		inv.Func = ip
	}
	h.K.OpsListFunc(ip, parent, op, fregs)
	if inv := h.inv; inv != nil && fregs != 0 {
		h.noteRedirect(inv, fregs)
	}
	return nil
}

// noteRedirect records where the callbacks asked the entry trampoline to
// continue: a changed instruction pointer, or a direct trampoline; and on
// an arch with a link register the one the traced function will get back
// (s390x gprs[14], arm64 lr).
func (h *Harness) noteRedirect(inv *Invocation, fregs uint64) {
	layout := h.K.EntryFrame
	f := &regs.Frame{Arch: h.Arch, Layout: layout, Base: fregs, Mem: h.M}
	acc := layout.Accessors
	for _, w := range inv.CWrites {
		if w.Caller == ftrace.CoreCaller {
			continue
		}
		switch w.Slot {
		case acc.IP:
			inv.WantPC = w.Value
		case acc.Direct:
			if w.Value != 0 {
				inv.WantPC, inv.Direct = w.Value, true
			}
		}
	}
	if slot := h.hooks.linkSlot; slot != "" {
		inv.WantLink, inv.HasLink = 0, false
		if v, ok := f.Raw(slot); ok {
			inv.WantLink, inv.HasLink = v, true
		}
	}
}

// hostPrepareFtraceReturn is the old graph entry, prepare_ftrace_return in
// the form the entry trampoline's era calls it (Tramp.PrepareABI): x86-64
// (<= v5.15) void (ip, unsigned long *parent, frame_pointer); s390x
// v5.2..v6.12 unsigned long (ra, sp, ip), before v5.2 (parent, ip).
func (h *Harness) hostPrepareFtraceReturn(m *emu.Machine) error {
	h.Prepares++
	hc := h.noteHostCall(HostPrepareFtraceRet, 0, nil)
	pc, err := h.K.PrepareFtraceReturn(h.Setup.Entry.PrepareABI(h.Arch), [3]uint64{m.Arg(0), m.Arg(1), m.Arg(2)})
	if err != nil {
		return err
	}
	if hc != nil {
		hc.GraphFunc, hc.HasGraphFunc = pc.Func, true
	}
	if !pc.Returns {
		// (ip, &parent, fp), riscv64's (&parent, ip, fp): on an arch with
		// a link register parent is the saved lr/ra slot the entry
		// reloads it from (arm64 pt_regs regs[30], riscv64 ABI_RA or
		// PT_RA), where the graph entry put return_to_handler.
		if hc != nil && h.hooks.linkSlot != "" && pc.Slot != 0 && !h.entryPg {
			h.inv.WantLink, h.inv.HasLink = m.ReadWord(pc.Slot), true
		}
		return nil
	}
	m.SetReturn(pc.Ret)
	if hc != nil {
		hc.Return = pc.Ret
		h.inv.WantLink, h.inv.HasLink = pc.Ret, true
	}
	return nil
}

// hostReturnToHandler is ftrace_return_to_handler in the exit ABI of the
// exit variant.
func (h *Harness) hostReturnToHandler(m *emu.Machine) error {
	h.Returns++
	arg := m.Arg(0)
	abi := ftrace.ExitFregs
	var layout *regs.Layout
	switch h.Setup.Exit.ExitABI {
	case trampolines.ExitLegacy:
		abi = ftrace.ExitLegacy
	case trampolines.ExitRetRegs:
		abi, layout = ftrace.ExitRetRegs, h.Arch.RetRegs
	default:
		layout = h.K.ExitFrame
	}
	frame := arg
	if layout == nil {
		frame = 0
	}
	hc := h.noteHostCall(HostReturnToHandler, frame, layout)
	ret, fn, err := h.K.ReturnToHandler(abi, arg)
	if err != nil {
		return err
	}
	m.SetReturn(ret)
	if hc != nil {
		hc.Return = ret
		if ret != h.rth {
			h.inv.WantPC = ret
			h.inv.WantLink, h.inv.HasLink = ret, h.Arch.Link >= 0
		}
		if h.inv.Func == 0 {
			h.inv.Func = fn
		}
	}
	return nil
}

// hostRethookCallback is arch_rethook_trampoline_callback(struct pt_regs
// *regs): rethook_trampoline_handler runs the exit handlers and finds the
// real return address (returned on arm64 and s390x; x86-64 writes it over
// the trampoline's fake return address).
func (h *Harness) hostRethookCallback(m *emu.Machine) error {
	h.Returns++
	arg := m.Arg(0)
	hc := h.noteHostCall(HostRethookCallback, arg, h.K.PtRegsLayout())
	ret, returns, err := h.K.RethookCallback(arg)
	if err != nil {
		return err
	}
	if returns {
		m.SetReturn(ret)
	}
	if hc != nil {
		hc.Return = ret
		if ip, ok := h.K.Frame(arg, h.K.PtRegsLayout()).InstructionPointer(); ok {
			h.inv.WantPC = ip
			h.inv.WantLink, h.inv.HasLink = ip, h.Arch.Link >= 0
		}
	}
	return nil
}

// Describe renders a guest address with its symbol.
func (h *Harness) Describe(addr uint64) string { return h.Image.Describe(addr) }

// EntryUnit and ExitUnit are the code ranges of the two trampolines.
func (h *Harness) EntryUnit() asm.Unit { return h.entryUnit }

// ExitUnit is the code range of the exit trampoline.
func (h *Harness) ExitUnit() asm.Unit { return h.exitUnit }

// RTH is return_to_handler's address.
func (h *Harness) RTH() uint64 { return h.rth }

func (h *Harness) runOpts() emu.RunOptions {
	return emu.RunOptions{Limit: h.Opts.Limit, Timeout: h.Opts.Timeout}
}
