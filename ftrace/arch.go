package ftrace

import (
	"fmt"

	"trampemu/regs"
)

// Kernel symbols the ftrace core provides to every trampoline, as in the
// kernel (kernel/trace/ftrace.c, kernel/trace/fgraph.c, v6.14).
const (
	SymFtraceStub          = "ftrace_stub"
	SymFunctionTraceOp     = "function_trace_op"
	SymOpsListFunc         = "ftrace_ops_list_func"
	SymReturnToHandler     = "ftrace_return_to_handler"
	SymPrepareFtraceRet    = "prepare_ftrace_return"
	SymFtraceCall          = "ftrace_call"
	SymFtraceRegsCall      = "ftrace_regs_call"
	SymFtraceGraphCaller   = "ftrace_graph_caller"
	SymFtraceGraphCall     = "ftrace_graph_call"
	SymFtraceFunc          = "ftrace_func"
	SymFtraceTraceFunction = "ftrace_trace_function"
	// SymRethookCallback is arch_rethook_trampoline_callback
	// (arch/x86/kernel/rethook.c, arch/arm64/kernel/rethook.c,
	// arch/s390/kernel/rethook.c), what arch_rethook_trampoline calls.
	SymRethookCallback = "arch_rethook_trampoline_callback"
	// SymRethookTrampoline is arch_rethook_trampoline.
	SymRethookTrampoline = "arch_rethook_trampoline"
)

// KernelFuncs are the kernel C functions the trampolines call, which Go
// stands in for (host functions of the image).
var KernelFuncs = []string{SymOpsListFunc, SymReturnToHandler, SymPrepareFtraceRet, SymRethookCallback}

// ArchOps is the per-arch surface of package ftrace: the call-site
// encodings and patching of each arch's arch/*/kernel/ftrace.c and the
// arch facts of the ftrace core, one value per arch filled in that arch's
// file (x86_64.go, s390x.go, arm64.go), the way cmd/link/internal/amd64.Init hands
// ld.Arch to the generic linker. Generic code never compares arch names.
type ArchOps struct {
	Arch *regs.Arch

	// NopSite is the disabled call site (ftrace_nop_replace).
	NopSite []byte
	// SiteOffsets are the offsets into a function where its call site may
	// sit (x86-64: 0, or 4 after endbr64; arm64: 4 after "mov x9, x30", 8
	// after "bti c; mov x9, x30"); nil: only 0.
	SiteOffsets []uint64
	// PgSiteOffsets are the same for gcc's -pg call site, "bl _mcount"
	// after the traced function's prologue (arm64 v4.19-v5.4); nil: the
	// arch has no such era modelled.
	PgSiteOffsets []uint64
	// MakeCall encodes the enabled call site at site calling target
	// (ftrace_make_call).
	MakeCall func(a *regs.Arch, site, target uint64) ([]byte, error)
	// UsualSite names the form of the fields above where the arch had
	// several (riscv64: "t0"); "" for an arch with one form.
	UsualSite string
	// SiteForms are the arch's other call-site forms by name
	// (trampolines.CallSite; riscv64's eras), each with its own NopSite and
	// MakeCall; the fields above are the usual form.
	SiteForms map[string]*SiteForm
	// ModifyCall re-encodes the call already at site (old) to call target,
	// keeping its form (ftrace_update_ftrace_func on ftrace_call).
	ModifyCall func(a *regs.Arch, site, target uint64, old []byte) ([]byte, error)
	// OldLen is how many bytes of the old call ModifyCall looks at.
	OldLen int
	// PgModifyCall, when set, is ModifyCall for an entry of the -pg era
	// (its callback site may hold another instruction than a call).
	PgModifyCall func(a *regs.Arch, site, target uint64, old []byte) ([]byte, error)
	// FuncPointers are the words holding the ops callback that the entry
	// code calls through (s390x ftrace_func / ftrace_trace_function), or nil
	// when the callback is a patched call.
	FuncPointers []string
	// GraphSite and GraphTarget name the branch ftrace_enable_ftrace_graph_caller
	// patches and where it then goes ("" when it only stops branching).
	GraphSite, GraphTarget string
	// EnableGraph encodes the enabled graph branch at site from old (its
	// error completes "<site> at <where> ...").
	EnableGraph func(a *regs.Arch, site, target uint64, old []byte) ([]byte, error)
	// GraphOldLen is how many bytes of the old branch EnableGraph looks at.
	GraphOldLen int
	// DisableGraph, when set, encodes the graph call at site with no graph
	// user (ftrace_disable_ftrace_graph_caller), where the call as built
	// leaves the trampoline's code for a function of the exit's file
	// (riscv64 "call ftrace_stub", ftrace_stub in mcount.S) that the
	// harness would take for the trampoline's return.
	DisableGraph func(a *regs.Arch, site uint64, old []byte) ([]byte, error)
	// GraphAlsoSites are further graph calls patched like GraphSite where
	// the image has them (riscv64 v5.11-v6.7: ftrace_graph_regs_call in
	// ftrace_regs_caller).
	GraphAlsoSites []string
	// GraphFunc is the arch's ftrace_graph_func body: hook the traced
	// function's return address in fregs (the core is the frame's user).
	GraphFunc func(k *Kernel, ip uint64, fregs *regs.Frame)
	// PrepareRetp, when set, is the retp prepare_ftrace_return(ip, parent,
	// fp) files the frame under (arm64: fp); nil: parent.
	PrepareRetp func(parent, fp uint64) uint64
	// CallOpsLiteral, when set, returns where the ops pointer of
	// DYNAMIC_FTRACE_WITH_CALL_OPS sits for the call site at site (the
	// patched call): the harness writes the ops there, as
	// ftrace_rec_update_ops does; nil: the arch has no per-site ops.
	CallOpsLiteral func(site uint64) uint64
	// PartialRegs, when set, is ftrace_partial_regs: the pt_regs a
	// BPF/perf user gets from fregs (fregs itself where ftrace_regs holds
	// a pt_regs, else a copy in Kernel.PartialRegsBuffer); fixed selects
	// the version after the arch's last fix of it.
	PartialRegs func(k *Kernel, fregs *regs.Frame, fixed bool) (*regs.Frame, error)
	// UserMode, when set, is user_mode(regs) on a pt_regs; ok is false
	// when the field cannot be read.
	UserMode func(ptregs *regs.Frame) (user, ok bool)
	// GraphFPTest is HAVE_FUNCTION_GRAPH_FP_TEST: struct ftrace_ret_stack
	// keeps the frame pointer the graph entry got, and
	// ftrace_return_to_handler compares it with the one it is given
	// (include/linux/ftrace.h, kernel/trace/fgraph.c v6.11+).
	GraphFPTest bool
	// KprobesOnFtrace is HAVE_KPROBES_ON_FTRACE: a kprobe on a function's
	// ftrace site runs as an ftrace_ops callback (kprobe_ftrace_handler),
	// so an error injection (kernel/fail_function.c) or bpf_override_return
	// redirects the traced call from inside the entry trampoline. Without
	// it the arch refuses a kprobe on an ftrace location
	// (kernel/kprobes.c check_ftrace_location: -EINVAL).
	KprobesOnFtrace bool
	// FprobeMergedPattern is FPROBE_HEADER_MSB_PATTERN of the merged fprobe
	// header (kernel/trace/fprobe.c, v6.14+) on the arch.
	FprobeMergedPattern uint64
	// FprobeV17Encodable: the v17 draft header (pattern 0xf << 60) can
	// encode a pointer of the arch's heap.
	FprobeV17Encodable bool
	// RethookFrame is the frame arch_rethook_prepare records in the node
	// (x86-64 regs->sp, arm64 regs->regs[29], s390x gprs[15]) and the
	// trampoline callback later passes to rethook_trampoline_handler.
	RethookFrame func(p *regs.Frame) (uint64, bool)
	// RethookCallback is arch_rethook_trampoline_callback(regs) with its
	// arch_rethook_fixup_return: it returns what the C function returns
	// (returns false: void, x86-64).
	RethookCallback func(k *Kernel, p *regs.Frame) (ret uint64, returns bool, err error)
}

// SiteForm is one form of an arch's traced call site where the arch had
// more than one (riscv64: arch/riscv/kernel/ftrace.c of each era): how
// the site is disabled and enabled, and where the trampoline finds itself
// entered from.
type SiteForm struct {
	// Arch is the arch the form is of (set by ArchOps.Form).
	Arch *regs.Arch
	// NopSite is the disabled site (ftrace_make_nop).
	NopSite []byte
	// MakeCall encodes the enabled site (ftrace_make_call).
	MakeCall func(a *regs.Arch, site, target uint64) ([]byte, error)
	// RecIP is rec->ip, the ip the entry hands the callbacks and the
	// filters hold, as an offset from the site (riscv64 v6.16 jalr-only:
	// 4, the jalr).
	RecIP uint64
	// Return is where the entry trampoline returns to, as an offset from
	// the site (MCOUNT_INSN_SIZE for the arches' usual forms; riscv64
	// v5.11-v6.2: 12, the "ld ra" after the jalr).
	Return uint64
	// Define, when set, is the preprocessor name the workloads are built
	// with for the form (its NOP area: riscv64 v5.11-v6.2 has 16 bytes).
	Define string
	// Keep is how many bytes right below the stack pointer the enabled
	// site stores and its code after the trampoline reads back (riscv64
	// v5.11-v6.2: the parent at sp - 8), which the kernel's interrupts
	// leave alone: the harness's stack poison and interrupt model keep
	// them (emu.WatchOptions.Keep).
	Keep int
	// LinkBelow: the site saves the link register in the word right below
	// sp before its call and reloads it from there after the trampoline
	// returns (riscv64 v5.11-v6.2 "sd ra, -8(sp)" ... "ld ra, -8(sp)"): the
	// trampoline is entered with the return address into the site in the
	// link register and the traced function's parent in that word.
	LinkBelow bool
}

// Back is how far the ip the entry hands the callbacks is before the
// address it returns to (Return - RecIP).
func (f SiteForm) Back() uint64 { return f.Return - f.RecIP }

// Form returns the site form named name (trampolines.CallSite), or the
// arch's usual one (its own NopSite and MakeCall) for "" or a name the
// arch does not list.
func (o *ArchOps) Form(name string) SiteForm {
	if f, ok := o.SiteForms[name]; ok && name != "" {
		g := *f
		g.Arch = o.Arch
		return g
	}
	return SiteForm{Arch: o.Arch, NopSite: o.NopSite, MakeCall: o.MakeCall, Return: uint64(o.Arch.McountInsnSize)}
}

// HasForm reports whether the arch models the site form name ("" and
// UsualSite are the usual one).
func (o *ArchOps) HasForm(name string) bool {
	_, ok := o.SiteForms[name]
	return name == "" || name == o.UsualSite || ok
}

// SiteAt reports whether a call site may sit off bytes into its function
// (pg: gcc's -pg call site, PgSiteOffsets).
func (o *ArchOps) SiteAt(pg bool, off uint64) bool {
	offs := o.Offsets(pg)
	if len(offs) == 0 {
		return off == 0
	}
	for _, v := range offs {
		if v == off {
			return true
		}
	}
	return false
}

// Offsets are SiteOffsets, or PgSiteOffsets for the -pg call site.
func (o *ArchOps) Offsets(pg bool) []uint64 {
	if pg {
		return o.PgSiteOffsets
	}
	return o.SiteOffsets
}

// Provided lists the symbols a trampoline of the arch may use without
// defining them, as in the kernel.
func (o *ArchOps) Provided() []string {
	out := []string{SymFtraceStub, SymFunctionTraceOp, SymReturnToHandler, SymPrepareFtraceRet, SymOpsListFunc, SymRethookCallback}
	return append(out, o.FuncPointers...)
}

// archOps lists the hooks of every supported architecture.
var archOps = []*ArchOps{x86Ops, s390Ops, arm64Ops, riscv64Ops}

// OpsOf returns the arch's hooks, or an error naming the arch.
func OpsOf(a *regs.Arch) (*ArchOps, error) {
	for _, o := range archOps {
		if o.Arch.Name == a.Name {
			return o, nil
		}
	}
	return nil, fmt.Errorf("ftrace: no support for architecture %s", a.Name)
}

// MustOps is OpsOf for the arches of regs.Arches; it panics on any other,
// which only a programming error in this project can cause.
func MustOps(a *regs.Arch) *ArchOps {
	o, err := OpsOf(a)
	if err != nil {
		panic(err)
	}
	return o
}
