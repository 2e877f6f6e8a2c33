package kernel

import (
	"regexp"
	"strings"

	"trampemu/ftrace"
	"trampemu/regs"
	"trampemu/trampolines"
)

// riscv64 options every era of a distribution kernel (Debian, Fedora,
// Ubuntu riscv64) builds mcount-dyn.S and mcount.S with (arch/riscv/Kconfig,
// kernel/trace/Kconfig): dynamic ftrace on -fpatchable-function-entry
// (v5.11+, afc76b8b8011), the graph tracer, frame pointers
// (arch/riscv/Kconfig selects ARCH_WANT_FRAME_POINTERS; with
// FUNCTION_GRAPH_TRACER arch/riscv/include/asm/ftrace.h then defines
// HAVE_FUNCTION_GRAPH_FP_TEST), gcc.
var riscvBase = yes("CONFIG_RISCV", "CONFIG_64BIT", "CONFIG_FUNCTION_TRACER", "CONFIG_DYNAMIC_FTRACE",
	"CONFIG_FUNCTION_GRAPH_TRACER", "CONFIG_FRAME_POINTER", "CONFIG_CC_IS_GCC")

var (
	// v5.11 "riscv: Using PATCHABLE_FUNCTION_ENTRY instead of MCOUNT"
	// (afc76b8b8011): arch/riscv/Kconfig "select
	// HAVE_DYNAMIC_FTRACE_WITH_REGS if HAVE_DYNAMIC_FTRACE".
	riscvRegs = yes("CONFIG_DYNAMIC_FTRACE_WITH_REGS", "CONFIG_HAVE_DYNAMIC_FTRACE_WITH_REGS")
	// v6.8 "riscv: ftrace: Add DYNAMIC_FTRACE_WITH_DIRECT_CALLS support"
	// (196c79f19a92, Song Shuai's series).
	riscvDirect = yes("CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS", "CONFIG_HAVE_DYNAMIC_FTRACE_WITH_DIRECT_CALLS")
	// v6.11 "ftrace: riscv: move from REGS to ARGS" (7caa9765465f):
	// WITH_ARGS replaces WITH_REGS.
	riscvArgs = yes("CONFIG_DYNAMIC_FTRACE_WITH_ARGS", "CONFIG_HAVE_DYNAMIC_FTRACE_WITH_ARGS")
	// v6.16: "riscv: ftrace: support direct call using call_ops"
	// (b21cdb9523e5) and the CALL_OPS patch before it: arch/riscv/Kconfig
	// "select HAVE_DYNAMIC_FTRACE_WITH_CALL_OPS if (DYNAMIC_FTRACE_WITH_ARGS
	// && !CFI_CLANG)", direct calls only with it.
	riscvCallOps = yes("CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS", "CONFIG_HAVE_DYNAMIC_FTRACE_WITH_CALL_OPS")
	// v6.5 "riscv: ftrace: Enable HAVE_FUNCTION_GRAPH_RETVAL" (b97aec082b51);
	// v6.14 HAVE_FUNCTION_GRAPH_FREGS (a3ed4157b7d8).
	riscvRetval = yes("CONFIG_FUNCTION_GRAPH_RETVAL", "CONFIG_HAVE_FUNCTION_GRAPH_RETVAL")
	riscvFregs  = yes("CONFIG_HAVE_FUNCTION_GRAPH_FREGS")
)

// riscv64 registry variants each era's files pair with.
const (
	// the v5.11-v6.2 entries of the ra-based site (ftrace.SiteForm "ra")
	riscvEntryE1 = "ftrace_caller-v6.2"
	riscvEntryE2 = "ftrace_caller-v6.7"
	riscvEntryE3 = "ftrace_caller-v6.10"
	riscvEntryE4 = "ftrace_caller"
	riscvEntryE5 = "ftrace_caller-v6.16"
	riscvExitFP  = "rth-legacy"
	// the v5.x return_to_handler that loses a1 (kernel/riscv64_bugs.go
	// riscvRthA1Lost)
	riscvExitFPNoA1 = "rth-legacy-no-a1"
	riscvExitRet    = "rth-retval"
	riscvExitFixed  = "rth-fixed"
)

// riscvModels are the eras of arch/riscv/kernel/mcount-dyn.S (the entries)
// and mcount.S (return_to_handler) from patchable function entry on
// (shared/reference/riscv64.md "Eras"): the call site (v5.11 ra-based 16
// bytes, v6.3 t0-based 8 bytes, v6.16 jalr-only), the graph entry
// (ftrace_graph_call patched to prepare_ftrace_return up to v6.7, the
// ftrace_graph_func ops from v6.8), what the callbacks get (a pt_regs from
// ftrace_regs_caller, and from both entries in v6.8-v6.10; struct
// __arch_ftrace_regs from v6.11), and what return_to_handler passes.
// The -pg _mcount code of v4.16-v5.10 is not modelled.
var riscvModels = []*Model{
	// afc76b8b8011 (v5.11) to 6724a76cff85 (v6.3): the 16-byte ra-based
	// site, ftrace_caller's 72+8-byte block (regs: the block, read by no
	// user: ops without SAVE_REGS), ftrace_regs_caller's pt_regs
	// (potatogeek/kernel-a34x-permissiver@a1cd818d9681, v5.15.41, blob
	// d171eca623b6). No live patching: the v5.15 arch/riscv/Kconfig
	// (blob 20bc4b8c13b9) selects no HAVE_LIVEPATCH and sources no
	// kernel/livepatch/Kconfig. The exit partner is the v5.x
	// return_to_handler (mcount.S of the same commit, blob 6d462681c9c0:
	// "mv a1, a0; jalr a1").
	{Name: "v5.11-v6.2", Arch: "riscv64", From: Version{5, 11}, To: Version{6, 2}, PtRegs: true, NoLivePatch: true,
		Sites: []trampolines.CallSite{trampolines.SiteRA},
		Graph: trampolines.GraphViaCaller, Prepare: ftrace.PrepareParentIPFP, ExitABI: trampolines.ExitLegacy,
		Partner: riscvPartner(riscvEntryE1, riscvExitFPNoA1),
		Config:  merge(riscvBase, riscvRegs),
		Doc:     "ra-based 16-byte call site (sd ra; auipc ra; jalr ra; ld ra); ftrace_graph_call patched to prepare_ftrace_return(&parent, ip, s0); return_to_handler passes s0"},
	// 6724a76cff85 (v6.3): the t0-based site (fusaty/freax@d02cfbb5ae56;
	// Debian's 6.1.192 carries it as a backport).
	{Name: "v6.3-v6.4", Arch: "riscv64", From: Version{6, 3}, To: Version{6, 4}, PtRegs: true,
		Sites: []trampolines.CallSite{trampolines.SiteT0},
		Graph: trampolines.GraphViaCaller, Prepare: ftrace.PrepareParentIPFP, ExitABI: trampolines.ExitLegacy,
		Partner: riscvPartner(riscvEntryE2, riscvExitFP),
		Config:  merge(riscvBase, riscvRegs),
		Doc:     "t0-based call site (auipc t0; jalr t0); ftrace_graph_call patched to prepare_ftrace_return; return_to_handler passes s0"},
	{Name: "v6.5-v6.7", Arch: "riscv64", From: Version{6, 5}, To: Version{6, 7}, PtRegs: true,
		Sites: []trampolines.CallSite{trampolines.SiteT0},
		Graph: trampolines.GraphViaCaller, Prepare: ftrace.PrepareParentIPFP, ExitABI: trampolines.ExitRetRegs,
		Partner: riscvPartner(riscvEntryE2, riscvExitRet),
		Config:  merge(riscvBase, riscvRegs, riscvRetval),
		Doc:     "t0-based call site; ftrace_graph_call patched to prepare_ftrace_return; return_to_handler passes struct fgraph_ret_regs (32 bytes)"},
	// 35e61e8827ee / 196c79f19a92 (v6.8): SAVE_ABI_REGS, graph through
	// ftrace_graph_func on &regs->ra, direct calls through t1
	// (torvalds/linux@00c1d298d486, deepin-community/kernel@ba438ab304b1).
	{Name: "v6.8-v6.10", Arch: "riscv64", From: Version{6, 8}, To: Version{6, 10}, WithArgs: true, PtRegs: true,
		Sites: []trampolines.CallSite{trampolines.SiteT0},
		Graph: trampolines.GraphViaOps, ExitABI: trampolines.ExitRetRegs,
		Partner: riscvPartner(riscvEntryE3, riscvExitRet),
		Config:  merge(riscvBase, riscvRegs, riscvDirect, riscvRetval),
		Doc:     "both entries fill a pt_regs (SAVE_ABI_REGS, PT_*); graph through ftrace_graph_func; direct calls through t1; return_to_handler passes struct fgraph_ret_regs"},
	// 7caa9765465f (v6.11): struct __arch_ftrace_regs (FREGS_*)
	// (jackYoung0915/anolis-cloud-kernel@9d156be6f613, Debian 6.12).
	{Name: "v6.11-v6.13", Arch: "riscv64", From: Version{6, 11}, To: Version{6, 13}, WithArgs: true,
		Sites: []trampolines.CallSite{trampolines.SiteT0},
		Graph: trampolines.GraphViaOps, ExitABI: trampolines.ExitRetRegs,
		Partner: riscvPartner(riscvEntryE4, riscvExitRet),
		Config:  merge(riscvBase, riscvArgs, riscvDirect, riscvRetval),
		Doc:     "one ftrace_caller filling struct __arch_ftrace_regs (WITH_ARGS, FREGS_*); direct calls through t1; return_to_handler passes struct fgraph_ret_regs"},
	// a3ed4157b7d8 (v6.14): return_to_handler on ftrace_regs; its v6.14
	// block was fixed by 67a5ba8f742f (6.14-stable), the partner here.
	{Name: "v6.14-v6.15", Arch: "riscv64", From: Version{6, 14}, To: Version{6, 15}, WithArgs: true,
		Sites: []trampolines.CallSite{trampolines.SiteT0},
		Graph: trampolines.GraphViaOps, ExitABI: trampolines.ExitFregs,
		Partner: riscvPartner(riscvEntryE4, riscvExitFixed),
		Config:  merge(riscvBase, riscvArgs, riscvDirect, riscvRetval, riscvFregs),
		Doc:     "WITH_ARGS entry; return_to_handler passes struct ftrace_regs (\"function_graph: Replace fgraph_ret_regs with ftrace_regs\")"},
	// v6.16 (b2137c3b6d7a, the CALL_OPS patch, b21cdb9523e5): jalr-only
	// patching, the per-site ops literal, direct calls through the ops
	// (torvalds/linux@a7bee4e7f780); AndybnACT/linux-riscv@0413b9a60dc3 is
	// the series' draft with rec->ip at the function.
	{Name: "v6.16+", Arch: "riscv64", From: Version{6, 16}, WithArgs: true,
		Sites: []trampolines.CallSite{trampolines.SiteJalr, trampolines.SiteJalrDraft},
		Fregs: regs.RISCV64FregsV616,
		Graph: trampolines.GraphViaOps, ExitABI: trampolines.ExitFregs,
		Partner: riscvPartner(riscvEntryE5, riscvExitFixed),
		Config:  merge(riscvBase, riscvArgs, riscvCallOps, riscvDirect, riscvRetval, riscvFregs),
		Doc:     "jalr-only call site, the ops literal before the function (CALL_OPS), direct calls through ops->direct_call; return_to_handler passes struct ftrace_regs"},
}

func riscvPartner(entry, exit string) map[trampolines.Role]string {
	return map[trampolines.Role]string{trampolines.Entry: entry, trampolines.Exit: exit}
}

func init() {
	Models = append(Models, riscvModels...)
	detectors["riscv64"] = detectRISCV64
	archHooks["riscv64"] = propHooks{
		props: []string{PropSite, PropGraph, PropPrepare, PropExit, PropArgs, PropCallOps, PropDirect, PropFPTest, PropOffsets},
		exitOptions: map[trampolines.ExitABI]Config{
			trampolines.ExitLegacy:  {},
			trampolines.ExitRetRegs: riscvRetval,
			trampolines.ExitFregs:   merge(riscvRetval, riscvFregs),
		},
		fpTestWhy: "riscv64 defines HAVE_FUNCTION_GRAPH_FP_TEST with FRAME_POINTER (arch/riscv/include/asm/ftrace.h, every era): return_to_handler's s0 must match the entry's",
	}
	treeFiles["riscv64"] = "arch/riscv/kernel/mcount-dyn.S"
	treeCompanions["riscv64"] = []string{"arch/riscv/kernel/mcount.S"}
	configArch["riscv64"] = "CONFIG_RISCV"
	// BUG() is ebreak (arch/riscv/include/asm/bug.h __BUG_INSN_32).
	standIns["riscv64"] = standIn{trap: "ebreak"}
	// fprobe on ftrace_ops + rethook from "riscv: add riscv rethook
	// implementation" (b57c2f124098, v6.2) while CONFIG_FPROBE depends on
	// DYNAMIC_FTRACE_WITH_REGS (kernel/trace/Kconfig), which riscv has until
	// v6.10 (7caa9765465f moved it to WITH_ARGS in v6.11); v6.14 puts
	// fprobe on fgraph (HAVE_FUNCTION_GRAPH_FREGS, a3ed4157b7d8).
	FprobeEras = append(FprobeEras,
		FprobeEra{Arch: "riscv64", From: Version{6, 2}, To: Version{6, 10}, Design: ftrace.DesignRethook,
			Doc: "riscv rethook (b57c2f124098, v6.2) with the WITH_REGS entry"},
		FprobeEra{Arch: "riscv64", From: Version{6, 14}, Design: ftrace.DesignFgraph,
			Doc: "v6.14 fprobe on fgraph"})
}

var (
	// the option whose branch a distribution build of the file takes:
	// WITH_ARGS where the file has it (v6.11+), else WITH_REGS.
	riscvArgsIf = regexp.MustCompile(`^#\s*(ifn?def\s+|if\s+!?\s*defined\(?\s*)CONFIG_DYNAMIC_FTRACE_WITH_ARGS\b`)
	riscvRegsIf = regexp.MustCompile(`^#\s*(ifn?def\s+|if\s+!?\s*defined\(?\s*)CONFIG_DYNAMIC_FTRACE_WITH_REGS\b`)
	// the ip the entry hands the callbacks: "addi a0, ra, -N" (the
	// ra-based site and -pg) or "addi a0, t0, -N".
	riscvIPFromRA = regexp.MustCompile(`(?m)^\s*addi\s+a0\s*,\s*ra\s*,\s*-\s*([A-Za-z_0-9]+)`)
	riscvIPFromT0 = regexp.MustCompile(`(?m)^\s*addi\s+a0\s*,\s*t0\s*,\s*-\s*([A-Za-z_0-9]+)`)
	riscvCallOpsR = regexp.MustCompile(`CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS`)
	riscvCallDest = regexp.MustCompile(`\bftrace_call_dest\b`)
	riscvDirectRE = regexp.MustCompile(`\bftrace_stub_direct_tramp\b|FTRACE_OPS_DIRECT_CALL|(?m)^\s*jr\s+t1\b`)
	riscvFregsRE  = regexp.MustCompile(`\bFREGS_[A-Z0-9_]+\b`)
	riscvPtRegsRE = regexp.MustCompile(`\bPT_(EPC|RA|SP|A[0-7]|SIZE_ON_STACK)\b`)
	riscvCallRTH  = regexp.MustCompile(`\bcall\s+ftrace_return_to_handler\b`)
	riscvPassSP   = regexp.MustCompile(`(?m)^\s*(mv|move)\s+a0\s*,\s*sp\b`)
	riscvPassT6   = regexp.MustCompile(`(?m)^\s*(mv|move)\s+a0\s*,\s*t6\b`)
	// the v6.14 block of pt_regs indices: 80 bytes (ABI_SIZE_ON_STACK),
	// a0 at 10*SZREG (torvalds/linux@0410c6121529 mcount.S).
	riscvPtIdxRE = regexp.MustCompile(`\b1[01]\s*\*\s*SZREG\b|ABI_SIZE_ON_STACK`)
	riscvRetBlk  = regexp.MustCompile(`\b4\s*\*\s*SZREG\b`)
	riscvMacro   = regexp.MustCompile(`(?m)^\s*\.macro\s+([A-Za-z_][A-Za-z0-9_]*)`)
	riscvDefine  = regexp.MustCompile(`(?m)^\s*#\s*define\s+([A-Za-z_][A-Za-z0-9_]*)\s+(\S+)`)
)

// riscvEnd matches the line that ends a riscv64 function (SYM_FUNC_END,
// SYM_CODE_END, ENDPROC, END).
func riscvEnd(sym string) *regexp.Regexp {
	return compiled(`(SYM_(CODE|FUNC)_END|ENDPROC|END)\(\s*` + sym + `\s*\)`)
}

// detectRISCV64 reads arch/riscv/kernel/mcount-dyn.S and mcount.S of any
// era (shared/reference/riscv64.md "Eras", "Call site", "return_to_handler"):
//   - the branch a distribution build takes: WITH_ARGS where the file has
//     it (v6.11+), else WITH_REGS (v5.11-v6.10); the other is blanked;
//   - the call site from how ftrace_caller computes the ip: "addi a0, ra,
//     -MCOUNT_INSN_SIZE" is the -pg code (<= v5.10, not modelled), "addi
//     a0, ra, -12" the ra-based site (v5.11-v6.2), "addi a0, t0, -8" the
//     t0-based one (v6.3-v6.15; with CALL_OPS or ftrace_call_dest the
//     draft of the v6.16 series), "addi a0, t0, -MCOUNT_JALR_SIZE" the
//     jalr-only site (v6.16);
//   - ftrace_graph_call in the taken branch: graph through the patched
//     call to prepare_ftrace_return (<= v6.7); none: ftrace_graph_func;
//   - what ftrace_caller (with the macros it uses) fills: FREGS_* (v6.11+),
//     PT_* (v6.8-v6.10), neither (the ABI block of v5.11-v6.7, whose
//     ftrace_regs_caller fills a pt_regs);
//   - CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS (v6.16); ftrace_stub_direct_tramp,
//     "jr t1" or FTRACE_OPS_DIRECT_CALL (v6.8+);
//   - return_to_handler passes s0 through t6 (<= v6.4), sp over a
//     4*SZREG fgraph_ret_regs (v6.5-v6.13), sp over an 80-byte block at
//     pt_regs indices (v6.14) or over FREGS_* (67a5ba8f742f, v6.15 and
//     6.14-stable): the last two are struct ftrace_regs.
func detectRISCV64(s *source) Evidence {
	var ev Evidence
	text := s.text
	switch {
	case riscvArgsIf.MatchString(firstDirective(text, riscvArgsIf)):
		text = blankBranch(text, riscvArgsIf)
	case riscvRegsIf.MatchString(firstDirective(text, riscvRegsIf)):
		text = blankBranch(text, riscvRegsIf)
	}
	s = &source{name: s.name, text: text}
	// A file may define ftrace_regs_caller alone (the WITH_REGS entry of
	// v5.11-v6.10): it then says what ftrace_caller would.
	entry := "ftrace_caller"
	if !s.defines(entry) && s.defines("ftrace_regs_caller") {
		entry = "ftrace_regs_caller"
	}
	fcAt := s.def(entry)
	ev.Entry = fcAt >= 0
	ev.Exit = s.defines("return_to_handler")
	defs := riscvDefines(s.text)
	if ev.Entry {
		body := s.withMacros(entry, riscvEnd(entry))
		from, to := s.bodyN(entry, riscvEnd(entry), 200)
		callOps := s.find(riscvCallOpsR, 0, -1)
		dest := s.find(riscvCallDest, 0, -1)
		if at := s.find(riscvIPFromRA, from, to); at >= 0 {
			off := defs.value(riscvIPFromRA.FindStringSubmatch(s.text[at:to])[1])
			if off == "MCOUNT_INSN_SIZE" || off == "8" {
				ev.Site = trampolines.SiteMcount
				ev.decide(PropSite, "ftrace_caller is reached from the -pg _mcount call (ip = ra - MCOUNT_INSN_SIZE, v4.16-v5.10: not modelled)", s.cite(at))
			} else {
				ev.Site = trampolines.SiteRA
				ev.decide(PropSite, "ip = ra - 12: the ra-based 16-byte call site (v5.11-v6.2)", s.cite(at))
			}
		} else if at := s.find(riscvIPFromT0, from, to); at < 0 {
			at = riscvFindIn(body, riscvIPFromT0)
			if at >= 0 {
				ev.Site = riscvT0Site(defs.value(riscvIPFromT0.FindStringSubmatch(body[at:])[1]), callOps >= 0 || dest >= 0)
				ev.decide(PropSite, riscvSiteWhy(ev.Site), entry+" at "+s.at(fcAt)+", through its macros: `"+strings.TrimSpace(firstLine(body[at:]))+"`")
			}
		} else {
			ev.Site = riscvT0Site(defs.value(riscvIPFromT0.FindStringSubmatch(s.text[at:to])[1]), callOps >= 0 || dest >= 0)
			ev.decide(PropSite, riscvSiteWhy(ev.Site), s.cite(at))
		}
		graphCall := "ftrace_graph_call"
		if entry == "ftrace_regs_caller" {
			graphCall = "ftrace_graph_regs_call"
		}
		if at := s.def(graphCall); at >= 0 {
			ev.Graph = trampolines.GraphViaCaller
			ev.Prepare = ftrace.PrepareParentIPFP
			ev.decide(PropGraph, "the call at "+graphCall+" is patched to prepare_ftrace_return (<= v6.7)", s.cite(at))
			ev.decide(PropPrepare, entry+" sets a0 = &parent, a1 = ip, a2 = s0 before "+graphCall+" (<= v6.7)", s.cite(at))
		} else {
			ev.Graph = trampolines.GraphViaOps
			ev.decide(PropGraph, "no "+graphCall+": graph through ftrace_graph_func (v6.8+)", entry+" at "+s.at(fcAt)+", no "+graphCall+" in the branch a build takes")
		}
		switch {
		case entry == "ftrace_regs_caller" && riscvFindIn(body, riscvPtRegsRE) >= 0:
			ev.PtRegs = "yes"
			ev.decide(PropArgs, "ftrace_regs_caller fills a pt_regs (WITH_REGS, v5.11-v6.10)", riscvMacroCite(s, fcAt, body, riscvPtRegsRE))
		case riscvFindIn(body, riscvFregsRE) >= 0:
			ev.WithArgs, ev.PtRegs = "yes", "no"
			ev.decide(PropArgs, "ftrace_caller fills struct __arch_ftrace_regs (FREGS_*, WITH_ARGS, v6.11+)", riscvMacroCite(s, fcAt, body, riscvFregsRE))
		case riscvFindIn(body, riscvPtRegsRE) >= 0:
			ev.WithArgs, ev.PtRegs = "yes", "yes"
			ev.decide(PropArgs, "ftrace_caller fills a pt_regs (PT_*, v6.8-v6.10)", riscvMacroCite(s, fcAt, body, riscvPtRegsRE))
		default:
			if at := s.find(riscvPtRegsRE, 0, -1); at >= 0 && s.defines("ftrace_regs_caller") {
				ev.WithArgs, ev.PtRegs = "no", "yes"
				ev.decide(PropArgs, "ftrace_caller keeps an ABI block (regs for no user), ftrace_regs_caller a pt_regs (v5.11-v6.7)", s.cite(at))
			}
		}
		if callOps >= 0 {
			ev.CallOps = "yes"
			ev.decide(PropCallOps, "the ops literal before the function (CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS, v6.16)", s.cite(callOps))
		} else {
			ev.CallOps = "no"
			ev.decide(PropCallOps, "an entry without CALL_OPS code (<= v6.15)", entry+" at "+s.at(fcAt))
		}
		if at := s.find(riscvDirectRE, 0, -1); at >= 0 {
			ev.Direct = "yes"
			ev.decide(PropDirect, "a direct trampoline through t1 (ftrace_stub_direct_tramp, v6.8+)", s.cite(at))
		} else {
			ev.Direct = "no"
			ev.decide(PropDirect, "no direct-call path (<= v6.7)", entry+" at "+s.at(fcAt))
		}
	}
	if ev.Exit {
		body := s.withMacros("return_to_handler", riscvCallRTH)
		fromR, _ := s.body("return_to_handler", riscvCallRTH)
		switch {
		case riscvFindIn(body, riscvFregsRE) >= 0:
			ev.ExitABI = trampolines.ExitFregs
			ev.decide(PropExit, "return_to_handler passes sp over struct ftrace_regs (FREGS_*: 67a5ba8f742f, v6.15, 6.14-stable)", riscvMacroCite(s, fromR, body, riscvFregsRE))
		case riscvFindIn(body, riscvPassSP) >= 0 && riscvFindIn(body, riscvPtIdxRE) >= 0:
			ev.ExitABI = trampolines.ExitFregs
			ev.decide(PropExit, "return_to_handler passes sp over an 80-byte block at pt_regs indices, taken as struct ftrace_regs (v6.14, a3ed4157b7d8)", riscvMacroCite(s, fromR, body, riscvPtIdxRE))
		case riscvFindIn(body, riscvPassSP) >= 0:
			ev.ExitABI = trampolines.ExitRetRegs
			how := "an untyped block (taken as struct fgraph_ret_regs)"
			if riscvFindIn(body, riscvRetBlk) >= 0 {
				how = "a 4*SZREG struct fgraph_ret_regs"
			}
			ev.decide(PropExit, "return_to_handler passes sp over "+how+" (v6.5-v6.13)", riscvMacroCite(s, fromR, body, riscvPassSP))
		default:
			ev.ExitABI = trampolines.ExitLegacy
			where := "return_to_handler at " + s.at(fromR) + " passes no sp"
			if riscvFindIn(body, riscvPassT6) >= 0 {
				where = riscvMacroCite(s, fromR, body, riscvPassT6)
			}
			ev.decide(PropExit, "return_to_handler passes s0, the frame pointer (<= v6.4)", where)
		}
	}
	return ev
}

// riscvT0Site is the site of an entry that computes ip = t0 - off.
func riscvT0Site(off string, callOps bool) trampolines.CallSite {
	switch {
	case off == "MCOUNT_JALR_SIZE" || off == "4":
		return trampolines.SiteJalr
	case callOps:
		return trampolines.SiteJalrDraft
	}
	return trampolines.SiteT0
}

func riscvSiteWhy(site trampolines.CallSite) string {
	switch site {
	case trampolines.SiteJalr:
		return "ip = t0 - MCOUNT_JALR_SIZE: the jalr-only call site, rec->ip = the jalr (v6.16)"
	case trampolines.SiteJalrDraft:
		return "ip = t0 - 8 with jalr-only patching (CALL_OPS or ftrace_call_dest): the v6.16 series' draft, rec->ip = the function"
	}
	return "ip = t0 - 8: the t0-based call site (v6.3-v6.15)"
}

// riscvDefinesT are a file's own "#define NAME VALUE" lines.
type riscvDefinesT map[string]string

func riscvDefines(text string) riscvDefinesT {
	d := riscvDefinesT{}
	for _, m := range riscvDefine.FindAllStringSubmatch(text, -1) {
		d[m[1]] = m[2]
	}
	return d
}

// value resolves a name through the file's defines (FENTRY_RA_OFFSET 12
// -> "12"); a name the file does not define is returned as it is.
func (d riscvDefinesT) value(name string) string {
	for i := 0; i < 4; i++ {
		v, ok := d[name]
		if !ok {
			break
		}
		name = v
	}
	return name
}

// withMacros returns sym's body (to end) with the text of every .macro
// of the file it invokes appended (SAVE_ABI_REGS, PREPARE_ARGS,
// SAVE_RET_ABI_STATE): what the body assembles to, as text.
func (s *source) withMacros(sym string, end *regexp.Regexp) string {
	from, to := s.bodyN(sym, end, 200)
	if from < 0 {
		return ""
	}
	body := s.text[from:to]
	macros := map[string]string{}
	for _, loc := range riscvMacro.FindAllStringSubmatchIndex(s.text, -1) {
		name := s.text[loc[2]:loc[3]]
		stop := strings.Index(s.text[loc[1]:], ".endm")
		if stop < 0 {
			continue
		}
		macros[name] = s.text[loc[0] : loc[1]+stop]
	}
	var b strings.Builder
	b.WriteString(body)
	seen := map[string]bool{}
	for _, l := range strings.Split(body, "\n") {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		name := strings.TrimSuffix(f[0], ",")
		if m, ok := macros[name]; ok && !seen[name] {
			seen[name] = true
			b.WriteString("\n" + m)
		}
	}
	return b.String()
}

// riscvFindIn is the offset of re's first match in text, or -1.
func riscvFindIn(text string, re *regexp.Regexp) int {
	if loc := re.FindStringIndex(text); loc != nil {
		return loc[0]
	}
	return -1
}

// riscvMacroCite cites re's first match in the file after sym's place
// (from), where its body or a macro it uses has it.
func riscvMacroCite(s *source, from int, body string, re *regexp.Regexp) string {
	at := riscvFindIn(body, re)
	if at < 0 {
		return ""
	}
	line := strings.TrimSpace(firstLine(body[at:]))
	if off := s.findStr(line, 0, -1); off >= 0 {
		line = strings.TrimSpace(firstLine(s.text[strings.LastIndexByte(s.text[:off], '\n')+1:]))
		return "`" + strings.Join(strings.Fields(line), " ") + "` (" + s.at(off) + ", used from " + s.at(from) + ")"
	}
	return "`" + line + "`"
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// firstDirective returns the first line of text that open matches
// (trimmed), or "".
func firstDirective(text string, open *regexp.Regexp) string {
	for _, l := range strings.Split(text, "\n") {
		if t := strings.TrimSpace(l); open.MatchString(t) {
			return t
		}
	}
	return ""
}

// blankBranch blanks, in every preprocessor conditional on the option
// open matches, the branch a build with the option set does not assemble
// (the #else of "#ifdef X", the body of "#ifndef X" up to its #else),
// keeping line numbers.
func blankBranch(src string, open *regexp.Regexp) string {
	lines := strings.SplitAfter(src, "\n")
	drop := make([]bool, len(lines))
	for i := 0; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if !open.MatchString(t) {
			continue
		}
		negated := strings.HasPrefix(strings.TrimSpace(strings.TrimPrefix(t, "#")), "ifndef") || strings.Contains(t, "!")
		skipping := negated
		depth := 0
		for j := i + 1; j < len(lines); j++ {
			d := directiveName(strings.TrimSpace(lines[j]))
			switch {
			case strings.HasPrefix(d, "if"):
				depth++
			case d == "endif" && depth == 0:
				j = len(lines)
				continue
			case d == "endif":
				depth--
			case (d == "else" || d == "elif") && depth == 0:
				skipping = !negated
				continue
			}
			if j < len(lines) {
				drop[j] = drop[j] || skipping
			}
		}
	}
	var b strings.Builder
	for i, l := range lines {
		switch {
		case !drop[i]:
			b.WriteString(l)
		case strings.HasSuffix(l, "\n"):
			b.WriteByte('\n')
		}
	}
	return b.String()
}
