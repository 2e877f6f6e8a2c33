package trampolines

import (
	"embed"

	"trampemu/regs"
)

// Files holds every .S and header of the package.
//
//go:embed x86_64 s390x arm64 riscv64 workloads runtime native
var Files embed.FS

// Role is what a trampoline does.
type Role string

// Roles.
const (
	Entry Role = "entry" // ftrace_caller / ftrace_regs_caller: called from the traced function's first instruction
	Exit  Role = "exit"  // return_to_handler: returned into instead of the traced function's caller
	// Rethook is arch_rethook_trampoline: returned into instead of the
	// traced function's caller when fprobe runs on rethook (v5.18-v6.13);
	// it takes the exit's place in a pairing.
	Rethook Role = "rethook"
)

// Returns reports whether a trampoline of the role is returned into (the
// exit slot of a pairing): return_to_handler or arch_rethook_trampoline.
func (r Role) Returns() bool { return r == Exit || r == Rethook }

// GraphEntry is how an entry variant starts function-graph tracing.
type GraphEntry string

// Graph entry paths.
const (
	// GraphViaOps: ftrace_graph_func is an ftrace_ops callback that
	// rewrites the return address through ftrace_regs (x86-64 v5.16+,
	// s390x v6.14+).
	GraphViaOps GraphEntry = "ops"
	// GraphViaCaller: a patched jump into ftrace_graph_caller, which calls
	// prepare_ftrace_return (x86-64 <= v5.15, s390x <= v6.13).
	GraphViaCaller GraphEntry = "caller"
	// GraphNone: the variant has no graph path modelled.
	GraphNone GraphEntry = "none"
)

// CallSite is the form of the traced call site where an arch had more
// than one across its eras (riscv64: arch/riscv/kernel/ftrace.c); ""
// is the arch's only form.
type CallSite string

// riscv64 call-site forms (shared/reference/riscv64.md "Call site").
const (
	// SiteMcount: -pg, a call to _mcount in the prologue (riscv64
	// v4.16-v5.10): not modelled.
	SiteMcount CallSite = "mcount"
	// SiteRA: "sd ra,-8(sp); auipc ra; jalr ra; ld ra,-8(sp)" written at
	// the function (arch/riscv/kernel/ftrace.c v5.11-v6.2 ftrace_make_call,
	// afc76b8b8011): ra = func + 12 in the trampoline, the parent in the
	// word below sp, rec->ip = func.
	SiteRA CallSite = "ra"
	// SiteT0: "auipc t0; jalr t0" written as a pair (make_call_t0, v6.3
	// 6724a76cff85 to v6.15): t0 = func + 8, ra = the parent, rec->ip = func.
	SiteT0 CallSite = "t0"
	// SiteJalr: the auipc written at boot, enable and disable rewrite only
	// the jalr (v6.16, b2137c3b6d7a): rec->ip = func + 4 (the jalr), the
	// trampoline passes ip = t0 - MCOUNT_JALR_SIZE.
	SiteJalr CallSite = "jalr"
	// SiteJalrDraft: the CALL_OPS series as AndybnACT/linux-riscv@0413b9a60dc3
	// has it: jalr-only patching with rec->ip = func (ftrace_rec_set_ops at
	// rec->ip - 8) and ip = t0 - FENTRY_RA_OFFSET (8).
	SiteJalrDraft CallSite = "jalr-draft"
)

// ExitABI is what return_to_handler passes to ftrace_return_to_handler.
type ExitABI string

// Exit ABIs.
const (
	ExitLegacy  ExitABI = "legacy"  // (unsigned long frame_pointer): no registers for the callbacks (<= v6.4)
	ExitRetRegs ExitABI = "retregs" // (struct fgraph_ret_regs *) (v6.5 .. v6.13)
	ExitFregs   ExitABI = "fregs"   // (struct ftrace_regs *) (v6.14+)
	// ExitRethook: arch_rethook_trampoline_callback(struct pt_regs *), a
	// whole pt_regs (rethook, v5.18-v6.13).
	ExitRethook ExitABI = "rethook"
)

// Variant is one trampoline as the kernel had it (or as a patch proposed it).
type Variant struct {
	Name  string // unique per arch: "ftrace_caller", "rth-merged", ...
	Arch  string // "x86_64", "s390x", "arm64"
	Role  Role
	Model string // the kernel version or patch it models
	File  string // path in Files
	// Symbol is where the traced call site (entry) or the rewritten return
	// address (exit) points.
	Symbol  string
	Defines map[string]string // preprocessor defines (CONFIG_FRAME_POINTER, MARCH_HAS_Z196_FEATURES)
	// Claims are the ftrace_regs slots the variant's own code fills.
	Claims []string
	// Kernel is true for code that was merged; false for rejected or draft
	// patches kept as negative cases, and for experiments.
	Kernel bool
	// Experiment marks a variant that is neither kernel code nor a patch:
	// a kernel variant with one deliberate change, kept to isolate the cost
	// of that change in the native timing (package native). Its Model
	// starts with "experiment:".
	Experiment bool
	// Bug, when set, is the known defect the checks must find.
	Bug string
	// NoReturn marks a broken variant that never gets back to the traced
	// function's caller (it loops until the instruction limit, or returns
	// into no code).
	NoReturn bool
	// Pair is the intended variant for the other role (same era).
	Pair string
	// Site is the call-site form an entry variant is reached from, where
	// its arch had more than one (riscv64); "" is the arch's usual one.
	Site CallSite
	// Fregs is the era of struct ftrace_regs the variant is built against
	// where its arch's changed (regs.Arch.FregsForms, riscv64 "v6.16");
	// "" is the arch's Frame.
	Fregs string

	Graph   GraphEntry // entry variants
	ExitABI ExitABI    // exit variants
	// NoFullRegs marks an entry variant from before kprobes on ftrace and
	// arch_ftrace_get_regs: scenarios leave out the full-regs user for it.
	NoFullRegs bool
	// NoIPModify marks an entry variant whose callbacks get no registers
	// (x86-64 v5.10 ftrace_caller passes regs = NULL): an ip-modifying ops
	// (live patching, kprobes) then needs FTRACE_OPS_FL_SAVE_REGS, which
	// sends its functions through ftrace_regs_caller instead
	// (kernel/livepatch/patch.c v5.10 klp_patch_func sets
	// FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY; kernel/trace/ftrace.c
	// v5.10 ftrace_get_addr_new returns FTRACE_REGS_ADDR for a record with
	// FTRACE_FL_REGS), so scenarios leave the ip-modifying users out for it.
	NoIPModify bool
	// NoLivePatch marks an entry variant of an era whose kernel cannot
	// live patch (riscv64 before HAVE_LIVEPATCH: see the v5.11-v6.2
	// entries): scenarios leave the live-patch user out for it.
	NoLivePatch bool
	// NoRegs marks an entry variant that hands the callbacks a block that
	// is no struct ftrace_regs and no pt_regs, read by none of the ops
	// that come there (riscv64 v6.3-v6.7 ftrace_caller's ABI block):
	// harness.Tramp.NoRegs.
	NoRegs bool
	// PtRegs marks an entry variant that hands the callbacks a struct
	// pt_regs (regs.Arch.PtRegs) as their ftrace_regs: arm64
	// DYNAMIC_FTRACE_WITH_REGS, v5.5-v6.1 (include/linux/ftrace.h v5.11-v6.1:
	// without WITH_ARGS, struct ftrace_regs wraps a pt_regs).
	PtRegs bool
	// NoDirectCalls marks an entry variant of an era without
	// DYNAMIC_FTRACE_WITH_DIRECT_CALLS (arm64 before v6.4, 2aa6ac03516d
	// "arm64: ftrace: Add direct call support"; s390x v4.x, before the
	// v5.5 register_ftrace_direct): no user can send its
	// calls through a direct trampoline, so the direct user set does not
	// apply to it (even where its ftrace_regs already has the slot).
	NoDirectCalls bool
	// ObjtoolNonStandardFP: the kernel file this variant comes from is
	// never given to objtool in a CONFIG_FRAME_POINTER build
	// (arch/x86/kernel/Makefile before v5.12:
	// OBJECT_FILES_NON_STANDARD_ftrace_$(BITS).o := y under ifdef
	// CONFIG_FRAME_POINTER, removed with "x86/ftrace: Support objtool
	// vmlinux.o validation in ftrace_64.S", which added
	// STACK_FRAME_NON_STANDARD_FP instead).
	ObjtoolNonStandardFP bool
	// Pg marks an entry variant of an era whose traced functions call it
	// from gcc's -pg call site ("bl _mcount" after the prologue, an
	// ordinary call: the caller-saved registers are the trampoline's) and
	// whose callbacks get (ip, parent_ip) only (no
	// ARCH_SUPPORTS_FTRACE_OPS): arm64 v4.19-v5.4, before
	// -fpatchable-function-entry (arch/arm64/Makefile v5.5, 3b23e4991fb6).
	Pg bool
	// PrepareParentFirst marks a -pg entry variant whose
	// ftrace_graph_caller calls prepare_ftrace_return(parent, self_addr,
	// frame_pointer), arm64 up to v4.20 (ftrace.PrepareParentIPFP); the
	// arch's registry default otherwise (harness).
	PrepareParentFirst bool
}

var z196 = map[string]string{"MARCH_HAS_Z196_FEATURES": ""}
var fp = map[string]string{"CONFIG_FRAME_POINTER": ""}

// x86-64 slot sets.
var (
	x86CallerSlots = []string{"RAX", "RCX", "RDX", "RSI", "RDI", "R8", "R9", "RBP", "ORIG_RAX", "RIP", "CS", "RSP"}
	x86AllSlots    = []string{"R15", "R14", "R13", "R12", "RBP", "RBX", "R11", "R10", "R9", "R8", "RAX", "RCX", "RDX", "RSI", "RDI", "ORIG_RAX", "RIP", "CS", "EFLAGS", "RSP", "SS"}
	x86V510Slots   = []string{"RAX", "RCX", "RDX", "RSI", "RDI", "R8", "R9", "RBP", "ORIG_RAX", "RIP"}
)

// s390x slot sets.
var (
	s390CallerSlots = []string{"psw.addr", "gprs[2]", "gprs[3]", "gprs[4]", "gprs[5]", "gprs[6]", "gprs[7]", "gprs[8]", "gprs[9]", "gprs[10]", "gprs[11]", "gprs[12]", "gprs[13]", "gprs[14]", "gprs[15]", "orig_gpr2", "flags"}
	s390RegsSlots   = append([]string{"psw.mask"}, s390CallerSlots...)
	s390V4Slots     = []string{"psw.addr", "gprs[2]", "gprs[3]", "gprs[4]", "gprs[5]", "gprs[6]", "gprs[7]", "gprs[8]", "gprs[9]", "gprs[10]", "gprs[11]", "gprs[12]", "gprs[13]", "gprs[14]", "gprs[15]"}
)

// arm64 slot sets: struct ftrace_regs (v6.2+) and struct pt_regs (the
// WITH_REGS entries, v5.5-v6.1, whose own frame record lands in
// pt_regs.stackframe).
var (
	arm64ArgSlots    = []string{"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8"}
	arm64CallerSlots = append(append([]string{}, arm64ArgSlots...), "fp", "lr", "sp", "pc")
	arm64DirectSlots = append(append([]string{}, arm64CallerSlots...), "direct_tramp")
	arm64PtSlots     = append(append([]string{}, arm64ArgSlots...), "x9", "fp", "lr", "sp", "pc", "stackframe[0]", "stackframe[1]")
	arm64PtAllSlots  = append([]string{"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13", "x14",
		"x15", "x16", "x17", "x18", "x19", "x20", "x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28"},
		"fp", "lr", "sp", "pc", "stackframe[0]", "stackframe[1]")
	arm64RetSlots = []string{"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "fp"}
	// arch/arm64/kernel/entry-ftrace.S builds these variants of one file.
	arm64CallOps = map[string]string{"CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS": ""}
	arm64Direct  = map[string]string{"CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS": "", "CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS": ""}
	// The twins of arm64/mcount_v5.0.S.
	arm64PgWrongParent = map[string]string{"TWIN_WRONG_PARENT": ""}
	arm64PgWrongFP     = map[string]string{"TWIN_WRONG_FP": ""}
	arm64PgV419        = map[string]string{"PREPARE_PARENT_FIRST": ""}
)

// riscv64 slot sets: struct __arch_ftrace_regs of v6.11-v6.15 and struct
// fgraph_ret_regs (v6.5-v6.13). The entries are built with the frame
// pointer (HAVE_FUNCTION_GRAPH_FP_TEST, the distribution kernels' option)
// and direct calls, as arch/riscv/kernel/mcount-dyn.S is in v6.11+.
var (
	riscvArgSlots    = []string{"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7"}
	riscvCallerSlots = append([]string{"epc", "ra", "sp", "s0", "t1"}, riscvArgSlots...)
	riscvRetSlots    = []string{"a1", "a0", "s0", "ra"}
	riscvFixedSlots  = []string{"ra", "s0", "a0", "a1"}
	riscvArgsFP      = map[string]string{"CONFIG_FUNCTION_GRAPH_TRACER": "", "CONFIG_FRAME_POINTER": "",
		"CONFIG_DYNAMIC_FTRACE_WITH_ARGS": "", "CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS": ""}
)

// Slots arch_rethook_trampoline's own code writes (the rest of pt_regs is
// arch_rethook_trampoline_callback's: x86-64 orig_ax, ip, cs).
var (
	x86RethookSlots  = []string{"R15", "R14", "R13", "R12", "RBP", "RBX", "R11", "R10", "R9", "R8", "RAX", "RCX", "RDX", "RSI", "RDI", "EFLAGS", "RSP", "SS"}
	s390RethookSlots = []string{"psw.mask", "psw.addr", "gprs[0]", "gprs[1]", "gprs[2]", "gprs[3]", "gprs[4]", "gprs[5]", "gprs[6]", "gprs[7]",
		"gprs[8]", "gprs[9]", "gprs[10]", "gprs[11]", "gprs[12]", "gprs[13]", "gprs[14]", "gprs[15]"}
	arm64RethookSlots = append(append([]string{}, arm64PtAllSlots[:len(arm64PtAllSlots)-2]...), "pstate")
)

// rethookBugs are the broken twins every arch's arch_rethook_trampoline
// has, by define.
var (
	rethookDropX86   = map[string]string{"RETHOOK_DROP_RBX": ""}
	rethookDropA64   = map[string]string{"RETHOOK_DROP_X19": ""}
	rethookDropS390  = map[string]string{"RETHOOK_DROP_R7": ""}
	rethookSkip      = map[string]string{"RETHOOK_SKIP_CALLBACK": ""}
	rethookUnbalance = map[string]string{"RETHOOK_UNBALANCED": ""}
)

// Variants is the registry.
var Variants = []Variant{
	// ---- arch_rethook_trampoline (fprobe on rethook, v5.18-v6.13) ----
	// Paired with the SAVE_REGS entry each era's fprobe ops asks for
	// (FTRACE_OPS_FL_SAVE_REGS: kernel/trace/fprobe.c v5.18-v6.13).
	{Name: "rethook", Arch: "x86_64", Role: Rethook, Model: "v5.18-v6.13 (arch/x86/kernel/rethook.c, with the ss push)",
		File: "x86_64/rethook.S", Symbol: "arch_rethook_trampoline", Claims: x86RethookSlots, Kernel: true,
		Pair: "ftrace_regs_caller", ExitABI: ExitRethook},
	{Name: "rethook-drop-rbx", Arch: "x86_64", Role: Rethook, Model: "twin: rethook without rbx in pt_regs",
		File: "x86_64/rethook.S", Symbol: "arch_rethook_trampoline", Defines: rethookDropX86, Claims: x86RethookSlots,
		Bug: "rbx is neither saved nor reloaded", Pair: "ftrace_regs_caller", ExitABI: ExitRethook},
	{Name: "rethook-skip-callback", Arch: "x86_64", Role: Rethook, Model: "twin: rethook that never calls arch_rethook_trampoline_callback",
		File: "x86_64/rethook.S", Symbol: "arch_rethook_trampoline", Defines: rethookSkip, Claims: x86RethookSlots,
		Bug: "the callback is never called", NoReturn: true, Pair: "ftrace_regs_caller", ExitABI: ExitRethook},
	{Name: "rethook-unbalanced", Arch: "x86_64", Role: Rethook, Model: "twin: rethook releasing one word too few",
		File: "x86_64/rethook.S", Symbol: "arch_rethook_trampoline", Defines: rethookUnbalance, Claims: x86RethookSlots,
		Bug: "the stack is left 8 bytes lower", NoReturn: true, Pair: "ftrace_regs_caller", ExitABI: ExitRethook},
	{Name: "rethook", Arch: "s390x", Role: Rethook, Model: "v6.2-v6.13 (arch/s390/kernel/mcount.S, CONFIG_RETHOOK)",
		File: "s390x/rethook.S", Symbol: "arch_rethook_trampoline", Claims: s390RethookSlots, Kernel: true,
		Pair: "ftrace_caller-v6.13", ExitABI: ExitRethook},
	{Name: "rethook-drop-r7", Arch: "s390x", Role: Rethook, Model: "twin: rethook not reloading r7",
		File: "s390x/rethook.S", Symbol: "arch_rethook_trampoline", Defines: rethookDropS390, Claims: s390RethookSlots,
		Bug: "r7 is not reloaded", Pair: "ftrace_caller-v6.13", ExitABI: ExitRethook},
	{Name: "rethook-skip-callback", Arch: "s390x", Role: Rethook, Model: "twin: rethook that never calls arch_rethook_trampoline_callback",
		File: "s390x/rethook.S", Symbol: "arch_rethook_trampoline", Defines: rethookSkip, Claims: s390RethookSlots,
		Bug: "the callback is never called", NoReturn: true, Pair: "ftrace_caller-v6.13", ExitABI: ExitRethook},
	{Name: "rethook-unbalanced", Arch: "s390x", Role: Rethook, Model: "twin: rethook returning with r15 8 bytes off",
		File: "s390x/rethook.S", Symbol: "arch_rethook_trampoline", Defines: rethookUnbalance, Claims: s390RethookSlots,
		Bug: "the stack pointer is 8 bytes off", NoReturn: true, Pair: "ftrace_caller-v6.13", ExitABI: ExitRethook},
	{Name: "rethook", Arch: "arm64", Role: Rethook, Model: "v5.19-v6.1 (arch/arm64/kernel/probes/kprobes_trampoline.S)",
		File: "arm64/rethook.S", Symbol: "arch_rethook_trampoline", Claims: arm64RethookSlots, Kernel: true,
		Pair: "ftrace_regs_caller-v6.1", ExitABI: ExitRethook},
	{Name: "rethook-drop-x19", Arch: "arm64", Role: Rethook, Model: "twin: rethook without x19 in pt_regs",
		File: "arm64/rethook.S", Symbol: "arch_rethook_trampoline", Defines: rethookDropA64, Claims: arm64RethookSlots,
		Bug: "x19 is neither saved nor reloaded", Pair: "ftrace_regs_caller-v6.1", ExitABI: ExitRethook},
	{Name: "rethook-skip-callback", Arch: "arm64", Role: Rethook, Model: "twin: rethook that never calls arch_rethook_trampoline_callback",
		File: "arm64/rethook.S", Symbol: "arch_rethook_trampoline", Defines: rethookSkip, Claims: arm64RethookSlots,
		Bug: "the callback is never called", NoReturn: true, Pair: "ftrace_regs_caller-v6.1", ExitABI: ExitRethook},
	{Name: "rethook-unbalanced", Arch: "arm64", Role: Rethook, Model: "twin: rethook releasing 16 bytes too few",
		File: "arm64/rethook.S", Symbol: "arch_rethook_trampoline", Defines: rethookUnbalance, Claims: arm64RethookSlots,
		Bug: "the stack is left 16 bytes lower", Pair: "ftrace_regs_caller-v6.1", ExitABI: ExitRethook},

	// ---- x86-64 entry ----
	{Name: "ftrace_caller", Arch: "x86_64", Role: Entry, Model: "v5.11-v6.19 (DYNAMIC_FTRACE_WITH_ARGS)",
		File: "x86_64/ftrace_caller.S", Symbol: "ftrace_caller", Claims: x86CallerSlots, Kernel: true,
		Pair: "rth-fixed", Graph: GraphViaOps},
	{Name: "ftrace_caller-fp", Arch: "x86_64", Role: Entry, Model: "v5.11-v6.19, CONFIG_FRAME_POINTER",
		File: "x86_64/ftrace_caller.S", Symbol: "ftrace_caller", Defines: fp, Claims: x86CallerSlots, Kernel: true,
		Pair: "rth-fixed", Graph: GraphViaOps},
	{Name: "ftrace_regs_caller", Arch: "x86_64", Role: Entry, Model: "v5.11-v6.19 (full pt_regs, direct calls)",
		File: "x86_64/ftrace_regs_caller.S", Symbol: "ftrace_regs_caller", Claims: x86AllSlots, Kernel: true,
		Pair: "rth-fixed", Graph: GraphViaOps},
	{Name: "ftrace_regs_caller-fp", Arch: "x86_64", Role: Entry, Model: "v5.11-v6.19, CONFIG_FRAME_POINTER",
		File: "x86_64/ftrace_regs_caller.S", Symbol: "ftrace_regs_caller", Defines: fp, Claims: x86AllSlots, Kernel: true,
		Pair: "rth-fixed", Graph: GraphViaOps},
	{Name: "ftrace_caller-v5.10", Arch: "x86_64", Role: Entry, Model: "v5.10 (regs = NULL, ftrace_graph_caller)",
		File: "x86_64/ftrace_caller_v5.10.S", Symbol: "ftrace_caller", Claims: x86V510Slots, Kernel: true, ObjtoolNonStandardFP: true,
		Pair: "rth-legacy", Graph: GraphViaCaller, NoIPModify: true},
	{Name: "ftrace_caller-v5.10-fp", Arch: "x86_64", Role: Entry, Model: "v5.10, CONFIG_FRAME_POINTER",
		File: "x86_64/ftrace_caller_v5.10.S", Symbol: "ftrace_caller", Defines: fp, Claims: x86V510Slots, Kernel: true, ObjtoolNonStandardFP: true,
		Pair: "rth-legacy", Graph: GraphViaCaller, NoIPModify: true},

	// ---- x86-64 exit ----
	{Name: "rth-legacy", Arch: "x86_64", Role: Exit, Model: "<= v6.4", File: "x86_64/rth_legacy.S",
		Symbol: "return_to_handler", Kernel: true, Pair: "ftrace_caller-v5.10", ExitABI: ExitLegacy},
	{Name: "rth-retval", Arch: "x86_64", Role: Exit, Model: "v6.5-v6.13 (fgraph_ret_regs)", File: "x86_64/rth_retval.S",
		Symbol: "return_to_handler", Claims: []string{"RAX", "RDX", "RBP"}, Kernel: true, Pair: "ftrace_caller", ExitABI: ExitRetRegs},
	{Name: "rth-full-fregs", Arch: "x86_64", Role: Exit, Model: "rejected v7 patch, Feb 2024 (HAVE_FUNCTION_GRAPH_FREGS)",
		File: "x86_64/rth_full_fregs.S", Symbol: "return_to_handler",
		Claims: []string{"RAX", "RCX", "RDX", "RSI", "RDI", "R8", "R9", "RBP", "RSP"}, Pair: "ftrace_caller", ExitABI: ExitFregs},
	{Name: "rth-merged", Arch: "x86_64", Role: Exit, Model: "v6.14 (fgraph: Replace fgraph_ret_regs with ftrace_regs)",
		File: "x86_64/rth_merged.S", Symbol: "return_to_handler", Claims: []string{"RAX", "RDX", "RBP"}, Kernel: true,
		Pair: "ftrace_caller", ExitABI: ExitFregs},
	{Name: "rth-v6.19", Arch: "x86_64", Role: Exit, Model: "v6.19 (ORC unwind fix)", File: "x86_64/rth_v6.19.S",
		Symbol: "return_to_handler", Claims: []string{"RAX", "RDX", "RBP", "RSP"}, Kernel: true,
		Bug: "RSP holds the frame base, not the caller's sp", Pair: "ftrace_caller", ExitABI: ExitFregs},
	{Name: "rth-fixed", Arch: "x86_64", Role: Exit, Model: "after v6.19 (x86/fgraph: Fix return_to_handler regs.rsp value)",
		File: "x86_64/rth_fixed.S", Symbol: "return_to_handler", Claims: []string{"RAX", "RDX", "RBP", "RSP"}, Kernel: true,
		Pair: "ftrace_caller", ExitABI: ExitFregs},

	// ---- x86-64 experiments (not kernel code; see Variant.Experiment) ----
	{Name: "rth-merged-jmp", Arch: "x86_64", Role: Exit, Model: "experiment: rth-merged returning with jmp *%rdi instead of call; mov %rdi,(%rsp); ret",
		File: "x86_64/exp_merged_jmp.S", Symbol: "return_to_handler", Claims: []string{"RAX", "RDX", "RBP"}, Experiment: true,
		Pair: "ftrace_caller", ExitABI: ExitFregs},
	{Name: "rth-full-fregs-jmp", Arch: "x86_64", Role: Exit, Model: "experiment: rth-full-fregs returning with jmp *%rdi instead of call; mov %rdi,(%rsp); ret",
		File: "x86_64/exp_full_fregs_jmp.S", Symbol: "return_to_handler",
		Claims: []string{"RAX", "RCX", "RDX", "RSI", "RDI", "R8", "R9", "RBP", "RSP"}, Experiment: true, Pair: "ftrace_caller", ExitABI: ExitFregs},

	// ---- s390x entry ----
	{Name: "ftrace_caller", Arch: "s390x", Role: Entry, Model: "v6.14+ (z196 path)", File: "s390x/ftrace_caller.S",
		Symbol: "ftrace_caller", Defines: z196, Claims: s390CallerSlots, Kernel: true, Pair: "rth-merged", Graph: GraphViaOps},
	{Name: "ftrace_regs_caller", Arch: "s390x", Role: Entry, Model: "v6.14+ (z196 path, PSW mask, PIF_FTRACE_FULL_REGS)",
		File: "s390x/ftrace_caller.S", Symbol: "ftrace_regs_caller", Defines: z196, Claims: s390RegsSlots, Kernel: true,
		Pair: "rth-merged", Graph: GraphViaOps},
	{Name: "ftrace_caller-oldcpu", Arch: "s390x", Role: Entry, Model: "v6.14+ (pre-z196 path)", File: "s390x/ftrace_caller.S",
		Symbol: "ftrace_caller", Claims: s390CallerSlots, Kernel: true, Pair: "rth-merged", Graph: GraphViaOps},
	{Name: "ftrace_regs_caller-oldcpu", Arch: "s390x", Role: Entry, Model: "v6.14+ (pre-z196 path)", File: "s390x/ftrace_caller.S",
		Symbol: "ftrace_regs_caller", Claims: s390RegsSlots, Kernel: true, Pair: "rth-merged", Graph: GraphViaOps},
	{Name: "ftrace_caller-v6.13", Arch: "s390x", Role: Entry, Model: "<= v6.13 (ftrace_graph_caller block)",
		File: "s390x/ftrace_caller_v6.13.S", Symbol: "ftrace_caller", Defines: z196, Claims: s390CallerSlots, Kernel: true,
		Pair: "rth-retval", Graph: GraphViaCaller},
	// ftrace_regs_caller of v5.14-v6.12 (the same file as ftrace_caller-v6.13): the kprobe-style and
	// error-injection users get full regs here. Error injection
	// (kernel/fail_function.c fei_kprobe_handler ->
	// arch/s390/lib/error-inject.c override_function_with_return:
	// psw.addr = gprs[14]) runs in ftrace_func, before
	// ftrace_graph_caller, which then still pushes a frame for the
	// skipped call and points gprs[14] at return_to_handler; ftrace_common
	// branches to psw.addr, the caller, and the frame is never popped
	// (arch/s390/kernel/mcount.S v5.14-v6.12 ftrace_common,
	// arch/s390/kernel/ftrace.c prepare_ftrace_return, which hooks
	// unconditionally). A kernel bug; docs/orc.md has the code path.
	{Name: "ftrace_regs_caller-v6.12", Arch: "s390x", Role: Entry, Model: "v5.14-v6.12 (ftrace_graph_caller block, PSW mask, PIF_FTRACE_FULL_REGS)",
		File: "s390x/ftrace_caller_v6.13.S", Symbol: "ftrace_regs_caller", Defines: z196, Claims: s390RegsSlots, Kernel: true,
		Bug:  "an error injection with a graph user leaves the skipped call's shadow-stack frame behind",
		Pair: "rth-retval", Graph: GraphViaCaller},
	{Name: "ftrace_caller-v4", Arch: "s390x", Role: Entry, Model: "v4.x (ftrace_regs_caller aliased)",
		File: "s390x/ftrace_caller_v4.S", Symbol: "ftrace_caller", Defines: z196, Claims: s390V4Slots, Kernel: true,
		// No direct calls: register_ftrace_direct() first appeared in v5.5
		// (kernel/trace/ftrace.c), after every v4.x kernel.
		Pair: "rth-legacy", Graph: GraphNone, NoFullRegs: true, NoDirectCalls: true},

	// ---- s390x exit ----
	{Name: "rth-legacy", Arch: "s390x", Role: Exit, Model: "<= v6.4", File: "s390x/rth_legacy.S",
		Symbol: "return_to_handler", Kernel: true, Pair: "ftrace_caller-v6.13", ExitABI: ExitLegacy},
	{Name: "rth-retval", Arch: "s390x", Role: Exit, Model: "v6.5-v6.13 (fgraph_ret_regs)", File: "s390x/rth_retval.S",
		Symbol: "return_to_handler", Claims: []string{"gprs[2]", "fp"}, Kernel: true, Pair: "ftrace_caller-v6.13", ExitABI: ExitRetRegs},
	{Name: "rth-merged", Arch: "s390x", Role: Exit, Model: "v6.14+ (fgraph: Replace fgraph_ret_regs with ftrace_regs)",
		File: "s390x/rth_merged.S", Symbol: "return_to_handler", Claims: []string{"gprs[2]", "gprs[15]"}, Kernel: true,
		Pair: "ftrace_caller", ExitABI: ExitFregs},
	{Name: "rth-v14-draft", Arch: "s390x", Role: Exit, Model: "v14 draft of the ftrace_regs conversion (2024)",
		File: "s390x/rth_v14_draft.S", Symbol: "return_to_handler", Claims: []string{"gprs[2]", "gprs[15]"},
		Bug: "stores into the new frame's __SF_GPRS slots, not into ftrace_regs", Pair: "ftrace_caller", ExitABI: ExitFregs},
	{Name: "rth-alloc-draft", Arch: "s390x", Role: Exit, Model: "draft of the ftrace_regs conversion (160+352 allocated, 352 released)",
		File: "s390x/rth_alloc_draft.S", Symbol: "return_to_handler", Claims: []string{"gprs[2]", "gprs[15]"},
		Bug: "releases 160 bytes less than it allocates", Pair: "ftrace_caller", ExitABI: ExitFregs},

	// ---- arm64 entry ----
	// The WITH_REGS ftrace_caller saves part of pt_regs: ops that want the
	// registers or modify the ip (FTRACE_OPS_FL_SAVE_REGS, IPMODIFY) go
	// through ftrace_regs_caller (kernel/trace/ftrace.c ftrace_get_addr_new:
	// FTRACE_FL_REGS selects FTRACE_REGS_ADDR), hence NoFullRegs and
	// NoIPModify on it.
	// arm64 has no kprobes on ftrace (arch/arm64/Kconfig selects no
	// HAVE_KPROBES_ON_FTRACE) and from v6.2 arch_ftrace_get_regs is NULL
	// (arch/arm64/include/asm/ftrace.h): no user asks an ftrace_regs entry
	// for a full pt_regs.
	{Name: "ftrace_caller", Arch: "arm64", Role: Entry, Model: "v6.4-v6.19 (WITH_ARGS, CALL_OPS, direct calls)",
		File: "arm64/ftrace_caller.S", Symbol: "ftrace_caller", Defines: arm64Direct, Claims: arm64DirectSlots, Kernel: true,
		Pair: "rth-merged", Graph: GraphViaOps, NoFullRegs: true},
	{Name: "ftrace_caller-v6.3", Arch: "arm64", Role: Entry, Model: "v6.3 (WITH_ARGS, CALL_OPS)",
		File: "arm64/ftrace_caller.S", Symbol: "ftrace_caller", Defines: arm64CallOps, Claims: arm64CallerSlots, Kernel: true,
		Pair: "rth-legacy", Graph: GraphViaOps, NoFullRegs: true, NoDirectCalls: true},
	{Name: "ftrace_caller-v6.2", Arch: "arm64", Role: Entry, Model: "v6.2 (WITH_ARGS, the callback at ftrace_call)",
		File: "arm64/ftrace_caller.S", Symbol: "ftrace_caller", Claims: arm64CallerSlots, Kernel: true,
		Pair: "rth-legacy", Graph: GraphViaOps, NoFullRegs: true, NoDirectCalls: true},
	{Name: "ftrace_caller-v6.1", Arch: "arm64", Role: Entry, Model: "v6.0-v6.1 (WITH_REGS, partial pt_regs, ftrace_graph_func)",
		File: "arm64/ftrace_regs_v6.1.S", Symbol: "ftrace_caller", Claims: arm64PtSlots, Kernel: true,
		Pair: "rth-legacy", Graph: GraphViaOps, PtRegs: true, NoFullRegs: true, NoIPModify: true, NoDirectCalls: true},
	{Name: "ftrace_regs_caller-v6.1", Arch: "arm64", Role: Entry, Model: "v6.0-v6.1 (WITH_REGS, full pt_regs, ftrace_graph_func)",
		File: "arm64/ftrace_regs_v6.1.S", Symbol: "ftrace_regs_caller", Claims: arm64PtAllSlots, Kernel: true,
		Pair: "rth-legacy", Graph: GraphViaOps, PtRegs: true, NoDirectCalls: true},
	{Name: "ftrace_caller-v5.10", Arch: "arm64", Role: Entry, Model: "v5.5-v5.19 (WITH_REGS, partial pt_regs, ftrace_graph_caller)",
		File: "arm64/ftrace_regs_v5.10.S", Symbol: "ftrace_caller", Claims: arm64PtSlots, Kernel: true,
		Pair: "rth-legacy", Graph: GraphViaCaller, PtRegs: true, NoFullRegs: true, NoIPModify: true, NoDirectCalls: true},
	{Name: "ftrace_regs_caller-v5.10", Arch: "arm64", Role: Entry, Model: "v5.5-v5.19 (WITH_REGS, full pt_regs, ftrace_graph_caller)",
		File: "arm64/ftrace_regs_v5.10.S", Symbol: "ftrace_regs_caller", Claims: arm64PtAllSlots, Kernel: true,
		Pair: "rth-legacy", Graph: GraphViaCaller, PtRegs: true, NoDirectCalls: true},
	// The -pg/_mcount era (v4.19-v5.4): arch/arm64/kernel/entry-ftrace.S
	// v5.0 (figozhang/runninglinuxkernel_5.0@875e3166701d) and v4.19, the
	// DYNAMIC_FTRACE branch without WITH_REGS; the callbacks get no
	// registers, the graph entry is ftrace_graph_caller.
	{Name: "ftrace_caller-v5.0", Arch: "arm64", Role: Entry, Model: "v5.0-v5.4 (-pg, _mcount, prepare_ftrace_return(ip, &lr, fp))",
		File: "arm64/mcount_v5.0.S", Symbol: "ftrace_caller", Kernel: true,
		Pair: "rth-legacy", Graph: GraphViaCaller, Pg: true, NoFullRegs: true, NoIPModify: true, NoDirectCalls: true},
	{Name: "ftrace_caller-v4.19", Arch: "arm64", Role: Entry, Model: "v4.19-v4.20 (-pg, _mcount, prepare_ftrace_return(&lr, ip, fp))",
		File: "arm64/mcount_v5.0.S", Symbol: "ftrace_caller", Defines: arm64PgV419, Kernel: true, PrepareParentFirst: true,
		Pair: "rth-legacy", Graph: GraphViaCaller, Pg: true, NoFullRegs: true, NoIPModify: true, NoDirectCalls: true},
	{Name: "ftrace_caller-v5.0-wrong-parent", Arch: "arm64", Role: Entry, Model: "twin: ftrace_graph_caller passes its own saved lr (x29 + 8) as parent",
		File: "arm64/mcount_v5.0.S", Symbol: "ftrace_caller", Defines: arm64PgWrongParent,
		Bug: "prepare_ftrace_return hooks ftrace_caller's own return, not the traced function's", NoReturn: true, Pair: "rth-legacy",
		Graph: GraphViaCaller, Pg: true, NoFullRegs: true, NoIPModify: true, NoDirectCalls: true},
	{Name: "ftrace_caller-v5.0-wrong-fp", Arch: "arm64", Role: Entry, Model: "twin: ftrace_graph_caller passes the traced function's fp, not its caller's",
		File: "arm64/mcount_v5.0.S", Symbol: "ftrace_caller", Defines: arm64PgWrongFP,
		Bug: "frame_pointer is the traced function's: return_to_handler's x29 does not match it (FP test)", NoReturn: true, Pair: "rth-legacy",
		Graph: GraphViaCaller, Pg: true, NoFullRegs: true, NoIPModify: true, NoDirectCalls: true},

	// ---- arm64 exit ----
	{Name: "rth-legacy", Arch: "arm64", Role: Exit, Model: "<= v6.4 (x0 = x29)", File: "arm64/rth_legacy.S",
		Symbol: "return_to_handler", Kernel: true, Pair: "ftrace_caller-v5.10", ExitABI: ExitLegacy},
	{Name: "rth-retval", Arch: "arm64", Role: Exit, Model: "v6.5-v6.13 (fgraph_ret_regs, 80 bytes)", File: "arm64/rth_retval.S",
		Symbol: "return_to_handler", Claims: arm64RetSlots, Kernel: true, Pair: "ftrace_caller", ExitABI: ExitRetRegs},
	{Name: "rth-v7-draft", Arch: "arm64", Role: Exit, Model: "rejected v7 25/36, Feb 2024 (x8, x9 as lr, x10 as sp into ftrace_regs)",
		File: "arm64/rth_v7_draft.S", Symbol: "return_to_handler",
		Claims: append(append([]string{}, arm64ArgSlots...), "fp", "lr", "sp"),
		Bug:    "stores the scratch x10 as sp (and x9 as lr): sp holds no stack pointer", Pair: "ftrace_caller", ExitABI: ExitFregs},
	{Name: "rth-merged", Arch: "arm64", Role: Exit, Model: "v6.14+ (fgraph: Replace fgraph_ret_regs with ftrace_regs)",
		File: "arm64/rth_merged.S", Symbol: "return_to_handler", Claims: arm64RetSlots, Kernel: true,
		Pair: "ftrace_caller", ExitABI: ExitFregs},

	// ---- riscv64 entry ----
	// arch_ftrace_get_regs is NULL with WITH_ARGS (arch/riscv/include/asm/ftrace.h
	// v6.11+) and a kprobe on an ftrace site gets no regs: no user asks
	// for a full pt_regs (NoFullRegs).
	{Name: "ftrace_caller", Arch: "riscv64", Role: Entry, Model: "v6.11-v6.15 (WITH_ARGS, direct calls through t1; 7caa9765465f)",
		File: "riscv64/ftrace_caller.S", Symbol: "ftrace_caller", Defines: riscvArgsFP, Claims: riscvCallerSlots, Kernel: true,
		Pair: "rth-fixed", Graph: GraphViaOps, NoFullRegs: true},

	// ---- riscv64 exit ----
	{Name: "rth-retval", Arch: "riscv64", Role: Exit, Model: "v6.5-v6.13 (fgraph_ret_regs, 32 bytes; b97aec082b51)",
		File: "riscv64/rth_retval.S", Symbol: "return_to_handler", Claims: riscvRetSlots, Kernel: true,
		Pair: "ftrace_caller", ExitABI: ExitRetRegs},
	{Name: "rth-v6.14", Arch: "riscv64", Role: Exit, Model: "v6.14 (a3ed4157b7d8: an 80-byte block with a0/a1 at pt_regs indices)",
		File: "riscv64/rth_v6.14.S", Symbol: "return_to_handler", Claims: []string{"ra"}, Kernel: true,
		Bug: "a0 and a1 are stored at and above the entry sp (the caller's frame) and the block is not a struct __arch_ftrace_regs: ftrace_return_to_handler reads unwritten FREGS_S0/FREGS_A0 (fixed by 67a5ba8f742f)",
		// The FP test fails ("Bad frame pointer"): the C side returns
		// panic, never the caller.
		NoReturn: true, Pair: "ftrace_caller", ExitABI: ExitFregs},
	{Name: "rth-fixed", Arch: "riscv64", Role: Exit, Model: "v6.14-stable, v6.15+ (67a5ba8f742f: the FREGS_* block)",
		File: "riscv64/rth_fixed.S", Symbol: "return_to_handler", Claims: riscvFixedSlots, Kernel: true,
		// Computed from the layout (reference riscv64.md "return_to_handler"
		// D) and found by the frame-record check: s0 = the block's top,
		// but the record the unwinder reads at s0 - 16 (struct stackframe,
		// arch/riscv/kernel/stacktrace.c) is the a7 slot and the padding,
		// which the fix never writes.
		Bug:  "s0 points at no frame record: s0-16 and s0-8 are the unwritten a7 slot and padding of the block, so a stack walk from ftrace_return_to_handler loses the caller",
		Pair: "ftrace_caller", ExitABI: ExitFregs},
}

// riscv64 slot sets: struct pt_regs as the WITH_REGS entries fill it
// (every register, not status/badaddr/cause/orig_a0), the v6.8-v6.10
// ftrace_caller's part of it (SAVE_ABI_REGS 0 with FRAME_POINTER), and
// what arch_rethook_trampoline writes (no epc, no sp).
var (
	riscvPtAllSlots = append(append([]string{"epc", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1"}, riscvArgSlots...),
		"s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6")
	riscvPtCallerSlots = append([]string{"epc", "ra", "s0"}, riscvArgSlots...)
	riscvRethookSlots  = riscvPtAllSlots[3:]
	// what a distribution build of the WITH_REGS files defines
	// (kernel/riscv64.go riscvBase, riscvRegs, riscvDirect).
	riscvRegsDefs   = map[string]string{"CONFIG_FUNCTION_GRAPH_TRACER": "", "CONFIG_FRAME_POINTER": "", "CONFIG_DYNAMIC_FTRACE_WITH_REGS": ""}
	riscvDirectDefs = map[string]string{"CONFIG_FUNCTION_GRAPH_TRACER": "", "CONFIG_FRAME_POINTER": "", "CONFIG_DYNAMIC_FTRACE_WITH_REGS": "",
		"CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS": ""}
	riscvFPDefs   = map[string]string{"CONFIG_FUNCTION_GRAPH_TRACER": "", "CONFIG_FRAME_POINTER": ""}
	rethookDropRV = map[string]string{"RETHOOK_DROP_S1": ""}
	riscvNoA1     = map[string]string{"CONFIG_FUNCTION_GRAPH_TRACER": "", "CONFIG_FRAME_POINTER": "", "RTH_LEGACY_NO_A1": ""}
	// what a distribution build of v6.16's mcount-dyn.S defines
	// (kernel/riscv64.go riscvBase, riscvArgs, riscvCallOps, riscvDirect),
	// and the twins of riscv64/ftrace_caller_v6.16.S.
	riscvCallOpsDefs = map[string]string{"CONFIG_FUNCTION_GRAPH_TRACER": "", "CONFIG_FRAME_POINTER": "",
		"CONFIG_DYNAMIC_FTRACE_WITH_ARGS": "", "CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS": "", "CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS": ""}
	riscvOpsAt8 = withDefine(riscvCallOpsDefs, "TWIN_OPS_AT_8")
	riscvNoRA   = withDefine(riscvCallOpsDefs, "TWIN_NO_RA")
	riscvNoT0   = withDefine(riscvCallOpsDefs, "TWIN_NO_T0")
)

// withDefine is a copy of defs with name defined.
func withDefine(defs map[string]string, name string) map[string]string {
	out := map[string]string{name: ""}
	for k, v := range defs {
		out[k] = v
	}
	return out
}

// riscvEraVariants are the riscv64 entries of v5.11-v6.10, the frame
// pointer return_to_handler and arch_rethook_trampoline (trampolines/
// riscv64, written from the kernel's steps; shared/reference/riscv64.md).
// The v5.11-v6.7 ftrace_caller keeps an ABI block, no pt_regs: only ops
// without SAVE_REGS (no registers, no ip change) come there
// (kernel/trace/ftrace.c ftrace_get_addr_new: FTRACE_FL_REGS selects
// FTRACE_REGS_ADDR), hence NoFullRegs and NoIPModify; so for the
// v6.8-v6.10 ftrace_caller's partial pt_regs (arm64 v6.1's rule).
var riscvEraVariants = []Variant{
	// v5.11-v6.2: the 16-byte ra-based site (ftrace.SiteForm "ra"). No
	// live patching: arch/riscv/Kconfig of v5.15 (potatogeek/
	// kernel-a34x-permissiver@a1cd818d9681, blob 20bc4b8c13b9) selects no
	// HAVE_LIVEPATCH and sources no kernel/livepatch/Kconfig, whose
	// LIVEPATCH depends on HAVE_LIVEPATCH (NoLivePatch).
	{Name: "ftrace_caller-v6.2", Arch: "riscv64", Role: Entry, Model: "v5.11-v6.2 (ra-based 16-byte site, ABI block, ftrace_graph_call)",
		File: "riscv64/ftrace_regs_v6.2.S", Symbol: "ftrace_caller", Defines: riscvRegsDefs, Kernel: true, Site: SiteRA,
		Bug:  "sp is 8 bytes off 16-byte alignment between its two sp adjustments (8 onto the parent word, then 72): an interrupt there runs on a misaligned stack (the 8-byte t0 site of 6724a76cff85, v6.3, lowers sp by 80 at once)",
		Pair: "rth-legacy-no-a1", Graph: GraphViaCaller, PtRegs: true, NoRegs: true, NoFullRegs: true, NoIPModify: true, NoDirectCalls: true,
		NoLivePatch: true},
	{Name: "ftrace_regs_caller-v6.2", Arch: "riscv64", Role: Entry, Model: "v5.11-v6.2 (ra-based 16-byte site, full pt_regs, ftrace_graph_regs_call)",
		File: "riscv64/ftrace_regs_v6.2.S", Symbol: "ftrace_regs_caller", Defines: riscvRegsDefs, Claims: riscvPtAllSlots, Kernel: true, Site: SiteRA,
		Bug: "regs->sp is the trampoline's lowered sp (entry sp - 296, the entry sp is stored from v6.11, 7caa9765465f); sp is 8 bytes off 16-byte alignment at the calls into C; " +
			"PT_EPC and then the whole pt_regs lie below sp while sp is raised to reach the parent word, so an interrupt there overwrites them (the 8-byte t0 site of 6724a76cff85, v6.3, has neither)",
		Pair: "rth-legacy-no-a1", Graph: GraphViaCaller, PtRegs: true, NoDirectCalls: true, NoLivePatch: true},
	{Name: "ftrace_caller-v6.7", Arch: "riscv64", Role: Entry, Model: "v6.3-v6.7 (t0-based site, ABI block, ftrace_graph_call)",
		File: "riscv64/ftrace_regs_v6.7.S", Symbol: "ftrace_caller", Defines: riscvRegsDefs, Kernel: true, Site: SiteT0,
		Pair: "rth-legacy", Graph: GraphViaCaller, PtRegs: true, NoRegs: true, NoFullRegs: true, NoIPModify: true, NoDirectCalls: true},
	{Name: "ftrace_regs_caller-v6.7", Arch: "riscv64", Role: Entry, Model: "v6.3-v6.7 (t0-based site, full pt_regs, ftrace_graph_regs_call)",
		File: "riscv64/ftrace_regs_v6.7.S", Symbol: "ftrace_regs_caller", Defines: riscvRegsDefs, Claims: riscvPtAllSlots, Kernel: true, Site: SiteT0,
		Bug:  "regs->sp is the trampoline's lowered sp (entry sp - 288), not the traced function's (the entry sp is stored from v6.11, 7caa9765465f)",
		Pair: "rth-legacy", Graph: GraphViaCaller, PtRegs: true, NoDirectCalls: true},
	{Name: "ftrace_caller-v6.10", Arch: "riscv64", Role: Entry, Model: "v6.8-v6.10 (partial pt_regs, ftrace_graph_func)",
		File: "riscv64/ftrace_regs_v6.10.S", Symbol: "ftrace_caller", Defines: riscvDirectDefs, Claims: riscvPtCallerSlots, Kernel: true, Site: SiteT0,
		Pair: "rth-retval", Graph: GraphViaOps, PtRegs: true, NoFullRegs: true, NoIPModify: true},
	{Name: "ftrace_regs_caller-v6.10", Arch: "riscv64", Role: Entry, Model: "v6.8-v6.10 (full pt_regs, ftrace_graph_func, direct calls through t1)",
		File: "riscv64/ftrace_regs_v6.10.S", Symbol: "ftrace_regs_caller", Defines: riscvDirectDefs, Claims: riscvPtAllSlots, Kernel: true, Site: SiteT0,
		Bug:  "regs->sp is the trampoline's lowered sp (entry sp - 288), not the traced function's (the entry sp is stored from v6.11, 7caa9765465f)",
		Pair: "rth-retval", Graph: GraphViaOps, PtRegs: true},
	// v6.16 (torvalds/linux@a7bee4e7f780): the jalr-only site, the ops
	// from the literal before the function, direct calls through
	// ops->direct_call, the v6.16 struct __arch_ftrace_regs; the registry
	// partner of the v6.16+ model, and its twins.
	{Name: "ftrace_caller-v6.16", Arch: "riscv64", Role: Entry, Model: "v6.16+ (jalr-only site, CALL_OPS, direct calls through ops->direct_call; b2137c3b6d7a, b21cdb9523e5)",
		File: "riscv64/ftrace_caller_v6.16.S", Symbol: "ftrace_caller", Defines: riscvCallOpsDefs, Claims: riscvCallerSlots, Kernel: true,
		Site: SiteJalr, Fregs: regs.RISCV64FregsV616, Pair: "rth-fixed", Graph: GraphViaOps, NoFullRegs: true},
	{Name: "ftrace_caller-v6.16-ops-at-8", Arch: "riscv64", Role: Entry, Model: "twin: the ops literal read at t0 - 8 (the call site's own words)",
		File: "riscv64/ftrace_caller_v6.16.S", Symbol: "ftrace_caller", Defines: riscvOpsAt8, Claims: riscvCallerSlots,
		Bug:  "the ops pointer is read from the auipc/jalr words of the call site, not from the literal before the function",
		Site: SiteJalr, Fregs: regs.RISCV64FregsV616, NoReturn: true, Pair: "rth-fixed", Graph: GraphViaOps, NoFullRegs: true},
	{Name: "ftrace_caller-v6.16-no-ra", Arch: "riscv64", Role: Entry, Model: "twin: ra not reloaded after op->func",
		File: "riscv64/ftrace_caller_v6.16.S", Symbol: "ftrace_caller", Defines: riscvNoRA, Claims: riscvCallerSlots,
		Bug:  "ra is left as the jalr to op->func set it (inside ftrace_caller), not the traced function's return address",
		Site: SiteJalr, Fregs: regs.RISCV64FregsV616, NoReturn: true, Pair: "rth-fixed", Graph: GraphViaOps, NoFullRegs: true},
	{Name: "ftrace_caller-v6.16-no-t0", Arch: "riscv64", Role: Entry, Model: "twin: t0 not reloaded from fregs->epc after op->func",
		File: "riscv64/ftrace_caller_v6.16.S", Symbol: "ftrace_caller", Defines: riscvNoT0, Claims: riscvCallerSlots,
		Bug:  "t0 is whatever op->func left in it (a volatile register) and ignores a live patch's fregs->epc: \"jr t0\" goes there",
		Site: SiteJalr, Fregs: regs.RISCV64FregsV616, NoReturn: true, Pair: "rth-fixed", Graph: GraphViaOps, NoFullRegs: true},
	{Name: "rth-legacy", Arch: "riscv64", Role: Exit, Model: "<= v6.4 (a0 = s0, the frame pointer)", File: "riscv64/rth_legacy.S",
		Symbol: "return_to_handler", Defines: riscvFPDefs, Kernel: true, Pair: "ftrace_caller-v6.7", ExitABI: ExitLegacy},
	{Name: "rth-legacy-no-a1", Arch: "riscv64", Role: Exit, Model: "v5.x (a1 neither kept nor restored, the jump through a1)", File: "riscv64/rth_legacy.S",
		Symbol: "return_to_handler", Defines: riscvNoA1, Kernel: true, Bug: "a1, the upper half of a 128-bit result, is lost",
		Pair: "ftrace_caller-v6.2", ExitABI: ExitLegacy},
	// ---- riscv64 arch_rethook_trampoline (fprobe on rethook, v6.2-v6.10) ----
	{Name: "rethook", Arch: "riscv64", Role: Rethook, Model: "v6.2-v6.10 (arch/riscv/kernel/probes/rethook_trampoline.S)",
		File: "riscv64/rethook.S", Symbol: "arch_rethook_trampoline", Claims: riscvRethookSlots, Kernel: true,
		Bug:  "regs->sp (PT_SP) is never written: a handler reading the pt_regs' stack pointer gets a stale word (the file saves no sp from b57c2f124098 to torvalds/linux@03c11eb3b16d)",
		Pair: "ftrace_regs_caller-v6.10", ExitABI: ExitRethook},
	{Name: "rethook-drop-s1", Arch: "riscv64", Role: Rethook, Model: "twin: rethook without s1 in pt_regs",
		File: "riscv64/rethook.S", Symbol: "arch_rethook_trampoline", Defines: rethookDropRV, Claims: riscvRethookSlots,
		Bug: "s1 is neither saved nor reloaded", Pair: "ftrace_regs_caller-v6.10", ExitABI: ExitRethook},
	{Name: "rethook-skip-callback", Arch: "riscv64", Role: Rethook, Model: "twin: rethook that never calls arch_rethook_trampoline_callback",
		File: "riscv64/rethook.S", Symbol: "arch_rethook_trampoline", Defines: rethookSkip, Claims: riscvRethookSlots,
		Bug: "the callback is never called", NoReturn: true, Pair: "ftrace_regs_caller-v6.10", ExitABI: ExitRethook},
	{Name: "rethook-unbalanced", Arch: "riscv64", Role: Rethook, Model: "twin: rethook releasing 16 bytes too few",
		File: "riscv64/rethook.S", Symbol: "arch_rethook_trampoline", Defines: rethookUnbalance, Claims: riscvRethookSlots,
		Bug: "the stack is left 16 bytes lower", Pair: "ftrace_regs_caller-v6.10", ExitABI: ExitRethook},
}

func init() { Variants = append(Variants, riscvEraVariants...) }

// Current is the kernel's current variant per arch and role: what a
// user's file is paired with.
var Current = map[string]map[Role]string{
	"x86_64":  {Entry: "ftrace_caller", Exit: "rth-fixed"},
	"s390x":   {Entry: "ftrace_caller", Exit: "rth-merged"},
	"arm64":   {Entry: "ftrace_caller", Exit: "rth-merged"},
	"riscv64": {Entry: "ftrace_caller", Exit: "rth-fixed"},
}

// Workload is a traced function of workloads/<arch>.S.
type Workload struct {
	Name   string
	Arch   string // "" = every arch
	Symbol string
	Doc    string
}

// Workloads is the workload table; their semantics (arguments, expected
// results) are in package harness.
var Workloads = []Workload{
	{Name: "add", Symbol: "add", Doc: "two-argument add"},
	{Name: "add_ibt", Arch: "x86_64", Symbol: "add_ibt", Doc: "add behind endbr64 (the call site at +4)"},
	{Name: "add_bti", Arch: "arm64", Symbol: "add_bti", Doc: "add behind bti c (the call site at +8)"},
	{Name: "six", Symbol: "six", Doc: "six arguments (s390x: the sixth on the stack)"},
	{Name: "ret128", Arch: "x86_64", Symbol: "ret128", Doc: "a 128-bit return in rax:rdx"},
	{Name: "ret128", Arch: "arm64", Symbol: "ret128", Doc: "a 128-bit return in x0:x1"},
	{Name: "ret128", Arch: "riscv64", Symbol: "ret128", Doc: "a 128-bit return in a0:a1"},
	{Name: "ret16", Arch: "s390x", Symbol: "ret16", Doc: "a 16-byte struct returned through memory (buffer in r2)"},
	{Name: "callee_saved", Symbol: "callee_saved", Doc: "uses and restores the callee-saved registers"},
	{Name: "fib", Symbol: "fib", Doc: "recursion, every level traced"},
	{Name: "tail", Symbol: "tail", Doc: "a tail call into another traced function"},
	{Name: "chain", Symbol: "chain", Doc: "a 130-deep chain of traced calls"},
	{Name: "fprobe_selftest_target", Symbol: "fprobe_selftest_target", Doc: "v / 3 (lib/test_fprobe.c target)"},
	{Name: "fprobe_selftest_target2", Symbol: "fprobe_selftest_target2", Doc: "v / 3 + 1 (lib/test_fprobe.c target2)"},
	{Name: "klp_target", Symbol: "klp_target", Doc: "a + b; live-patched (scenarios with a live patch) to klp_target_new = a + b + 0x6b6c70"},
	{Name: "fei_target", Symbol: "fei_target", Doc: "a + b; an error-injection kprobe (scenarios with one) makes it return -ENOMEM unrun"},
}
