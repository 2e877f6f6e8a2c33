package harness

import (
	"fmt"
	"math/rand/v2"

	"trampemu/emu"
	"trampemu/ftrace"
	"trampemu/regs"
	"trampemu/trampolines"
)

// Call is one call of a workload from the checked driver.
type Call struct {
	Workload string
	Func     uint64
	Args     []uint64
	// In is the register file the driver sets before the call: canaries in
	// every register, the arguments in the argument registers.
	In   regs.RegFile
	Done bool
	// Results are the observed results (return registers, or the words of
	// the return buffer when InMemory); Want what the workload must return.
	Results, Want []uint64
	InMemory      bool
	// ReplacementWant is what the call must return once a live patch
	// redirected it to the replacement (Semantics.ReplacementWant), nil
	// when the workload has none.
	ReplacementWant []uint64
	// Invocations are the trampoline runs during the call (checks on).
	Invocations []*Invocation
	// Shadow lists, for a finished call with checks on, every task whose
	// function-graph shadow stack the call did not leave where it found
	// it: at the end of its last invocation curr_ret_stack differs from
	// where it stood as its first began (a frame left behind, or one
	// popped twice). Empty when balanced.
	Shadow []ftrace.Unbalanced

	marks []ftrace.Mark // the tasks' shadow stacks as the first invocation began
	ends  []int         // their curr_ret_stack as the last invocation ended
}

// Canaries returns a register file of recognisable random values: the
// top byte names the register (0xc0 + index), the rest is random.
func Canaries(a *regs.Arch, r *rand.Rand) regs.RegFile {
	var f regs.RegFile
	for i := range a.Regs {
		f[i] = (uint64(0xc0+i) << 56) | (r.Uint64() >> 8)
	}
	return f
}

// NewCall prepares a call of workload with random canaries and arguments
// drawn from r.
func (h *Harness) NewCall(workload string, r *rand.Rand) (*Call, error) {
	w, err := FindWorkload(h.Arch, workload)
	if err != nil {
		return nil, err
	}
	sem, err := WorkloadSemantics(h.Arch, workload)
	if err != nil {
		return nil, err
	}
	fn, ok := h.Image.Symbol(w.Symbol)
	if !ok {
		return nil, fmt.Errorf("workload %s: no symbol %s in the image", workload, w.Symbol)
	}
	c := &Call{Workload: workload, Func: fn, Args: sem.Args(r), In: Canaries(h.Arch, r)}
	if sem.Memory {
		c.InMemory = true // Args[0]: the buffer of the call's driver record
	}
	c.Want = sem.Want(c.Args)
	if sem.ReplacementWant != nil {
		c.ReplacementWant = sem.ReplacementWant(c.Args)
	}
	return c, nil
}

// RunChecked runs the calls in one emulator run through the checked driver.
// A run that stops early (fault, limit) returns the error; the calls made
// so far keep their observations.
func (h *Harness) RunChecked(calls []*Call) error {
	return h.RunCalls(len(calls), func(i int) *Call { return calls[i] })
}

// RunCalls runs n calls in one emulator run through the checked driver,
// asking gen for the calls a batch (32) at a time, as the driver reaches
// them, so a long run does not keep every call alive. A run that stops
// early returns the error; the call it interrupted is handed to OnCall
// unfinished.
func (h *Harness) RunCalls(n int, gen func(i int) *Call) error {
	if n == 0 {
		return nil
	}
	h.gen, h.total, h.next = gen, n, 0
	h.batch = h.batch[:0]
	m := h.M
	// An empty batch: the driver's first step is the host call that fills one.
	m.WriteWord(h.cursorWord, h.callTable)
	m.WriteWord(h.endWord, h.callTable)
	m.SetReg(h.Arch.SP, h.driverSP)
	if h.hooks.driverFrame != nil {
		h.hooks.driverFrame(h)
	}
	h.lastLeft = nil
	err := m.Run(h.sym(symChecked), h.exitAddr, h.runOpts())
	h.sync()
	if e, ok := emu.AsError(err); ok && e.Kind == emu.KindControl && h.lastLeft != nil {
		h.lastLeft.WrongTransfer = true
	}
	h.inv = nil // stopped inside a trampoline: it stays cut short
	h.finishBatch(err != nil)
	return err
}

// Batch is the observations of one checked run of the driver (RunBatch):
// every call it made, in order, finished or (the last) cut short by the end
// of the run, each with its invocations, and the run's counters. It is
// plain data: package check analyses it without the harness.
type Batch struct {
	Calls []*Call
	// Stop is why the run ended before its calls did (nil: every call
	// finished).
	Stop *Stop
	// Prepares counts the run's calls of prepare_ftrace_return.
	Prepares uint64
}

// Stop is why a checked run ended early, as plain data.
type Stop struct {
	// Err is the error the run returned.
	Err error
	// Emulated says the emulator stopped the run (an emu.Error): the
	// fields below are set.
	Emulated bool
	// Kind is the emulator's kind of stop (emu.Kind: "memory fault",
	// "instruction limit", ...).
	Kind string
	// Runaway: an instruction limit, a timeout or a stop request ended the
	// run (control never came back), not a fault.
	Runaway bool
	// Fault: a memory fault (at Addr when HasAddr).
	Fault bool
	Arch  string
	PC    uint64
	// Where is PC's symbol+offset, Insn its disassembly, Detail the
	// engine's words.
	Where, Insn, Detail string
	Addr                uint64
	HasAddr             bool
	Regs                regs.RegFile
	// HostErr is the host function's error of a stop in one.
	HostErr error
	// Transfer is set when the run was stopped at a control transfer
	// known to be wrong (fail fast); PC and Regs are the machine at it.
	Transfer *Transfer
}

// Transfer is a wrong control transfer a checked run stopped at, as plain
// data (emu.Transfer, with the trampoline run that made it).
type Transfer struct {
	// Reentry: the entry trampoline was entered again straight from the
	// block its run had left to (its call site), no return in between.
	// Otherwise a run left to From instead of Want (WrongReturn), or with
	// its sp above the driver's (PastDriver: SP, DriverSP).
	WrongReturn, Reentry, PastDriver bool
	From, Want                       uint64
	SP, DriverSP                     uint64
	// Loops: control went straight back into the entry trampoline, from
	// the same call site, and would each time: the kernel would loop
	// there for ever.
	Loops bool
	// Role is the trampoline whose run made the transfer.
	Role trampolines.Role
}

// stopOf describes the error a run returned.
func stopOf(err error) *Stop {
	st := &Stop{Err: err}
	e, ok := emu.AsError(err)
	if !ok {
		return st
	}
	st.Emulated, st.Kind, st.Arch, st.PC = true, string(e.Kind), e.Arch, e.PC
	st.Where, st.Insn, st.Detail = e.Where, e.Insn, e.Detail
	st.Addr, st.HasAddr, st.Regs, st.HostErr = e.Addr, e.HasAddr, e.Regs, e.Err
	switch e.Kind {
	case emu.KindLimit, emu.KindTimeout, emu.KindStopped:
		st.Runaway = true
	case emu.KindFault:
		st.Fault = true
	}
	if t := e.Transfer; t != nil {
		st.Transfer = &Transfer{WrongReturn: t.Why == emu.WrongPC, Reentry: t.Why == emu.Reentry, PastDriver: t.Why == emu.SPAbove,
			From: t.From, Want: t.Want, SP: t.SP, DriverSP: t.SPMax, Loops: t.Loops}
	}
	return st
}

// RunBatch runs n calls in one emulator run through the checked driver, as
// RunCalls, and returns their observations instead of handing each call to
// OnCall: nothing outside the harness runs inside the emulator's callbacks.
// Recycle gives the batch's invocations back once they are analysed.
func (h *Harness) RunBatch(n int, gen func(i int) *Call) *Batch {
	prepares := h.Prepares
	h.collecting, h.collected = true, nil
	err := h.RunCalls(n, gen)
	b := &Batch{Calls: h.collected, Prepares: h.Prepares - prepares}
	h.collecting, h.collected = false, nil
	if err != nil {
		b.Stop = stopOf(err)
		if t := b.Stop.Transfer; t != nil && h.lastLeft != nil {
			t.Role = h.lastLeft.Role
		}
	}
	return b
}

// Recycle hands the invocations of a batch back for reuse by later runs;
// the batch's calls lose them.
func (h *Harness) Recycle(b *Batch) {
	for _, c := range b.Calls {
		for i, inv := range c.Invocations {
			h.recycle(inv)
			c.Invocations[i] = nil
		}
		c.Invocations = c.Invocations[:0]
	}
}

// done hands a finished (or cut short) call to RunBatch's batch or OnCall
// (and then recycles its invocations).
func (h *Harness) done(c *Call) {
	c.Shadow = nil
	if c.Done && c.marks != nil && c.ends != nil {
		c.Shadow = h.K.Graph.Balance(c.marks, c.ends)
	}
	c.marks, c.ends = nil, nil
	if h.collecting {
		h.collected = append(h.collected, c)
		return
	}
	if h.Opts.OnCall == nil {
		return
	}
	h.Opts.OnCall(c)
	for i, inv := range c.Invocations {
		h.recycle(inv)
		c.Invocations[i] = nil
	}
	c.Invocations = c.Invocations[:0]
}

// hostNext is the checked driver's one host call per batch: it hands the
// finished calls over, then writes the next batch (an empty one ends the
// run).
func (h *Harness) hostNext(m *emu.Machine) error {
	h.sync()
	h.inv = nil
	h.finishBatch(false)
	if h.probing == 0 && h.Opts.Checks && !h.probesStopped {
		// Budget spent: drop the probe hook while no trampoline runs.
		if err := m.StopProbing(); err != nil {
			return err
		}
		h.probesStopped = true
	}
	return h.fillBatch()
}

// RunFast calls workload n times through the fast driver (arguments from
// memory, no host calls besides the kernel's): for benchmarks.
func (h *Harness) RunFast(workload string, args []uint64, n uint64) error {
	w, err := FindWorkload(h.Arch, workload)
	if err != nil {
		return err
	}
	fn, _ := h.Image.Symbol(w.Symbol)
	m := h.M
	base := h.sym(symArgs)
	for i := 0; i < 6; i++ {
		v := uint64(0)
		if i < len(args) {
			v = args[i]
		}
		m.WriteWord(base+uint64(8*i), v)
	}
	m.WriteWord(h.targetWord, fn)
	m.WriteWord(h.sym(symCount), n)
	m.SetCallLimit(0) // the fast driver has no call tag: one run is n calls
	defer m.SetCallLimit(h.Opts.CallLimit)
	m.SetReg(h.Arch.SP, h.driverSP)
	if h.hooks.driverFrame != nil {
		h.hooks.driverFrame(h)
	}
	if err := m.TakeFault(); err != nil {
		return err
	}
	opt := h.runOpts()
	if opt.Limit == 0 {
		opt.Limit = 1 << 62
	}
	if err := h.armFast(); err != nil {
		return err
	}
	err = m.Run(h.sym(symFast), h.exitAddr, opt)
	h.foldFast()
	return err
}

// armFast lets ftrace_ops_list_func run in C (emu.Machine.SetFast) when a
// dispatch needs no Go: checks off and the function tracer the only ops
// registered, so that a dispatch's whole effect is Dispatches,
// Ftrace.Calls and FunctionHits counting one more and LastTraced taking
// (ip, parent_ip) (hostOpsListFunc, ftrace.Kernel.OpsListFunc, the
// function user of Install); a call whose op argument is not
// function_trace_op (a BadOpsArgs case) still runs in Go.
func (h *Harness) armFast() error {
	ops := h.K.Ftrace.Ops()
	if h.Opts.Checks || h.Opts.NoFast || h.functionOps == nil || len(ops) != 1 || ops[0] != h.functionOps {
		return h.M.SetFast(HostOpsListFunc, nil)
	}
	return h.M.SetFast(HostOpsListFunc, &emu.Fast{Args: 3, RequireArg: 2, Require: h.K.FunctionTraceOp})
}

// foldFast counts the dispatches that ran in C as hostOpsListFunc would
// have.
func (h *Harness) foldFast() {
	n, last := h.M.TakeFast(HostOpsListFunc)
	if n == 0 {
		return
	}
	h.Dispatches += n
	h.K.Ftrace.Calls += n
	h.FunctionHits += n
	h.LastTraced = [2]uint64{last[0], last[1]}
}

// FastResult returns the return register the fast driver saved last.
func (h *Harness) FastResult() uint64 { return h.M.ReadWord(h.sym(symResult)) }

// RandomCalls prepares n calls of workload with random canaries and
// arguments from a generator seeded with seed.
func RandomCalls(h *Harness, workload string, n int, seed uint64) ([]*Call, error) {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	calls := make([]*Call, n)
	for i := range calls {
		c, err := h.NewCall(workload, r)
		if err != nil {
			return nil, err
		}
		calls[i] = c
	}
	return calls, nil
}
