package harness

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"trampemu/ftrace"
	"trampemu/regs"
	"trampemu/trampolines"
)

// UserSet is the set of kernel users registered while the trampolines run:
// which callbacks exist and which ftrace_regs values they read. The CLI's
// --scenario flag of check and run names one; it is not a
// scenarios.Scenario (a whole fgraph/fprobe test program of package
// scenarios).
type UserSet struct {
	Name string
	Doc  string
	// Function registers a function tracer (records ip and parent).
	Function bool
	// Graph registers a function-graph user; GraphRetReads says what its
	// return callback reads ("retval", "fp", "sp", "ip", "arg0".."arg5").
	Graph         bool
	GraphRetReads []string
	// EntryReads: a function tracer that reads these through the accessors.
	EntryReads []string
	// Regs registers a kprobe-style user: it asks arch_ftrace_get_regs and,
	// when it gets pt_regs, reads every slot.
	Regs bool
	// Direct makes the kprobe-style user set a direct trampoline
	// (arch_ftrace_set_direct_caller).
	Direct bool
	// DirectOps registers a direct call the way register_ftrace_direct
	// does (installDirectOps): an ops with a direct_call, the only user of
	// every traced function, which the CALL_OPS literal of each site
	// points at, so that an entry with CALL_OPS and DIRECT_CALLS jumps to
	// the direct trampoline before it saves anything.
	DirectOps bool
	// LivePatch registers a live patch of klp_target: an IPMODIFY ops that
	// redirects it to klp_target_new through the instruction pointer in
	// ftrace_regs.
	LivePatch bool
	// Override registers an error-injection kprobe on fei_target: it makes
	// the function return FaultInjected without running its body.
	Override bool
	// BPF registers a BPF kprobe_multi program calling bpf_get_stackid on
	// every traced function (bpf.go): the pt_regs of ftrace_partial_regs,
	// user_mode and what perf's kernel stack walk reads of it.
	// PartialRegsPreFix models ftrace_partial_regs before the arch's last
	// fix of it (arm64: before fd2f74f8f3d3, which is in v6.18 and
	// 6.17-stable; no difference on x86-64 and s390x).
	BPF, PartialRegsPreFix bool
	// BPFRet registers a kretprobe_multi-style BPF program (an fprobe exit
	// handler on fgraph, kernel/trace/fprobe.c v6.14+): at each traced
	// function's return, ftrace_partial_regs of the exit's ftrace_regs,
	// then bpf_get_stackid's perf stack walk with the arch's unwinder
	// (bpf.go, Invocation.StackWalks). RetRegsV618 models the C side of
	// v6.18-v6.19 instead of today's: x86-64's arch_ftrace_partial_regs
	// clearing X86_EFLAGS_FIXED (20a0bc10272f, v6.18-rc6) before
	// aea251799998 set it (v7.0-rc, 6.19.y/6.18.y/6.12.y stable), so perf
	// walks current up to first_frame = regs->sp instead of from the
	// regs; the same C side on the other arches.
	BPFRet, RetRegsV618 bool
}

// UserSets are the built-in user sets; "default" is what check runs.
var UserSets = []UserSet{
	{Name: "default", Doc: "function tracer; graph user reading the return value and frame pointer; kprobe-style full-regs user; a live patch of klp_target; an error-injection kprobe on fei_target",
		Function: true, Graph: true, GraphRetReads: []string{"retval", "fp"}, Regs: true, LivePatch: true, Override: true},
	{Name: "ret-arg0", Doc: "default, and the return callback also reads argument 0",
		Function: true, Graph: true, GraphRetReads: []string{"retval", "fp", "arg0"}, Regs: true, LivePatch: true, Override: true},
	{Name: "ret-arg1", Doc: "default, and the return callback also reads argument 1",
		Function: true, Graph: true, GraphRetReads: []string{"retval", "fp", "arg1"}, Regs: true, LivePatch: true, Override: true},
	{Name: "ret-args", Doc: "a return callback that reads the return value, frame pointer, stack pointer and every argument",
		Graph: true, GraphRetReads: []string{"retval", "fp", "sp", "arg0", "arg1", "arg2", "arg3", "arg4", "arg5"}},
	{Name: "entry-args", Doc: "an entry callback reading ip, sp, frame pointer and every argument (fprobe-style)",
		EntryReads: []string{"ip", "sp", "fp", "arg0", "arg1", "arg2", "arg3", "arg4", "arg5"}},
	{Name: "function", Doc: "function tracer only", Function: true},
	{Name: "function-graph", Doc: "function tracer and a graph user reading the return value and frame pointer (what the speed measurements run)",
		Function: true, Graph: true, GraphRetReads: []string{"retval", "fp"}},
	{Name: "graph", Doc: "function-graph user only (reads return value and frame pointer)", Graph: true, GraphRetReads: []string{"retval", "fp"}},
	{Name: "regs", Doc: "kprobe-style full-regs user only", Regs: true},
	{Name: "direct", Doc: "kprobe-style user that sends the call through a direct trampoline", Regs: true, Direct: true},
	{Name: "direct-ops", Doc: "a direct call alone (register_ftrace_direct: ops->direct_call, each site's CALL_OPS literal pointing at its ops): a CALL_OPS entry jumps to the direct trampoline at once, another calls ops->func (call_direct_funcs: arch_ftrace_set_direct_caller)",
		DirectOps: true},
	{Name: "livepatch", Doc: "a live patch only: klp_target redirected to klp_target_new (klp_ftrace_handler)", LivePatch: true},
	{Name: "kprobe-override", Doc: "an error-injection kprobe on ftrace only: fei_target returns -ENOMEM unrun (fei_kprobe_handler, override_function_with_return)", Override: true},
	// The BPF users are user sets of their own, not part of "default":
	// they report what the kernel's C side hands a BPF program
	// (ftrace_partial_regs), not what a trampoline does, and on s390x they
	// find a true property of every kernel read (ftrace_caller never
	// stores psw.mask, which user_mode reads), which would make every
	// merged s390x ftrace_caller fail the default check.
	{Name: "bpf", Doc: "a BPF kprobe_multi program calling bpf_get_stackid: ftrace_partial_regs (after arm64's pstate fix fd2f74f8f3d3, v6.18/6.17-stable), user_mode, the ip, sp and frame pointer perf's stack walk reads",
		BPF: true},
	{Name: "bpf-ret", Doc: "a BPF kretprobe_multi program calling bpf_get_stackid at every traced return: ftrace_partial_regs of the exit's ftrace_regs, then perf's kernel stack walk with the arch's unwinder (x86-64 ORC, s390x back chain, arm64 frame records), which must give the true chain",
		BPFRet: true},
	{Name: "bpf-ret-v6.18", Doc: "bpf-ret with the C side of v6.18-v6.19: x86-64's arch_ftrace_partial_regs clears X86_EFLAGS_FIXED (20a0bc10272f), so perf walks the current stack up to first_frame = regs->sp (before aea251799998 switched kretprobe_multi to the hw_regs path)",
		BPFRet: true, RetRegsV618: true},
	{Name: "bpf-prefix", Doc: "bpf with ftrace_partial_regs as released in v6.14-v6.17 (arm64 leaves pstate unset: bpf_get_stackid's -EFAULT)",
		BPF: true, PartialRegsPreFix: true},
}

// FindUserSet looks a user set up by name; the error lists the valid
// names.
func FindUserSet(name string) (UserSet, error) {
	var names []string
	for _, s := range UserSets {
		if s.Name == name {
			return s, nil
		}
		names = append(names, s.Name)
	}
	sort.Strings(names)
	return UserSet{}, fmt.Errorf("unknown scenario %q: valid are %s", name, strings.Join(names, ", "))
}

// NotApplicable names, for a trampoline checked under the user set, the
// users that cannot exist in its era and so did not run: a note, not a
// finding (the direct user on an entry without direct calls, see
// Tramp.DirectCalls).
func (s UserSet) NotApplicable(t Tramp) []string {
	if t.Role != trampolines.Entry {
		return nil
	}
	var out []string
	if s.Direct && !t.DirectCalls() {
		out = append(out, fmt.Sprintf("%s: the %s user set's direct trampoline is not applicable (its era has no DYNAMIC_FTRACE_WITH_DIRECT_CALLS); its other users ran", t.Name, s.Name))
	}
	switch {
	case s.DirectOps && !t.DirectCalls():
		out = append(out, fmt.Sprintf("%s: the %s user set's direct call is not applicable (its era has no DYNAMIC_FTRACE_WITH_DIRECT_CALLS): no user ran", t.Name, s.Name))
	case s.DirectOps && !t.callOpsArch():
		out = append(out, fmt.Sprintf("%s: the %s user set's direct call is not applicable (its arch has no DYNAMIC_FTRACE_WITH_CALL_OPS literal): no user ran", t.Name, s.Name))
	}
	if s.LivePatch && t.NoLivePatch() {
		out = append(out, fmt.Sprintf("%s: the %s user set's live patch is not applicable (its era's kernel has no HAVE_LIVEPATCH); its other users ran", t.Name, s.Name))
	}
	return out
}

// callOpsArch reports whether the trampoline's arch keeps a CALL_OPS
// literal before each traced function (ftrace.ArchOps.CallOpsLiteral:
// arm64, riscv64).
func (t Tramp) callOpsArch() bool {
	name := ""
	switch {
	case t.Variant != nil:
		name = t.Variant.Arch
	case t.Model != nil && t.Model.Model != nil:
		name = t.Model.Model.Arch
	}
	a, err := regs.ArchByName(name)
	return err == nil && ftrace.MustOps(a).CallOpsLiteral != nil
}

// read performs one named accessor read on f.
func read(f *regs.Frame, what string) {
	switch what {
	case "retval":
		f.ReturnValue()
	case "fp":
		f.FramePointer()
	case "sp":
		f.StackPointer()
	case "ip":
		f.InstructionPointer()
	case "ra":
		f.ReturnAddress()
	default:
		var n int
		if _, err := fmt.Sscanf(what, "arg%d", &n); err == nil {
			f.Argument(n)
		}
	}
}

// regsUserSlots are the pt_regs fields a kprobe-style handler reads: every
// register with a meaning at function entry (not s390x r0/r1, which the
// call site's brasl %r0 and the trampoline use as scratch), the instruction
// pointer, and the fields ftrace itself defines (direct caller, full-regs
// marker).
func (h *Harness) regsUserSlots() []string {
	a := h.Arch
	layout := h.Setup.Entry.FrameLayout(a)
	acc := layout.Accessors
	var out []string
	for _, s := range layout.Slots {
		if (s.Reg >= 0 && !a.IsEntryScratch(s.Reg)) || s.Name == acc.Direct || s.Name == acc.FullRegs.Slot ||
			slices.Contains(h.hooks.regsUserExtra, s.Name) {
			out = append(out, s.Name)
		}
	}
	return out
}

// Install registers the user set's users on the harness's kernel. Call it
// before Enable.
func (h *Harness) Install(s UserSet) error {
	k := h.K
	if s.Direct && !h.Setup.Entry.DirectCalls() {
		// No direct calls in the entry's era: the kprobe-style user runs
		// without asking for one (NotApplicable says so).
		s.Direct = false
	}
	if s.DirectOps && (!h.Setup.Entry.DirectCalls() || ftrace.MustOps(h.Arch).CallOpsLiteral == nil) {
		s.DirectOps = false // NotApplicable says so
	}
	if s.DirectOps {
		if err := h.installDirectOps(); err != nil {
			return err
		}
	}
	if s.Function {
		h.functionOps = &ftrace.Ops{Name: "function", Func: func(ip, parent uint64, _ *ftrace.Ops, _ *regs.Frame) {
			h.FunctionHits++
			h.LastTraced = [2]uint64{ip, parent}
		}}
		if err := k.Ftrace.Register(h.functionOps); err != nil {
			return err
		}
	}
	if len(s.EntryReads) > 0 {
		if err := k.Ftrace.Register(&ftrace.Ops{Name: "entry-reader", Func: func(ip, parent uint64, _ *ftrace.Ops, f *regs.Frame) {
			for _, w := range s.EntryReads {
				read(f, w)
			}
		}}); err != nil {
			return err
		}
	}
	if s.Regs && h.Setup.Entry.NoFullRegs() {
		// The variant predates arch_ftrace_get_regs (and kprobes on ftrace).
		s.Regs = false
		if s.Direct && h.Setup.Entry.FrameLayout(h.Arch).Accessors.Direct != "" {
			// Its ftrace_regs still has the direct-call slot (arm64 v6.4+
			// FREGS_DIRECT_TRAMP): the direct ops' callback sets it on
			// fregs (kernel/trace/ftrace.c call_direct_funcs:
			// arch_ftrace_set_direct_caller(fregs, addr)).
			direct := h.sym(symDirect)
			if err := k.Ftrace.Register(&ftrace.Ops{Name: "direct", Func: func(ip, parent uint64, _ *ftrace.Ops, f *regs.Frame) {
				f.SetDirectCaller(direct)
			}}); err != nil {
				return err
			}
		}
	}
	if s.Regs {
		// the check compares the flags a full-regs user may have set
		// (pt_regs' flags slot) with those after the run
		h.M.SetLeaveFlags(true)
		direct := h.sym(symDirect)
		if err := k.Ftrace.Register(&ftrace.Ops{Name: "kprobe", Func: func(ip, parent uint64, _ *ftrace.Ops, f *regs.Frame) {
			r := f.GetRegs()
			if inv := h.inv; inv != nil {
				inv.FullRegs = append(inv.FullRegs, r != nil)
			}
			if r == nil {
				return
			}
			for _, name := range h.regsUserSlots() {
				r.Get(name)
			}
			if s.Direct {
				r.SetDirectCaller(direct)
			}
		}}); err != nil {
			return err
		}
	}
	if s.LivePatch || s.Override {
		if h.Setup.Entry.NoIPModify() {
			// The kernel would send these functions through
			// ftrace_regs_caller (see trampolines.Variant.NoIPModify).
			s.LivePatch, s.Override = false, false
		}
	}
	if s.LivePatch && h.Setup.Entry.NoLivePatch() {
		// The era's kernel has no live patching (HAVE_LIVEPATCH).
		s.LivePatch = false
	}
	if s.LivePatch {
		if err := h.installLivePatch(); err != nil {
			return err
		}
	}
	if s.Override && !h.Setup.Entry.NoFullRegs() && ftrace.MustOps(h.Arch).KprobesOnFtrace {
		// No kprobes on ftrace before arch_ftrace_get_regs, nor on an arch
		// without HAVE_KPROBES_ON_FTRACE (arm64): no error injection
		// through the entry trampoline (a file answers from its kernel
		// model).
		if err := h.installOverride(); err != nil {
			return err
		}
	}
	if s.BPF {
		if err := h.installBPF(!s.PartialRegsPreFix); err != nil {
			return err
		}
	}
	if s.BPFRet {
		if h.hooks.retWalk == nil {
			return fmt.Errorf("scenario %s: no return-probe stack walk is modelled on %s : use another scenario", s.Name, h.Arch.Name)
		}
		if err := h.installBPFRet(s.RetRegsV618); err != nil {
			return err
		}
	}
	if s.Graph && h.Setup.Exit.Role == trampolines.Rethook {
		// The return path is arch_rethook_trampoline: the graph user is
		// an fprobe on rethook with an exit handler on every function
		// (kernel/trace/fprobe.c v5.18-v6.13), reading the same values.
		return h.installRethookProbe(s.GraphRetReads)
	}
	if s.Graph {
		if err := k.Graph.Register(&ftrace.GraphOps{Name: "graph",
			EntryFunc: func(*ftrace.Graph, *ftrace.GraphEnt, *ftrace.GraphOps, *regs.Frame) bool { return true },
			RetFunc: func(_ *ftrace.Graph, _ *ftrace.GraphRet, _ *ftrace.GraphOps, f *regs.Frame) {
				if f == nil {
					return
				}
				for _, w := range s.GraphRetReads {
					read(f, w)
				}
			},
		}); err != nil {
			return err
		}
	}
	return nil
}

// installDirectOps registers a direct call as register_ftrace_direct does
// (kernel/trace/ftrace.c v6.4+, "ftrace: Store direct called addresses in
// their ops"): ops->func = call_direct_funcs, ops->direct_call = the
// direct trampoline. As the only ops of every traced function it is what
// ftrace_rec_update_ops stores in each site's CALL_OPS literal
// (arch/arm64/kernel/ftrace.c, arch/riscv/kernel/ftrace.c: the unique
// ops of the record), so an entry with CALL_OPS and DIRECT_CALLS loads
// its direct_call (FTRACE_OPS_DIRECT_CALL) and jumps there at once (arm64
// v6.4+, riscv64 v6.16, b21cdb9523e5); an entry that calls ops->func, or
// ftrace_ops_list_func, runs call_direct_funcs:
// arch_ftrace_set_direct_caller(fregs, ops->direct_call). Here ops->func
// is the host ftrace_ops_list_func, whose only registered ops is that
// Go call_direct_funcs. Every entry invocation must then leave into the
// direct trampoline (Invocation.DirectOps).
func (h *Harness) installDirectOps() error {
	a := h.Arch
	direct, dispatch := h.sym(symDirect), h.Image.HostFuncs[HostOpsListFunc]
	off, ok := regs.AsmOffset(a, "FTRACE_OPS_DIRECT_CALL")
	if direct == 0 || !ok {
		return fmt.Errorf("direct-ops: no direct trampoline or no FTRACE_OPS_DIRECT_CALL on %s", a.Name)
	}
	op, err := h.K.Heap.Alloc(256, 64)
	if err != nil {
		return err
	}
	if err := h.M.WriteMem(op+ftrace.OpsFuncOffset, wordBytes(a, dispatch)); err != nil {
		return err
	}
	if err := h.M.WriteMem(op+uint64(off), wordBytes(a, direct)); err != nil {
		return err
	}
	lit := ftrace.MustOps(a).CallOpsLiteral
	for _, s := range h.Sites {
		if err := h.M.WriteMem(lit(s.Addr), wordBytes(a, op)); err != nil {
			return fmt.Errorf("the ops literal of %s: %w", s.Func, err)
		}
	}
	h.directOps = direct
	return h.K.Ftrace.Register(&ftrace.Ops{Name: "call_direct_funcs", Func: func(_, _ uint64, _ *ftrace.Ops, f *regs.Frame) {
		f.SetDirectCaller(direct)
	}})
}

// installRethookProbe registers one fprobe on the rethook design on every
// traced function, its exit handler reading reads from the pt_regs the
// rethook trampoline built.
func (h *Harness) installRethookProbe(reads []string) error {
	m, err := ftrace.NewRethookFprobes(ftrace.RethookFprobesConfig{Kernel: h.K, Era: ftrace.RethookV613, Symbols: h.siteSymbols()})
	if err != nil {
		return err
	}
	ips := make([]uint64, 0, len(h.Sites))
	for _, s := range h.Sites {
		ips = append(ips, s.IP)
	}
	// Like a kretprobe handler, it may look at any register of the pt_regs
	// (the rethook era hands exit handlers a whole one): every slot that
	// mirrors a register is read.
	var slots []string
	for _, sl := range h.K.PtRegsLayout().Slots {
		if sl.Reg >= 0 {
			slots = append(slots, sl.Name)
		}
	}
	fp := &ftrace.Fprobe{Name: "graph",
		ExitHandler: func(_ *ftrace.Fprobe, _, _ uint64, f *regs.Frame, _ uint64) {
			for _, w := range reads {
				read(f, w)
			}
			for _, sl := range slots {
				f.Get(sl)
			}
		}}
	h.Rethooks = m
	return m.RegisterIPs(fp, ips)
}

// siteSymbols maps each traced function to its ftrace location (rec->ip).
func (h *Harness) siteSymbols() map[string]uint64 {
	out := make(map[string]uint64, len(h.Sites))
	for _, s := range h.Sites {
		out[s.Func] = s.IP
	}
	return out
}

// IPMod is what an ip-modifying user did to one traced call: where it
// sent the entry trampoline (To) and, for an error injection, the return
// value it set (Ret, SetRet).
type IPMod struct {
	User   string
	To     uint64
	Ret    uint64
	SetRet bool
}

// siteOf returns the call-site address (the ip callbacks get) of a traced
// function, 0 when it has none.
func (h *Harness) siteOf(fn string) uint64 {
	for _, s := range h.Sites {
		if s.Func == fn {
			return s.IP
		}
	}
	return 0
}

// installLivePatch registers a live patch of klp_target as
// kernel/livepatch/patch.c does (v5.11+): klp_ftrace_handler, an ops with
// FTRACE_OPS_FL_IPMODIFY filtered on the patched function, sets the
// instruction pointer in ftrace_regs to the new function
// (ftrace_regs_set_instruction_pointer; ftrace_instruction_pointer_set
// in earlier releases). The entry trampoline must then return there:
// x86-64 copies RIP back over its return slot (arch/x86/kernel/ftrace_64.S),
// s390x branches to psw.addr (arch/s390/kernel/mcount.S ftrace_common; the
// v4.x form too, where live patching set psw.addr through
// klp_arch_set_pc, arch/s390/include/asm/livepatch.h).
func (h *Harness) installLivePatch() error {
	site, repl := h.siteOf("klp_target"), h.sym("klp_target_new")
	if site == 0 || repl == 0 {
		return fmt.Errorf("live patch: the image has no klp_target call site or no klp_target_new")
	}
	return h.K.Ftrace.Register(&ftrace.Ops{Name: "livepatch", Filter: func(ip uint64) bool { return ip == site },
		Func: func(ip, parent uint64, _ *ftrace.Ops, f *regs.Frame) {
			if !f.SetInstructionPointer(repl) {
				return
			}
			if inv := h.inv; inv != nil {
				inv.IPMods = append(inv.IPMods, IPMod{User: "livepatch", To: repl})
			}
		}})
}

// installOverride registers an error-injection kprobe on fei_target as a
// kprobe on ftrace runs it (arch/x86/kernel/kprobes/ftrace.c and
// arch/s390/kernel/ftrace.c kprobe_ftrace_handler, v6.x: the pre-handler gets
// ftrace_get_regs(fregs), nothing without full regs; kernel/fail_function.c
// fei_kprobe_handler: regs_set_return_value, override_function_with_return,
// return 1 so the changed ip stays). override_function_with_return emulates
// a return (arch/x86/lib/error-inject.c: regs->ip = just_return_func, a
// bare ret; arch/s390/lib/error-inject.c: psw.addr = gprs[14]): on an arch
// with a link register the ip becomes its saved value, else the landing
// pad.
func (h *Harness) installOverride() error {
	a := h.Arch
	site := h.siteOf("fei_target")
	if site == 0 {
		return fmt.Errorf("error injection: the image has no fei_target call site")
	}
	pad := h.sym("just_return_func")
	link := ""
	if a.Link >= 0 {
		for _, sl := range h.Setup.Entry.FrameLayout(a).Slots {
			if sl.Reg == a.Link {
				link = sl.Name
			}
		}
	}
	if link == "" && pad == 0 {
		return fmt.Errorf("error injection: the image has no just_return_func")
	}
	// Registered by Enable after the graph path: it runs after
	// ftrace_graph_func, so on s390x it reads the gprs[14] the graph
	// tracer already pointed at return_to_handler and the traced call's
	// shadow-stack frame is popped by the return it emulates (run before,
	// it would return past the hooked r14 and leave the frame behind).
	h.lateOps = append(h.lateOps, &ftrace.Ops{Name: "kprobe-override", Filter: func(ip uint64) bool { return ip == site },
		Func: func(ip, parent uint64, _ *ftrace.Ops, f *regs.Frame) {
			r := f.GetRegs()
			if r == nil {
				return // kprobe_ftrace_handler: no pt_regs, no probe
			}
			to := pad
			if link != "" {
				v, ok := r.Get(link)
				if !ok {
					return
				}
				to = v
			}
			if !r.SetReturnValue(FaultInjected) || !r.SetInstructionPointer(to) {
				return
			}
			if inv := h.inv; inv != nil {
				inv.IPMods = append(inv.IPMods, IPMod{User: "kprobe-override", To: to, Ret: FaultInjected, SetRet: true})
			}
		}})
	return nil
}
