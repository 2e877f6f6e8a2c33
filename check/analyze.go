package check

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"trampemu/asm"
	"trampemu/ftrace"
	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
)

// Subject is what the analysis of a trampoline's observations knows
// besides them: the arch (and so its convention), the trampoline under
// test, the pairing it ran in, and how to name addresses and instructions.
type Subject struct {
	Arch  *regs.Arch
	Tramp harness.Tramp
	Setup harness.Setup
	// Unit is the code the cost and the interrupt metrics count
	// (harness.MeasureUnit).
	Unit asm.Unit
	// Describe names a guest address (symbol+offset); nil: hex.
	Describe func(addr uint64) string
	// Insn disassembles the instruction at pc; nil: "?".
	Insn func(pc uint64) string
	// CallLimit says how the runs' per-call instruction limit was chosen
	// ("" when there was none), for the finding of a call that reached it.
	CallLimit string
	// Objtool are the kernel objtool's warnings about the trampoline's
	// own source (x86-64; asm.Image.ObjtoolWarnings of its unit).
	Objtool []asm.ObjtoolWarning
}

// analyzer checks the invocations of one trampoline (the one under test):
// a function of the observations (harness.Batch) and the arch's
// convention; it runs nothing and reads no machine.
type analyzer struct {
	s Subject
	a *regs.Arch
	t harness.Tramp
	// role is the slot the trampoline fills: Entry, or Exit for both
	// return_to_handler and arch_rethook_trampoline (trampolines.Rethook).
	role trampolines.Role
	conv convention
	col  collector
	// prepares counts prepare_ftrace_return calls over the batches;
	// graphActive says a graph user was registered in some invocation.
	prepares    uint64
	graphActive bool

	written   map[string]bool // slots the trampoline's code filled, over all invocations
	stackUsed uint64          // deepest store below the entry sp
	volKept   map[string]int  // s390x exit r3-r5: kept / changed counts
	// lines sums the distinct data cache lines of probed invocations.
	lines, linesRuns int
	// cutShort is an invocation of the trampoline under test that never
	// left it (the run stopped inside, or control went nowhere).
	cutShort *harness.Invocation
	// runs counts the invocations of the trampoline under test: the
	// divisor of its cost per traced call.
	runs uint64
	// The interrupt model (interrupts.go): boundaries interrupted, those
	// where the caller was unrecoverable, the interrupted runs' findings.
	boundaries, unrecoverable map[uint64]bool
	irqRuns                   []irqRun
	// orcLost: boundaries where the ORC walk lost the caller or was
	// unreliable (the first such walk's description); orcRan: a walk ran.
	orcLost map[uint64]string
	orcRan  bool
}

func newAnalyzer(s Subject) (*analyzer, error) {
	conv, err := conventionOf(s.Arch)
	if err != nil {
		return nil, err
	}
	return &analyzer{s: s, a: s.Arch, t: s.Tramp, role: slotRole(s.Tramp.Role), conv: conv, written: map[string]bool{}, volKept: map[string]int{},
		boundaries: map[uint64]bool{}, unrecoverable: map[uint64]bool{}, orcLost: map[uint64]string{}}, nil
}

// Analyze checks the observations of one trampoline's checked runs (the
// batches of one harness, in order) against its arch's convention and
// returns the findings and the metrics the observations give (the cost
// from block counters is the runner's: Run). It runs no emulator: a test
// can hand it observations built by hand.
func Analyze(s Subject, batches []*harness.Batch) (Result, error) {
	z, err := newAnalyzer(s)
	if err != nil {
		return Result{}, err
	}
	for _, b := range batches {
		z.batch(b)
		if b.Stop != nil {
			z.runStop(b.Stop)
		}
	}
	z.finish()
	res := Result{Arch: s.Arch.Name, Variant: s.Tramp.Name, Role: string(s.Tramp.Role)}
	z.fill(&res, Metrics{})
	return res, nil
}

// batch checks every call of a batch and takes its counters.
func (z *analyzer) batch(b *harness.Batch) {
	for _, c := range b.Calls {
		z.call(c)
	}
	z.prepares += b.Prepares
}

// fill sets the result's findings and its metrics: cost (from the
// counters, per run) and what the observations measured.
func (z *analyzer) fill(res *Result, cost Metrics) {
	res.Findings = z.col.findings()
	res.OK = res.Errors() == 0
	res.Metrics = cost.per(z.runs)
	z.unwindMetrics(&res.Metrics, z.s.Unit)
	res.Metrics.StackBytes = int(z.stackUsed)
	if z.linesRuns > 0 {
		res.Metrics.CacheLines = float64(z.lines) / float64(z.linesRuns)
	}
	for s := range z.written {
		res.Metrics.Written = append(res.Metrics.Written, s)
	}
	order := map[string]int{}
	layout := z.t.FrameLayout(z.a)
	if z.t.ExitABI == trampolines.ExitRetRegs {
		layout = z.a.RetRegs
	}
	for i, s := range layout.Slots {
		order[s.Name] = i
	}
	// In layout order; a slot of another layout (a rethook trampoline's
	// pt_regs) after those, by name, so the order never depends on the
	// map's.
	rank := func(s string) int {
		if i, ok := order[s]; ok {
			return i
		}
		return len(order)
	}
	sort.Slice(res.Metrics.Written, func(i, j int) bool {
		a, b := res.Metrics.Written[i], res.Metrics.Written[j]
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra < rb
		}
		return a < b
	})
}

func (z *analyzer) reg(i int) string { return z.a.Regs[i].Name }

func (z *analyzer) where(addr uint64) string {
	if z.s.Describe == nil {
		return fmt.Sprintf("%#x", addr)
	}
	return z.s.Describe(addr)
}

// unknownRan: an instruction the tool cannot describe matters where it
// ran (a whole kernel file carries code no traced call reaches: rethook,
// direct trampolines); ran lists those that did.
func (z *analyzer) unknownRan(ran []asm.Inst) {
	for _, in := range ran {
		z.col.add(Fault, "", "", "instruction with memory accesses the tool cannot describe (not probed, not counted)",
			z.where(in.Addr)+": "+in.Text)
	}
}

func (z *analyzer) roleName() string {
	if z.role == trampolines.Entry {
		return "the entry trampoline"
	}
	if z.t.Role == trampolines.Rethook {
		return "arch_rethook_trampoline"
	}
	return "return_to_handler"
}

// call checks one workload call: its result and every invocation of the
// trampoline under test.
func (z *analyzer) call(c *harness.Call) {
	errs := z.col.errs
	irq, irqErrs := -1, 0
	for _, inv := range c.Invocations {
		z.graphActive = z.graphActive || inv.GraphActive
		if inv.Role == z.role {
			if inv.Interrupted {
				irq = z.interruptedInvocation(inv)
				irqErrs += z.irqRuns[irq].col.errs
			} else {
				z.invocation(inv)
			}
			if !inv.Left {
				z.cutShort = inv
			}
		}
	}
	z.shadowBalance(c)
	for _, inv := range c.Invocations {
		if inv.Role == z.t.Role && !inv.Interrupted {
			z.stackWalks(inv)
		}
	}
	// A wrong result is a safety net for corruption nothing else explained:
	// after another error in the same call it is only a consequence.
	if !c.Done || z.col.errs != errs || irqErrs > 0 {
		return
	}
	if irq >= 0 {
		// The call had an interrupted run: what it returns is that run's.
		main := z.col
		z.col = z.irqRuns[irq].col
		defer func() { z.irqRuns[irq].col, z.col = z.col, main }()
	}
	want := c.Want
	if mod := lastIPMod(c); mod != nil {
		if w := z.redirectedWant(c, mod); w != nil {
			want = w
		}
		if !slices.Equal(c.Results, want) && slices.Equal(c.Results, c.Want) {
			z.col.add(Control, "", "", fmt.Sprintf("%s's original body ran although %s redirected it", c.Workload, mod.User),
				fmt.Sprintf("returned %#x, the function's own result; redirected to %s, which returns %#x", c.Results[0], z.where(mod.To), want[0]))
			return
		}
	}
	for i, want := range want {
		if i < len(c.Results) && c.Results[i] != want {
			reg := ""
			if !c.InMemory && i < len(z.a.Ret) {
				reg = z.reg(z.a.Ret[i])
			}
			z.col.add(Clobber, "", reg, fmt.Sprintf("%s returned a wrong result (word %d)", c.Workload, i),
				fmt.Sprintf("%#x, want %#x", c.Results[i], want))
		}
	}
}

// lastIPMod returns the last redirect an ip-modifying user made at the
// entry of the call's traced function, or nil.
func lastIPMod(c *harness.Call) *harness.IPMod {
	var mod *harness.IPMod
	for _, inv := range c.Invocations {
		if inv.Role == trampolines.Entry && len(inv.IPMods) > 0 {
			mod = &inv.IPMods[len(inv.IPMods)-1]
		}
	}
	return mod
}

// redirectedWant is what a call must return once a user redirected its
// traced function: the injected value of an error injection, or the
// live-patch replacement's result (nil when the workload has none).
func (z *analyzer) redirectedWant(c *harness.Call, mod *harness.IPMod) []uint64 {
	if mod.SetRet {
		return []uint64{mod.Ret}
	}
	return c.ReplacementWant
}

// runStop turns a run that did not finish into a finding.
func (z *analyzer) runStop(e *harness.Stop) {
	if z.cutShort != nil && z.cutShort.Interrupted && len(z.irqRuns) > 0 {
		// The run stopped in an interrupted trampoline run: the finding
		// is that run's (it may be the interrupt's doing).
		main := z.col
		z.col = z.irqRuns[len(z.irqRuns)-1].col
		defer func() { z.irqRuns[len(z.irqRuns)-1].col, z.col = z.col, main }()
	}
	if !e.Emulated {
		z.col.add(Fault, "", "", "the run failed", e.Err.Error())
		return
	}
	if e.Transfer != nil {
		z.wrongTransfer(e)
		return
	}
	kind := Fault
	switch {
	case e.Runaway:
		kind = Control
	case e.Fault:
		if z.cutShort != nil && e.HasAddr && e.Addr == e.PC {
			// The trampoline under test jumped to an address with no code:
			// where it went is the problem, not the fetch.
			z.col.add(Control, "", "", fmt.Sprintf("%s did not return where it should", z.roleName()),
				fmt.Sprintf("went to %#x (no code there), want %s", e.PC, z.where(z.cutShort.WantPC)))
			return
		}
	}
	summary := fmt.Sprintf("%s at %s: %s", e.Kind, e.Where, e.Insn)
	detail := e.Detail
	if e.HasAddr {
		detail += fmt.Sprintf(" (address %#x)", e.Addr)
	}
	if e.HostErr != nil {
		detail = e.HostErr.Error()
	}
	if e.Runaway && z.s.CallLimit != "" && strings.Contains(e.Detail, "per call") {
		detail += " (" + z.s.CallLimit + ")"
	}
	if kind == Fault || e.Runaway {
		// Everything needed to debug it on one line: arch, pc, registers
		// (a fault, or a runaway loop where the limit stopped it).
		detail += machineState(e)
	}
	z.col.add(kind, "", "", summary, detail)
}

// machineState is a stop's machine on one line: arch, pc, its
// disassembly, the registers.
func machineState(e *harness.Stop) string {
	return fmt.Sprintf("; %s pc %#x: %s; registers: %s", e.Arch, e.PC, e.Insn, oneLineRegs(e))
}

// wrongTransfer is the control finding of a run stopped at a control
// transfer known to be wrong (fail fast): where control went, where it
// had to, the machine at that moment, and whether the kernel would loop.
func (z *analyzer) wrongTransfer(e *harness.Stop) {
	t := e.Transfer
	who := "the entry trampoline"
	if t.Role == trampolines.Exit {
		who = "return_to_handler"
	}
	var summary, detail string
	switch {
	case t.Reentry:
		summary = "the entry trampoline was entered again from the same call site with no return in between"
		detail = fmt.Sprintf("%s called it straight again", z.where(t.From))
	case t.PastDriver:
		summary = fmt.Sprintf("%s returned past the driver's frame", who)
		detail = fmt.Sprintf("to %s with sp %#x, above the driver's sp %#x", z.where(t.From), t.SP, t.DriverSP)
	default:
		summary = fmt.Sprintf("%s did not return where it should", who)
		detail = fmt.Sprintf("went to %s, want %s", z.where(t.From), z.where(t.Want))
	}
	detail += "; the call stopped there" + machineState(e)
	if t.Loops {
		detail += fmt.Sprintf("; the kernel would loop here forever (%s calls the entry trampoline again from the same call site)", z.where(t.From))
	}
	z.col.add(Control, "", "", summary, detail)
}

// oneLineRegs is the fault's register file on one line.
func oneLineRegs(e *harness.Stop) string {
	a, err := regs.ArchByName(e.Arch)
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(a.FormatRegs(&e.Regs)), " ")
}

func (z *analyzer) invocation(inv *harness.Invocation) {
	a, conv, role := z.a, z.conv, z.role
	sp := inv.Before[a.SP]
	z.runs++
	if inv.Left {
		z.control(inv)
		z.calledKernel(inv)
		if want := conv.wantSP(role, inv, a.SP); inv.After[a.SP] != want {
			z.col.add(Stack, "", z.reg(a.SP), fmt.Sprintf("sp not restored by %s", z.roleName()),
				fmt.Sprintf("leaves with sp = entry sp %+d, want %+d", int64(inv.After[a.SP]-sp), int64(want-sp)))
		}
		z.clobbers(inv)
		if z.conv.frameWords != nil && role == trampolines.Entry {
			for _, p := range z.conv.frameWords(inv, inv.AboveAfter) {
				z.col.add(Backchain, "", "", "the frame built for the traced function is wrong", p)
			}
		}
	}
	for i := range inv.Calls {
		z.hostCall(inv, &inv.Calls[i])
	}
	z.frame(inv)
	if inv.Probed && inv.Left {
		z.cacheLines(inv)
	}
	for _, rd := range inv.Reads {
		if !rd.Stale {
			continue
		}
		if rd.Slot == "" {
			z.col.add(StaleRead, "", "", fmt.Sprintf("%s read a stack word nobody wrote (%s)", rd.Caller, rd.Accessor),
				fmt.Sprintf("at entry sp %+d", int64(rd.Addr-sp)))
			continue
		}
		z.col.add(StaleRead, rd.Slot, "", fmt.Sprintf("%s read %s through %s, but %s never wrote it", rd.Caller, rd.Slot, rd.Accessor, z.roleName()), "")
	}
	z.stackWrites(inv)
}

// calledKernel: the entry trampoline must call the ftrace_ops callback once
// per run (the tracers never run otherwise) and return_to_handler must call
// ftrace_return_to_handler (more than once in one run when frames of a tail
// call share the hooked return address: it then returns to itself).
func (z *analyzer) calledKernel(inv *harness.Invocation) {
	want, detail := harness.HostOpsListFunc, "the kernel calls the tracers once per traced call"
	if z.role == trampolines.Exit {
		want, detail = harness.HostReturnToHandler, "only ftrace_return_to_handler knows the original return address"
	}
	if z.t.Role == trampolines.Rethook {
		want, detail = harness.HostRethookCallback, "only rethook_trampoline_handler knows the original return address"
	}
	n := 0
	for i := range inv.Calls {
		if inv.Calls[i].Name == want {
			n++
		}
	}
	if n == 0 && z.role == trampolines.Entry && inv.DirectOps && inv.LeavePC == inv.WantPC {
		// the site's ops is a direct call's: a CALL_OPS entry jumps to
		// its direct_call before calling anything (harness
		// installDirectOps)
		n = 1
	}
	if n == 0 || (n > 1 && z.role == trampolines.Entry) {
		z.col.add(Control, "", "", fmt.Sprintf("%s called %s %d times", z.roleName(), want, n), detail)
	}
	z.calledGraphEntry(inv)
}

// calledGraphEntry: an entry trampoline that starts graph tracing itself
// (ftrace_graph_caller, x86-64 <= v5.15 and s390x <= v6.13) must call
// prepare_ftrace_return once per run while a graph user is registered:
// without it the traced function's return is never hooked and the graph
// users never see it (x86-64 v5.10 arch/x86/kernel/ftrace_64.S
// SYM_FUNC_START(ftrace_graph_caller); s390x v6.13
// arch/s390/kernel/mcount.S ftrace_graph_caller block).
func (z *analyzer) calledGraphEntry(inv *harness.Invocation) {
	if z.role != trampolines.Entry || z.t.Graph != trampolines.GraphViaCaller || !inv.GraphActive {
		return
	}
	n := 0
	for i := range inv.Calls {
		if inv.Calls[i].Name == harness.HostPrepareFtraceRet {
			n++
		}
	}
	if n != 1 {
		z.col.add(Control, "", "", fmt.Sprintf("%s called %s %d times", z.roleName(), harness.HostPrepareFtraceRet, n),
			"with a graph user registered, ftrace_graph_caller must hook the return once per traced call")
	}
}

func (z *analyzer) control(inv *harness.Invocation) {
	if inv.WrongTransfer {
		return // the run stopped here: runStop reports it with the machine state
	}
	if inv.WantPC != 0 && inv.LeavePC != inv.WantPC {
		z.col.add(Control, "", "", fmt.Sprintf("%s did not return where it should", z.roleName()),
			fmt.Sprintf("went to %s, want %s", z.where(inv.LeavePC), z.where(inv.WantPC)))
	}
}

func (z *analyzer) clobbers(inv *harness.Invocation) {
	a := z.a
	edited := z.callbackEdits(inv)
	keep := z.conv.keep[z.role]
	if inv.Pg && z.role == trampolines.Entry && z.conv.pgKeep != nil {
		keep = z.conv.pgKeep
	}
	if z.role == trampolines.Entry {
		keep = z.entryKeep(keep)
	}
	for _, i := range keep {
		want := inv.Before[i]
		if v, ok := edited[i]; ok {
			want = v // a callback changed it through ftrace_regs / pt_regs
			if inv.After[i] != want {
				z.col.add(Clobber, "", z.reg(i), fmt.Sprintf("%%%s does not hold what a callback set in its slot", z.reg(i)),
					fmt.Sprintf("%#x, the callback set %#x", inv.After[i], want))
			}
			continue
		}
		if inv.After[i] != want {
			z.col.add(Clobber, "", z.reg(i), fmt.Sprintf("%%%s changed across %s", z.reg(i), z.roleName()),
				fmt.Sprintf("%#x -> %#x%s", inv.Before[i], inv.After[i], clobberNote(inv, i, inv.After[i])))
		}
	}
	if a.Link >= 0 && !(z.role == trampolines.Exit && z.conv.exitLinkFree) {
		want := z.conv.parentIP(inv)
		if inv.HasLink {
			want = inv.WantLink
		}
		if z.role == trampolines.Exit && inv.WantPC != 0 {
			want = inv.WantPC
		}
		if z.role == trampolines.Entry && inv.Direct && z.conv.directLink != nil {
			want = z.conv.directLink(inv)
		}
		if inv.After[a.Link] != want {
			z.col.add(Clobber, "", z.reg(a.Link), fmt.Sprintf("%%%s is not the return address the traced code needs", z.reg(a.Link)),
				fmt.Sprintf("%s, want %s", z.where(inv.After[a.Link]), z.where(want)))
		}
	}
	// The old graph path (ftrace_graph_call -> ftrace_graph_caller,
	// arch/x86/kernel/ftrace_64.S <= v5.15) runs after the full-regs
	// restore: its own save/restore and prepare_ftrace_return (C) may leave
	// anything in the registers that carry nothing at a function's entry
	// (x86-64 r10, flags), so the kernel's own code loses a callback's edit
	// of them there; only an entry without that path is held to the
	// full-regs rule.
	oldGraphPath := z.s.Setup.Entry.Graph == trampolines.GraphViaCaller && inv.GraphActive
	if fullRegs(inv) && !oldGraphPath {
		for _, i := range z.conv.keepFullRegs[z.role] {
			if !savedInFrame(inv, i) {
				continue // not handed over: a stale slot is its own finding
			}
			if inv.After[i] != inv.Before[i] {
				z.col.add(Clobber, "", z.reg(i), fmt.Sprintf("%%%s changed across %s, which handed full pt_regs to the callbacks", z.reg(i), z.roleName()),
					fmt.Sprintf("%#x -> %#x%s: a kprobe handler may set it in pt_regs, so the trampoline must reload it", inv.Before[i], inv.After[i], clobberNote(inv, i, inv.After[i])))
			}
		}
	}
	for _, i := range z.conv.volatileInfo[z.role] {
		if inv.After[i] == inv.Before[i] {
			z.volKept["kept"]++
		} else {
			z.volKept["changed"]++
		}
	}
}

// entryKeep is keep with the registers the convention adds for the
// options the entry trampoline is built with (convention.entryKeepIf), in
// register order.
func (z *analyzer) entryKeep(keep []int) []int {
	extra := []int{}
	for opt, rs := range z.conv.entryKeepIf {
		if _, ok := z.t.Source.Defines[opt]; ok {
			extra = append(extra, rs...)
		}
	}
	if len(extra) == 0 {
		return keep
	}
	return regSet(z.a, append(slices.Clone(keep), extra...))
}

// callbackEdits returns the registers the entry callbacks set through the
// frame (the last value written to each register's slot): the trampoline
// must hand them to the traced code (ftrace_regs_set_return_value,
// regs_set_return_value of an error injection, edited arguments).
func (z *analyzer) callbackEdits(inv *harness.Invocation) map[int]uint64 {
	if z.role != trampolines.Entry || len(inv.CWrites) == 0 {
		return nil
	}
	out := map[int]uint64{}
	for _, w := range inv.CWrites {
		if w.Caller == ftrace.CoreCaller {
			continue
		}
		if sl, ok := z.t.FrameLayout(z.a).Slot(w.Slot); ok && sl.Reg >= 0 && sl.Reg < len(z.a.Regs) {
			out[sl.Reg] = w.Value
		}
	}
	return out
}

// fullRegs reports whether a callback of the run got full pt_regs from
// arch_ftrace_get_regs().
func fullRegs(inv *harness.Invocation) bool {
	for _, f := range inv.FullRegs {
		if f {
			return true
		}
	}
	return false
}

// savedInFrame reports whether the run wrote register reg's slot of the
// frame it handed to a callback.
func savedInFrame(inv *harness.Invocation, reg int) bool {
	for j := range inv.Calls {
		hc := &inv.Calls[j]
		if hc.Layout == nil {
			continue
		}
		for _, st := range hc.Slots() {
			if hc.Layout.Slots[st.Index].Reg == reg && st.Written {
				return true
			}
		}
	}
	return false
}

func clobberNote(inv *harness.Invocation, i int, v uint64) string {
	if v == inv.Clobbered[i] {
		return ": the value a C function left there"
	}
	if v>>48 == inv.PoisonXor>>48 {
		return ": stack poison (loaded from a slot nobody wrote)"
	}
	return ""
}

func (z *analyzer) hostCall(inv *harness.Invocation, hc *harness.HostCall) {
	a := z.a
	sp := hc.Regs[a.SP]
	callSP := sp
	if a.Link < 0 {
		callSP += 8 // x86-64: sp before the call pushed the return address
	}
	align := z.conv.callAlign
	if align == 0 {
		align = 8
	}
	if callSP%align != 0 {
		z.col.add(Stack, "", z.reg(a.SP), fmt.Sprintf("sp not %d-byte aligned at the call to %s", align, hc.Name),
			fmt.Sprintf("sp = %#x", callSP))
	}
	if z.conv.callChain != nil {
		if summary, detail := z.conv.callChain(inv, hc); summary != "" {
			z.col.add(Backchain, "", "", summary, detail)
		}
	}
	if hc.Layout != nil && hc.Base < callSP+z.conv.calleeArea {
		// The C function's own frame (and any interrupt) would overwrite
		// the structure it was handed.
		z.col.add(Stack, "", z.reg(a.SP), fmt.Sprintf("the structure handed to %s lies below the caller's sp+%d", hc.Name, z.conv.calleeArea),
			fmt.Sprintf("at sp %+d", int64(hc.Base-callSP)))
	}
	// The C function's frame starts at sp: count it as the trampoline's
	// stack use (x86-64: the pushed return address is below sp already, so
	// a call made at the entry sp itself uses 8 bytes, as a probed run's
	// access log counts the push). A call above the entry sp wraps past
	// 1 MiB: no depth.
	if used := inv.Before[a.SP] - sp; used > z.stackUsed && used < 1<<20 {
		z.stackUsed = used
	}
	if hc.Name == harness.HostOpsListFunc && z.role == trampolines.Entry {
		z.callbackArgs(inv, hc)
	}
	if hc.Name == harness.HostPrepareFtraceRet && z.role == trampolines.Entry {
		z.graphFunc(inv, hc)
		z.graphEntryArgs(inv, hc)
	}
}

// graphFunc: the old graph entry path must hand prepare_ftrace_return the
// traced function's call site (the ip the callbacks get), or the graph
// tracer files the call under a function that was never called. s390x's
// ftrace_graph_caller takes the ip from psw.addr after the callbacks ran
// ("lg %r3" / "lg %r4,(STACK_PTREGS_PSW+8)(%r15)", arch/s390/kernel/mcount.S
// v4.19 and v5.10), so once an ip-modifying user moved psw.addr the
// kernel itself passes that target: accepted too.
func (z *analyzer) graphFunc(inv *harness.Invocation, hc *harness.HostCall) {
	if !hc.HasGraphFunc || inv.EntryRet == 0 {
		return
	}
	insn := z.back()
	ip := inv.EntryRet - insn
	for _, m := range inv.IPMods {
		if hc.GraphFunc == m.To-insn {
			return
		}
	}
	if hc.GraphFunc != ip {
		z.col.add(WrongValue, "", "", "prepare_ftrace_return was given the wrong traced function",
			fmt.Sprintf("%s, want %s (decoded as the %s era calls it)", z.where(hc.GraphFunc), z.where(ip), z.s.Setup.Entry.Name))
	}
}

// graphEntryArgs: the arguments an entry's own ftrace_graph_caller passes
// to prepare_ftrace_return, in the form its era calls it.
func (z *analyzer) graphEntryArgs(inv *harness.Invocation, hc *harness.HostCall) {
	a := z.a
	if z.conv.graphEntryArgs != nil {
		for _, w := range z.conv.graphEntryArgs(inv, z.s.Setup.Entry.PrepareABI(a)) {
			if got := hc.Regs[a.Args[w.Index]]; got != w.Want {
				z.col.add(WrongValue, "", z.reg(a.Args[w.Index]), fmt.Sprintf("prepare_ftrace_return argument %s is wrong", w.Name),
					fmt.Sprintf("%s, want %s", z.where(got), z.where(w.Want)))
			}
		}
	}
}

// chainReaches reports whether a frame chain walked at a host call reaches
// the traced function's caller (sp at trampoline entry) and, after it, the
// driver's frame; when not, what it misses.
func chainReaches(inv *harness.Invocation, chain []uint64, sp int) (ok bool, missing string) {
	caller, driver := inv.Before[sp], inv.DriverSP
	seenCaller := false
	for _, f := range chain {
		if f == caller {
			seenCaller = true
		}
		if f == driver && seenCaller {
			return true, ""
		}
	}
	if seenCaller {
		return false, "the driver's frame"
	}
	return false, "the traced function's caller"
}

// chainText shows a frame chain, addresses near the caller's sp relative
// to it (R+n).
func chainText(chain []uint64, caller uint64) string {
	s := ""
	for i, f := range chain {
		if i > 0 {
			s += " -> "
		}
		if f >= caller-4096 && f <= caller+4096 && f != 0 {
			s += fmt.Sprintf("R%+d", int64(f-caller))
		} else {
			s += fmt.Sprintf("%#x", f)
		}
	}
	return s
}

// back is how far the ip the entry hands the callbacks is before where it
// returns to, for the call-site form the entry is reached from
// (ftrace.SiteForm.Back: MCOUNT_INSN_SIZE for the usual forms).
func (z *analyzer) back() uint64 {
	return ftrace.MustOps(z.a).Form(string(z.s.Setup.Entry.Site())).Back()
}

// callbackArgs: ftrace_ops_list_func(ip, parent_ip, op, fregs); a -pg
// entry's callbacks get (ip, parent_ip) only (no ARCH_SUPPORTS_FTRACE_OPS).
func (z *analyzer) callbackArgs(inv *harness.Invocation, hc *harness.HostCall) {
	a := z.a
	ip := inv.EntryRet - z.back()
	parent := z.conv.parentIP(inv)
	args := []struct {
		name string
		want uint64
	}{{"ip", ip}, {"parent_ip", parent}, {"op", inv.Ops}}
	if inv.Pg {
		args = args[:2]
	}
	for i, w := range args {
		got := hc.Regs[a.Args[i]]
		if got != w.want {
			z.col.add(WrongValue, "", z.reg(a.Args[i]), fmt.Sprintf("callback argument %s is wrong", w.name),
				fmt.Sprintf("%s, want %s", z.where(got), z.where(w.want)))
		}
	}
}

// frame checks the structure handed to C at the first host call that got
// one: slot meanings, what was written, and what nobody read.
func (z *analyzer) frame(inv *harness.Invocation) {
	var hc *harness.HostCall
	for i := range inv.Calls {
		if inv.Calls[i].Layout != nil {
			hc = &inv.Calls[i]
			break
		}
	}
	if hc == nil {
		return
	}
	read := func(name string) bool {
		for _, rd := range inv.Reads {
			if rd.Slot == name {
				return true
			}
		}
		return false
	}
	for _, st := range hc.Slots() {
		if !st.Written {
			continue
		}
		sl := hc.Layout.Slots[st.Index]
		z.written[sl.Name] = true
		var ignore uint64
		if z.conv.ignoreBits != nil {
			ignore = z.conv.ignoreBits(sl)
		}
		if want, ok := z.conv.meaning(z.role, z.t, inv, sl); ok && st.Value&^ignore != want&^ignore {
			z.col.add(WrongValue, sl.Name, "", fmt.Sprintf("%s does not hold what it means", sl.Name),
				fmt.Sprintf("%s, want %s", z.valueText(inv, st.Value), z.valueText(inv, want)))
		}
		addr := hc.Base + uint64(sl.Off)
		if !inv.Probed || read(sl.Name) || loadedBy(inv.Accesses, addr, sl.Size) || chainLoaded(inv, addr, sl.Size) {
			continue // unprobed: the trampoline's own loads are unknown
		}
		z.col.add(UnusedStore, sl.Name, "", fmt.Sprintf("%s is written and never read", sl.Name), "")
	}
}

// valueText shows a value relative to the entry sp when it is near it.
func (z *analyzer) valueText(inv *harness.Invocation, v uint64) string {
	sp := inv.Before[z.a.SP]
	if d := int64(v - sp); d > -4096 && d < 4096 {
		return fmt.Sprintf("entry sp %+d", d)
	}
	return z.where(v)
}

// chainLoaded reports whether the unwinder's walk of the frame chain at
// any host call of inv read the bytes (a frame record or back chain stored
// in a slot is read by whoever unwinds through it).
func chainLoaded(inv *harness.Invocation, addr uint64, size int) bool {
	for i := range inv.Calls {
		if loadedBy(inv.Calls[i].ChainLoads, addr, size) {
			return true
		}
	}
	return false
}

func loadedBy(acc []harness.Access, addr uint64, size int) bool {
	for _, x := range acc {
		if x.Load && x.Addr < addr+uint64(size) && addr < x.Addr+uint64(x.Size) {
			return true
		}
	}
	return false
}

// stackWrites: words above the entry sp that changed (or were stored to)
// outside what the trampoline may write, not counting the kernel's own
// writes (graph tracing rewrites the return-address slot); and the depth
// of its own frame.
func (z *analyzer) stackWrites(inv *harness.Invocation) {
	a := z.a
	sp := inv.Before[a.SP]
	bad := map[uint64]uint64{} // offset -> pc (0 when unknown)
	goWrote := func(addr uint64) bool {
		for _, w := range inv.GoWrites {
			if addr < w.Addr+uint64(w.Size) && w.Addr < addr+8 {
				return true
			}
		}
		return false
	}
	if inv.Left && len(inv.AboveAfter) == len(inv.AboveBefore) {
		for off := 0; off+8 <= len(inv.AboveBefore); off += 8 {
			if a.Word(inv.AboveBefore[off:]) != a.Word(inv.AboveAfter[off:]) &&
				!z.conv.allowedAbove(z.role, uint64(off)) && !goWrote(sp+uint64(off)) {
				bad[uint64(off)] = 0
			}
		}
	}
	for _, x := range inv.Accesses {
		if !x.Store {
			continue
		}
		if x.Addr < sp {
			if d := sp - x.Addr; d > z.stackUsed && d < 1<<20 {
				z.stackUsed = d
			}
			continue
		}
		off := x.Addr - sp
		if off < harness.AboveWindow && !z.conv.allowedAbove(z.role, off&^7) {
			bad[off&^7] = x.PC
		}
	}
	offs := make([]uint64, 0, len(bad))
	for off := range bad {
		offs = append(offs, off)
	}
	sort.Slice(offs, func(i, j int) bool { return offs[i] < offs[j] })
	for _, off := range offs {
		by := ""
		if pc := bad[off]; pc != 0 {
			by = " by " + z.where(pc)
		}
		z.col.add(Stack, "", "", fmt.Sprintf("%s wrote the caller's stack at entry sp+%d", z.roleName(), off), "stored"+by)
	}
}

// cacheLines counts the distinct 64-byte lines the invocation's probed
// accesses touched.
func (z *analyzer) cacheLines(inv *harness.Invocation) {
	seen := make(map[uint64]bool, 8)
	for _, x := range inv.Accesses {
		for l := x.Addr >> 6; l <= (x.Addr+uint64(max(x.Size, 1))-1)>>6; l++ {
			seen[l] = true
		}
	}
	z.lines += len(seen)
	z.linesRuns++
}

// finish adds the aggregated info findings.
func (z *analyzer) finish() {
	z.ran()
	z.objtool()
	z.attributeInterrupts()
	if len(z.conv.volatileInfo[z.role]) == 0 {
		return
	}
	names := ""
	for i, r := range z.conv.volatileInfo[z.role] {
		if i > 0 {
			names += ", "
		}
		names += "%" + z.reg(r)
	}
	switch {
	case z.volKept["changed"] == 0 && z.volKept["kept"] > 0:
		z.col.add(Volatile, "", "", names+" kept across "+z.roleName()+": volatile after a return, the ABI does not ask for it", "")
	case z.volKept["changed"] > 0:
		z.col.add(Volatile, "", "", names+" not kept across "+z.roleName()+" (allowed: volatile after a return)", "")
	}
}

// ran makes a check in which the code under test never ran an error, not a
// pass: the trampoline itself, or the old graph path (a patched
// ftrace_graph_call / ftrace_graph_caller branch into
// prepare_ftrace_return) while a graph user is registered.
func (z *analyzer) ran() {
	if z.runs == 0 {
		what := "no traced call reached it"
		if z.role == trampolines.Exit {
			what = "no traced call was hooked by the graph entry path of " + z.s.Setup.Entry.Name
		}
		z.col.add(Control, "", "", fmt.Sprintf("%s (%s) never ran", z.roleName(), z.t.Symbol), what)
		return
	}
	if z.role == trampolines.Entry && z.s.Setup.Entry.Graph == trampolines.GraphViaCaller && z.graphActive && z.prepares == 0 {
		z.col.add(Control, "", "", "the graph path did not run: prepare_ftrace_return was not called although a graph user is registered",
			"ftrace_graph_call -> ftrace_graph_caller -> prepare_ftrace_return")
	}
}

// slotRole is the pairing slot a trampoline of role r fills.
func slotRole(r trampolines.Role) trampolines.Role {
	if r.Returns() {
		return trampolines.Exit
	}
	return r
}
