package scenarios

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"

	"trampemu/ftrace"
	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
)

// divFactor is div_factor of the fprobe KUnit test (lib/test_fprobe.c,
// v5.18+): the targets return value / 3 and value / 3 + 1.
const divFactor = 3

// runCtx is one scenario run: its outcome and the machines it built.
type runCtx struct {
	name string
	out  *Outcome
	a    *regs.Arch
	hdr  ftrace.HeaderEncoding
	// design is the fprobe implementation the run's machines have.
	design ftrace.FprobeDesign
	// form is the rethook design's form (RunForm).
	form ftrace.RethookEra
	// dispatch is the fgraph dispatch form of the run's machines
	// (RunDispatch).
	dispatch ftrace.GraphDispatch
	// pairing, when set, is the entry and exit trampoline of the run's
	// machines instead of the design's (designPairing).
	pairing *[2]harness.Tramp
	envs    []*env
	// watch, when set, sees each new machine (Scenario.RunWatched).
	watch func(h *harness.Harness)
}

// env is one machine with the arch's current pairing loaded, tracing
// enabled on every call site and the kernel stand-ins bound.
type env struct {
	r     *runCtx
	label string // prefix of its warnings when a run has several machines
	a     *regs.Arch
	hdr   ftrace.HeaderEncoding
	h     *harness.Harness
	k     *ftrace.Kernel
	g     *ftrace.Graph
	mem   regs.Memory
	syms  map[string]uint64 // function -> ftrace location (the call site)
	rng   *rand.Rand
	ret   uint64          // trampemu_return: where every driver call returns
	fp    *ftrace.Fprobes // the fgraph design's manager (nil on rethook)
	rfp   *ftrace.RethookFprobes
	api   ftrace.FprobeManager // the design's manager

	graphPath bool
	scratch   []uint64 // per nesting level: an ftrace_regs and a stack word for kernelCall
	kdepth    int
}

// newMachine builds a harness for a's current pairing (harness.Current) with
// checks off, the ftrace_graph_func ops registered first on the ops list
// (so observers registered later run after the graph entry) and every call
// site patched.
func newMachine(a *regs.Arch, design ftrace.FprobeDesign, dispatch ftrace.GraphDispatch) (*harness.Harness, error) {
	entry, exit, err := designPairing(a, design)
	if err != nil {
		return nil, err
	}
	return newMachineWith(a, design, dispatch, entry, exit)
}

// newMachineWith is newMachine on the given pairing.
func newMachineWith(a *regs.Arch, design ftrace.FprobeDesign, dispatch ftrace.GraphDispatch, entry, exit harness.Tramp) (*harness.Harness, error) {
	h, err := harness.New(harness.Setup{Arch: a, Entry: entry, Exit: exit}, harness.Options{})
	if err != nil {
		return nil, err
	}
	if err := h.K.SetGraphDispatch(dispatch); err != nil {
		h.Close()
		return nil, err
	}
	if entry.Graph == trampolines.GraphViaOps && design != ftrace.DesignRethook {
		// (On rethook no graph user exists: ftrace_graph_func is not on the
		// ops list, which the dispatch counts would otherwise show.)
		if err := h.K.EnableGraphViaOps(); err != nil {
			h.Close()
			return nil, err
		}
	}
	if err := h.Enable(); err != nil {
		h.Close()
		return nil, err
	}
	return h, nil
}

// designPairing is the trampolines a design's machine runs: the current
// pairing for fgraph; for rethook the arch's arch_rethook_trampoline with
// the SAVE_REGS entry of its era (its Pair: the fprobe ops sets
// FTRACE_OPS_FL_SAVE_REGS, kernel/trace/fprobe.c v5.18-v6.13).
func designPairing(a *regs.Arch, design ftrace.FprobeDesign) (entry, exit harness.Tramp, err error) {
	if design == ftrace.DesignRethook {
		v, err := harness.FindVariant(a, trampolines.Rethook, "rethook")
		if err != nil {
			return entry, exit, err
		}
		if exit, err = harness.FromVariant(v); err != nil {
			return entry, exit, err
		}
		entry, err = harness.Pair(a, exit)
		return entry, exit, err
	}
	if entry, err = harness.Current(a, trampolines.Entry); err != nil {
		return entry, exit, err
	}
	exit, err = harness.Current(a, trampolines.Exit)
	return entry, exit, err
}

// Symbols maps each traced function of the image to its ftrace location
// (rec->ip of the call site listed in __mcount_loc): what fprobe attaches
// to.
func Symbols(h *harness.Harness) map[string]uint64 {
	out := make(map[string]uint64, len(h.Sites))
	for _, s := range h.Sites {
		out[s.Func] = s.IP
	}
	return out
}

// env builds a machine for this run with fprobe header hdr.
func (r *runCtx) env(hdr ftrace.HeaderEncoding) (*env, error) {
	var h *harness.Harness
	var err error
	if r.pairing != nil {
		h, err = newMachineWith(r.a, r.design, r.dispatch, r.pairing[0], r.pairing[1])
	} else {
		h, err = newMachine(r.a, r.design, r.dispatch)
	}
	if err != nil {
		return nil, setupError{err}
	}
	if r.watch != nil {
		r.watch(h)
	}
	e := &env{r: r, a: r.a, hdr: hdr, h: h, k: h.K, g: h.K.Graph, mem: h.K.Mem, syms: Symbols(h)}
	fh := fnv.New64a()
	fh.Write([]byte(r.name))
	e.rng = rand.New(rand.NewPCG(1, fh.Sum64()^uint64(len(r.envs))))
	e.ret, _ = h.Image.Symbol("trampemu_return")
	e.graphPath = h.K.GraphActive() || h.Setup.Entry.Graph == trampolines.GraphViaOps
	// Ftrace set: entry-only probes take the plain ftrace_ops fast path of
	// current kernels (kernel/trace/fprobe.c, late 2025), not fgraph.
	if r.design == ftrace.DesignRethook {
		form := r.form
		if form.Pool == 0 {
			form = ftrace.RethookV613
		}
		rfp, err := ftrace.NewRethookFprobes(ftrace.RethookFprobesConfig{Kernel: e.k, Symbols: e.syms, Era: form})
		if err != nil {
			h.Close()
			return nil, setupError{err}
		}
		e.rfp, e.api = rfp, rfp
	} else {
		fp, err := ftrace.NewFprobes(ftrace.FprobesConfig{Graph: e.g, Symbols: e.syms, Header: hdr, Ftrace: e.k.Ftrace})
		if err != nil {
			h.Close()
			return nil, setupError{err}
		}
		e.fp, e.api = fp, fp
	}
	r.envs = append(r.envs, e)
	return e, nil
}

func (r *runCtx) close() {
	for _, e := range r.envs {
		e.h.Close()
	}
	r.envs = nil
}

// finish fills the warnings and the shadow-stack words of every machine.
func (r *runCtx) finish() {
	var words, traced uint64
	for _, e := range r.envs {
		st := e.g.Stats()
		words += st.TracedWords
		traced += st.Traced
		for _, w := range e.g.Warnings() {
			s := fmt.Sprintf("%s (x%d): %s", w.Text, w.Count, w.Detail)
			if e.label != "" {
				s = e.label + ": " + s
			}
			r.out.Warnings = append(r.out.Warnings, s)
		}
	}
	if traced > 0 {
		r.out.ShadowWordsPerCall = float64(words) / float64(traced)
	}
}

// failf records a finding.
func (r *runCtx) failf(format string, args ...any) {
	r.out.Findings = append(r.out.Findings, fmt.Sprintf(format, args...))
}

// expect records a finding when ok is false and returns ok.
func (r *runCtx) expect(ok bool, format string, args ...any) bool {
	if !ok {
		r.failf(format, args...)
	}
	return ok
}

// expectEq records a finding when counter name's value is not want.
func (r *runCtx) expectEq(name string, want int64) bool {
	got, ok := r.out.Counters[name]
	if !ok {
		r.failf("%s was never set, want %d", name, want)
		return false
	}
	return r.expect(got == want, "%s = %d, want %d", name, got, want)
}

// set stores a counter.
func (r *runCtx) set(name string, v int64) { r.out.Counters[name] = v }

// setU stores an unsigned value as a counter (values here fit in 63 bits).
func (r *runCtx) setU(name string, v uint64) { r.out.Counters[name] = int64(v) }

// get returns a counter (0 when unset).
func (r *runCtx) get(name string) int64 { return r.out.Counters[name] }

// rand1 is the KUnit test's u32 rand1 = get_random_u32_above(div_factor)
// (lib/test_fprobe.c, v6.2+): above 3, from the run's deterministic
// generator.
func (e *env) rand1() uint64 { return uint64(e.rng.Uint32N(math.MaxUint32-divFactor)) + divFactor + 1 }

// prepare turns the graph path on once a graph user exists (harness.Enable
// after registration, as the kernel's register_ftrace_graph does).
func (e *env) prepare() error {
	if e.graphPath || !e.k.GraphActive() {
		return nil
	}
	e.graphPath = true
	return e.h.Enable()
}

// call runs one call of workload through the driver (canary registers,
// the trampolines, the Go kernel) and returns its result. args, when
// given, replace the random arguments. A wrong result is a finding.
func (e *env) call(workload string, args ...uint64) (uint64, error) {
	c, err := e.callRaw(workload, args...)
	if err != nil {
		return 0, err
	}
	e.r.expect(slices.Equal(c.Results, c.Want), "%s(%#x) returned %#x, want %#x", workload, c.Args, c.Results, c.Want)
	return c.Results[0], nil
}

// callRaw is call without the result check: the call with its results and
// the expected ones.
func (e *env) callRaw(workload string, args ...uint64) (*harness.Call, error) {
	c, err := e.h.NewCall(workload, e.rng)
	if err != nil {
		return nil, setupError{err}
	}
	if len(args) > 0 {
		sem, err := harness.WorkloadSemantics(e.a, workload)
		if err != nil {
			return nil, setupError{err}
		}
		c.Args, c.Want = args, sem.Want(args)
	}
	if err := e.prepare(); err != nil {
		return nil, err
	}
	marks := e.k.Graph.Marks()
	if err := e.h.RunChecked([]*harness.Call{c}); err != nil {
		return nil, fmt.Errorf("%s(%#x): %w", workload, c.Args, err)
	}
	if !c.Done || len(c.Results) == 0 {
		return nil, fmt.Errorf("%s(%#x) did not return to the driver", workload, c.Args)
	}
	// Shadow-stack balance (as check's): every task's shadow stack is back
	// where the call found it.
	for _, u := range e.k.Graph.Balance(marks, e.k.Graph.Currs(nil)) {
		e.r.expect(false, "%s(%#x): shadow stack not balanced: %s", workload, c.Args, u)
	}
	return c, nil
}

// site returns the ftrace location of a traced function.
func (e *env) site(fn string) uint64 { return e.syms[fn] }

// nameOf returns the function whose call site is ip.
func (e *env) nameOf(ip uint64) string {
	for n, a := range e.syms {
		if a == ip {
			return n
		}
	}
	return fmt.Sprintf("%#x", ip)
}

// putU32 / getU32 access a u32 in guest memory in guest byte order.
func (e *env) putU32(addr uint64, v uint32) {
	var b [4]byte
	e.a.ByteOrder.PutUint32(b[:], v)
	e.mem.Write(addr, b[:])
}

func (e *env) getU32(addr uint64) uint32 {
	var b [4]byte
	e.mem.Read(addr, b[:])
	return e.a.ByteOrder.Uint32(b[:])
}

// kernelCall models a call of traced function fn (a workload with one
// argument) made by kernel C code, such as a handler, instead of by guest
// code: the Go model cannot re-enter the emulator from inside a host call.
// It takes the path a traced call takes through the kernel: the call
// site's trampoline hands ftrace_ops_list_func(ip, parent_ip, op, fregs) a
// struct ftrace_regs, ftrace_graph_func runs function_graph_enter_regs for
// the current task and, when it traces the call, points the return address
// at return_to_handler; the body's result is then put where the return
// value lives and ftrace_return_to_handler(fregs) pops the frame and runs
// the return callbacks. fregs and the return-address slot are per nesting
// level in guest heap memory.
func (e *env) kernelCall(fn string, arg uint64) (result uint64, traced bool, err error) {
	site, ok := e.syms[fn]
	if !ok {
		return 0, false, setupError{fmt.Errorf("no traced function %s", fn)}
	}
	sem, err := harness.WorkloadSemantics(e.a, fn)
	if err != nil {
		return 0, false, setupError{err}
	}
	level := e.kdepth
	e.kdepth++
	defer func() { e.kdepth-- }()
	layout := e.h.Setup.Entry.FrameLayout(e.a)
	for len(e.scratch) <= level {
		a, err := e.k.Heap.Alloc(uint64(max(e.a.Frame.Size, layout.Size))+64, 16)
		if err != nil {
			return 0, false, setupError{err}
		}
		e.scratch = append(e.scratch, a)
	}
	fregs := e.scratch[level]
	stack := fregs + uint64(max(e.a.Frame.Size, layout.Size)) + 16
	f := &regs.Frame{Arch: e.a, Layout: layout, Base: fregs, Mem: e.mem}
	acc := layout.Accessors
	ret := e.ret
	f.Set(acc.IP, site)
	f.Set(acc.Args[0], arg)
	f.Set(acc.SP, stack)
	if acc.RetAddr != "" {
		f.Set(acc.RetAddr, ret)
	} else {
		e.mem.WriteWord(stack, ret)
	}
	e.k.OpsListFunc(site, ret, e.k.FunctionTraceOp, fregs)
	var now uint64
	if acc.RetAddr != "" {
		now, _ = f.Raw(acc.RetAddr)
	} else {
		now = e.mem.ReadWord(stack)
	}
	result = sem.Want([]uint64{arg})[0]
	if tr := e.k.Rethook.Trampoline; tr != 0 && now == tr {
		// The return into arch_rethook_trampoline: its pt_regs is this
		// frame with the result, the frame the one rethook_hook recorded.
		f.Set(acc.RetVal, result)
		frame, _ := ftrace.MustOps(e.a).RethookFrame(f)
		back, err := e.k.Rethook.TrampolineHandler(f, frame)
		if err == nil && back != ret {
			err = fmt.Errorf("kernel call of %s: rethook_trampoline_handler returned %#x, want %#x", fn, back, ret)
		}
		return result, true, err
	}
	if now != e.h.RTH() {
		return result, false, nil
	}
	f.Set(acc.RetVal, result)
	back, _, err := e.k.ReturnToHandler(ftrace.ExitFregs, fregs)
	if err != nil {
		return result, true, err
	}
	if back != ret {
		return result, true, fmt.Errorf("kernel call of %s: ftrace_return_to_handler returned %#x, want %#x", fn, back, ret)
	}
	return result, true, nil
}

// sumMissed sums nmissed over probes.
func sumMissed(fps ...*ftrace.Fprobe) uint64 {
	var n uint64
	for _, fp := range fps {
		n += fp.NMissed()
	}
	return n
}
