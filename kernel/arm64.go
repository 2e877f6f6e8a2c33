package kernel

import (
	"regexp"
	"strings"

	"trampemu/ftrace"
	"trampemu/trampolines"
)

// arm64 options every era of a distribution kernel (Debian, Fedora, Ubuntu
// arm64) builds entry-ftrace.S with (arch/arm64/Kconfig, kernel/trace/Kconfig;
// /work/kernel-files/NOTES.md section 5): dynamic ftrace through
// -fpatchable-function-entry=2 (gcc 8+), the graph tracer, frame pointers
// (forced on arm64: arch/arm64/Kconfig selects ARCH_WANT_FRAME_POINTERS and
// FRAME_POINTER is def_bool y there), BTI in the kernel (ARM64_BTI_KERNEL,
// v5.8+: SYM_FUNC_START opens with "bti c", arch/arm64/include/asm/linkage.h).
var arm64Base = yes("CONFIG_ARM64", "CONFIG_64BIT", "CONFIG_FUNCTION_TRACER", "CONFIG_DYNAMIC_FTRACE",
	"CONFIG_FUNCTION_GRAPH_TRACER", "CONFIG_FRAME_POINTER", "CONFIG_ARM64_BTI_KERNEL")

var (
	// v5.5 "arm64: implement ftrace with regs" (3b23e4991fb6):
	// DYNAMIC_FTRACE_WITH_REGS when gcc has -fpatchable-function-entry.
	arm64Regs = yes("CONFIG_DYNAMIC_FTRACE_WITH_REGS", "CONFIG_HAVE_DYNAMIC_FTRACE_WITH_REGS")
	// v6.2 "arm64/ftrace: Add ftrace_regs" (26299b3f6ba2, Mark Rutland's
	// series, arm64 pull for 6.2): WITH_ARGS replaces WITH_REGS.
	arm64Args = yes("CONFIG_DYNAMIC_FTRACE_WITH_ARGS", "CONFIG_HAVE_DYNAMIC_FTRACE_WITH_ARGS")
	// v6.3 "arm64: ftrace: Add DYNAMIC_FTRACE_WITH_CALL_OPS" (baaf553d3bc3):
	// the per-site ops literal, on by default where the compiler allows it.
	arm64CallOps = yes("CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS", "CONFIG_HAVE_DYNAMIC_FTRACE_WITH_CALL_OPS")
	// v6.4 "arm64: ftrace: Add direct call support" (2aa6ac03516d):
	// selected "if DYNAMIC_FTRACE_WITH_ARGS && DYNAMIC_FTRACE_WITH_CALL_OPS"
	// (arch/arm64/Kconfig, as the context of the v7 25/36 patch shows).
	arm64Direct = yes("CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS", "CONFIG_HAVE_DYNAMIC_FTRACE_WITH_DIRECT_CALLS")
	// v6.5: HAVE_FUNCTION_GRAPH_RETVAL (3646970322464); v6.14:
	// HAVE_FUNCTION_GRAPH_FREGS (a3ed4157b7d8).
	arm64Retval = yes("CONFIG_FUNCTION_GRAPH_RETVAL", "CONFIG_HAVE_FUNCTION_GRAPH_RETVAL")
	arm64Fregs  = yes("CONFIG_HAVE_FUNCTION_GRAPH_FREGS")
)

// arm64 options of the -pg era (v4.19-v5.4): dynamic ftrace through -pg
// and recordmcount (arch/arm64/Kconfig v4.19/v5.0 selects
// HAVE_DYNAMIC_FTRACE, HAVE_FTRACE_MCOUNT_RECORD and
// HAVE_FUNCTION_GRAPH_TRACER; no DYNAMIC_FTRACE_WITH_REGS before v5.5, no
// ARM64_BTI_KERNEL before v5.8), frame pointers forced on as later.
var arm64PgBase = yes("CONFIG_ARM64", "CONFIG_64BIT", "CONFIG_FUNCTION_TRACER", "CONFIG_DYNAMIC_FTRACE",
	"CONFIG_FUNCTION_GRAPH_TRACER", "CONFIG_FRAME_POINTER")

// arm64 partners: the registry variants of trampolines/arm64.
func arm64Partner(entry, exit string) map[trampolines.Role]string {
	return map[trampolines.Role]string{trampolines.Entry: entry, trampolines.Exit: exit}
}

// arm64Models are the eras of arch/arm64/kernel/entry-ftrace.S
// (shared/reference/arm64.md "Eras"): the -pg/_mcount eras (v4.19-v5.4),
// whose callbacks get no registers, then -fpatchable-function-entry,
// handing the callbacks a pt_regs up to v6.1 and a struct ftrace_regs
// from v6.2. A v5.5+ file's -pg code (the #else of its patchable entry) is
// not what a distribution kernel of its era builds and is left out.
var arm64Models = []*Model{
	// The -pg/_mcount era: arch/arm64/kernel/entry-ftrace.S before
	// "arm64: implement ftrace with regs" (3b23e4991fb6, v5.5) is the
	// code the later files keep in the #else of the patchable entry: the
	// prologue's "bl _mcount" (a NOP at rest, "bl ftrace_caller" when
	// traced, arch/arm64/kernel/ftrace.c ftrace_make_call), an
	// ftrace_caller that pushes a frame record and hands the tracer
	// (ip, parent_ip), the NOP at ftrace_graph_call patched to "b
	// ftrace_graph_caller", and return_to_handler passing x29. v4.19
	// (libxzr/android_kernel_oneplus_sm8250@657760f398fd, Makefile
	// 4.19.121) calls prepare_ftrace_return(&lr, pc, fp); v5.0
	// (figozhang/runninglinuxkernel_5.0@875e3166701d) (pc, &lr, fp).
	{Name: "v4.19-v4.20", Arch: "arm64", From: Version{4, 19}, To: Version{4, 20}, Pg: true, NoFullRegs: true,
		Graph: trampolines.GraphViaCaller, Prepare: ftrace.PrepareParentIPFP, ExitABI: trampolines.ExitLegacy,
		Partner: arm64Partner("ftrace_caller-v4.19", "rth-legacy"),
		Config:  arm64PgBase,
		Doc:     "-pg: bl _mcount in the prologue, patched to bl ftrace_caller; the tracer gets (ip, parent_ip); ftrace_graph_caller calls prepare_ftrace_return(&lr, ip, fp); return_to_handler passes x29"},
	{Name: "v5.0-v5.4", Arch: "arm64", From: Version{5, 0}, To: Version{5, 4}, Pg: true, NoFullRegs: true,
		Graph: trampolines.GraphViaCaller, Prepare: ftrace.PrepareIPParentFP, ExitABI: trampolines.ExitLegacy,
		Partner: arm64Partner("ftrace_caller-v5.0", "rth-legacy"),
		Config:  arm64PgBase,
		Doc:     "-pg: bl _mcount in the prologue, patched to bl ftrace_caller; the tracer gets (ip, parent_ip); ftrace_graph_caller calls prepare_ftrace_return(ip, &lr, fp); return_to_handler passes x29"},
	// ftrace_graph_call (a NOP patched to "b ftrace_graph_caller",
	// arch/arm64/kernel/ftrace.c ftrace_enable_ftrace_graph_caller) is in
	// the v5.10 file (auraknighted/android_kernel_samsung_r11s@a797ccb,
	// Makefile 5.10.198) and in torvalds/linux@1136fa0c07de (a v5.17-rc
	// merge, with "bti c"); "arm64/ftrace: Make function graph use ftrace
	// directly" (Chengming Zhou, Feb 2022) replaced it with
	// ftrace_graph_func, and the v6.1 file (torvalds/linux@45aaee55afff)
	// has none. v6.0 as the first release without it is unverified: files
	// are judged by what they contain.
	{Name: "v5.5-v5.19", Arch: "arm64", From: Version{5, 5}, To: Version{5, 19}, WithArgs: true, PtRegs: true,
		Graph: trampolines.GraphViaCaller, Prepare: ftrace.PrepareIPParentFP, ExitABI: trampolines.ExitLegacy,
		Partner: arm64Partner("ftrace_caller-v5.10", "rth-legacy"),
		Config:  merge(arm64Base, arm64Regs),
		Doc:     "pt_regs entries ftrace_caller/ftrace_regs_caller; the NOP at ftrace_graph_call is patched to b ftrace_graph_caller; return_to_handler passes x29"},
	{Name: "v6.0-v6.1", Arch: "arm64", From: Version{6, 0}, To: Version{6, 1}, WithArgs: true, PtRegs: true,
		Graph: trampolines.GraphViaOps, ExitABI: trampolines.ExitLegacy,
		Partner: arm64Partner("ftrace_caller-v6.1", "rth-legacy"),
		Config:  merge(arm64Base, arm64Regs),
		Doc:     "pt_regs entries; graph through the ftrace_graph_func ops; return_to_handler passes x29"},
	{Name: "v6.2", Arch: "arm64", From: Version{6, 2}, To: Version{6, 2}, WithArgs: true,
		Graph: trampolines.GraphViaOps, ExitABI: trampolines.ExitLegacy,
		Partner: arm64Partner("ftrace_caller-v6.2", "rth-legacy"),
		Config:  merge(arm64Base, arm64Args),
		Doc:     "one ftrace_caller filling struct ftrace_regs (WITH_ARGS); return_to_handler passes x29"},
	{Name: "v6.3", Arch: "arm64", From: Version{6, 3}, To: Version{6, 3}, WithArgs: true,
		Graph: trampolines.GraphViaOps, ExitABI: trampolines.ExitLegacy,
		Partner: arm64Partner("ftrace_caller-v6.3", "rth-legacy"),
		Config:  merge(arm64Base, arm64Args, arm64CallOps),
		Doc:     "ftrace_caller takes the ops from the call site's literal (CALL_OPS); return_to_handler passes x29"},
	{Name: "v6.4", Arch: "arm64", From: Version{6, 4}, To: Version{6, 4}, WithArgs: true,
		Graph: trampolines.GraphViaOps, ExitABI: trampolines.ExitLegacy,
		Partner: arm64Partner("ftrace_caller", "rth-legacy"),
		Config:  merge(arm64Base, arm64Args, arm64CallOps, arm64Direct),
		Doc:     "CALL_OPS and direct calls (br x17); return_to_handler passes x29"},
	{Name: "v6.5-v6.13", Arch: "arm64", From: Version{6, 5}, To: Version{6, 13}, WithArgs: true,
		Graph: trampolines.GraphViaOps, ExitABI: trampolines.ExitRetRegs,
		Partner: arm64Partner("ftrace_caller", "rth-retval"),
		Config:  merge(arm64Base, arm64Args, arm64CallOps, arm64Direct, arm64Retval),
		Doc:     "return_to_handler passes struct fgraph_ret_regs (FGRET_REGS_*, 80 bytes)"},
	{Name: "v6.14+", Arch: "arm64", From: Version{6, 14}, WithArgs: true,
		Graph: trampolines.GraphViaOps, ExitABI: trampolines.ExitFregs,
		Partner: arm64Partner("ftrace_caller", "rth-merged"),
		Config:  merge(arm64Base, arm64Args, arm64CallOps, arm64Direct, arm64Retval, arm64Fregs),
		Doc:     "return_to_handler passes struct ftrace_regs (\"fgraph: Replace fgraph_ret_regs with ftrace_regs\")"},
}

func init() {
	Models = append(Models, arm64Models...)
	detectors["arm64"] = detectARM64
	archHooks["arm64"] = propHooks{
		props: []string{PropSite, PropGraph, PropPrepare, PropExit, PropArgs, PropCallOps, PropDirect, PropFPTest, PropOffsets},
		exitOptions: map[trampolines.ExitABI]Config{
			trampolines.ExitLegacy:  {},
			trampolines.ExitRetRegs: arm64Retval,
			trampolines.ExitFregs:   merge(arm64Retval, arm64Fregs),
		},
		fpTestWhy: "arm64 defines HAVE_FUNCTION_GRAPH_FP_TEST (arch/arm64/include/asm/ftrace.h, every era): return_to_handler's frame pointer must match the entry's",
	}
}

var (
	arm64CallRTH = regexp.MustCompile(`\bbl\s+ftrace_return_to_handler\b`)
	arm64PassFP  = regexp.MustCompile(`(?m)^\s*mov\s+x0\s*,\s*x29\b`)
	arm64PassSP  = regexp.MustCompile(`(?m)^\s*mov\s+x0\s*,\s*sp\b`)
	// the patchable-entry half of the file: "#ifdef
	// CONFIG_DYNAMIC_FTRACE_WITH_REGS" (v5.5-v6.1) or "..._WITH_ARGS"
	// (v6.2+); its #else holds the -pg/_mcount code.
	arm64EntryIf   = regexp.MustCompile(`^#\s*if(def\s+|\s+defined\(?\s*)CONFIG_DYNAMIC_FTRACE_WITH_(REGS|ARGS)\b`)
	arm64EntryIfIn = regexp.MustCompile(`(?m)^\s*#\s*if(def\s+|\s+defined\(?\s*)CONFIG_DYNAMIC_FTRACE_WITH_(REGS|ARGS)\b`)
	// the -pg era (v4.19-v5.4): ftrace_caller opens with mcount_enter
	// (or its "stp x29, x30, [sp, #-16]!"), _mcount is defined
	arm64McountEnter = regexp.MustCompile(`\bmcount_enter\b|\bstp\s+x29\s*,\s*x30\s*,\s*\[sp\s*,\s*#-16\]!`)
	// ftrace_graph_caller's first argument: &lr (v4.19) or the pc (v5.0)
	arm64PrepParent = regexp.MustCompile(`\bmcount_get_lr_addr\s+x0\b`)
	arm64PrepIP     = regexp.MustCompile(`\bmcount_get_pc\s+x0\b|\bldr\s+x0\s*,\s*\[x29\s*,\s*#8\]`)
	arm64PtRegs     = regexp.MustCompile(`\b(S_FRAME_SIZE|PT_REGS_SIZE|S_X[0-9]+|S_FP|S_LR|S_PC)\b`)
	arm64FregsRE    = regexp.MustCompile(`\bFREGS_[A-Z0-9_]+\b`)
	arm64FgretRE    = regexp.MustCompile(`FGRET_REGS`)
	arm64CallOpsRE  = regexp.MustCompile(`CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS`)
	arm64DirectRE   = regexp.MustCompile(`FTRACE_OPS_DIRECT_CALL|ftrace_stub_direct_tramp`)
)

// arm64End matches the line that ends sym's code.
func arm64End(sym string) *regexp.Regexp {
	return compiled(`SYM_(CODE|FUNC)_END\(\s*` + sym + `\s*\)`)
}

// detectARM64 reads arch/arm64/kernel/entry-ftrace.S of any era
// (shared/reference/arm64.md "Eras"; /work/kernel-files/NOTES.md section 5):
//   - the entry half is under "#ifdef CONFIG_DYNAMIC_FTRACE_WITH_REGS"
//     (v5.5-v6.1: a pt_regs frame, S_* offsets) or "..._WITH_ARGS" (v6.2+:
//     struct ftrace_regs, FREGS_*); the #else branch is the -pg code, which
//     has its own ftrace_caller and ftrace_graph_call and is left out;
//   - ftrace_graph_call in the entry half: graph through the patched
//     "b ftrace_graph_caller" (<= v5.19); none: ftrace_graph_func;
//   - CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS: v6.3+; FTRACE_OPS_DIRECT_CALL or
//     ftrace_stub_direct_tramp: v6.4+;
//   - return_to_handler passes x29 (<= v6.4), sp over FGRET_REGS_*
//     (v6.5-v6.13) or over FREGS_* (v6.14+).
func detectARM64(s *source) Evidence {
	var ev Evidence
	patchable := arm64EntryIfIn.MatchString(s.text)
	s = &source{name: s.name, text: blankElseOf(s.text, arm64EntryIf)}
	fcAt := s.def("ftrace_caller")
	ev.Entry = fcAt >= 0
	ev.Exit = s.defines("return_to_handler")
	if ev.Entry && !patchable {
		from, to := s.body("ftrace_caller", arm64End("ftrace_caller"))
		if at := s.find(arm64McountEnter, from, to); at >= 0 && s.defines("_mcount") {
			detectARM64Pg(s, &ev, fcAt, at)
			return arm64Exit(s, ev)
		}
	}
	if ev.Entry {
		ev.Pg = "no"
	}
	if ev.Entry {
		from, to := s.body("ftrace_caller", arm64End("ftrace_caller"))
		at := s.find(arm64FregsRE, from, to)
		if at < 0 {
			from, to := s.body("ftrace_common", arm64End("ftrace_common"))
			at = s.find(arm64FregsRE, from, to)
		}
		if at >= 0 {
			ev.PtRegs = "no"
			ev.decide(PropArgs, "ftrace_caller fills a struct ftrace_regs (FREGS_*, WITH_ARGS, v6.2+)", s.cite(at))
		} else if at := s.find(arm64PtRegs, 0, -1); at >= 0 {
			ev.PtRegs = "yes"
			ev.decide(PropArgs, "the entries fill a pt_regs (S_*, WITH_REGS, v5.5-v6.1)", s.cite(at))
		}
		if at := s.def("ftrace_graph_call"); at >= 0 {
			ev.Graph = trampolines.GraphViaCaller
			ev.Prepare = ftrace.PrepareIPParentFP
			ev.decide(PropGraph, "the NOP at ftrace_graph_call branches to ftrace_graph_caller (<= v5.19)", s.cite(at))
			ev.decide(PropPrepare, "ftrace_graph_caller calls prepare_ftrace_return(ip, &lr, fp) (<= v5.19)", s.cite(at))
		} else {
			ev.Graph = trampolines.GraphViaOps
			ev.decide(PropGraph, "no ftrace_graph_call: graph through ftrace_graph_func (v6.0+)", "ftrace_caller at "+s.at(fcAt)+", no ftrace_graph_call in its half of the file")
		}
		callOps := s.find(arm64CallOpsRE, 0, -1)
		direct := s.find(arm64DirectRE, 0, -1)
		if callOps >= 0 {
			ev.CallOps = "yes"
			ev.decide(PropCallOps, "the ops literal of CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS (v6.3+)", s.cite(callOps))
		} else {
			ev.CallOps = "no"
			ev.decide(PropCallOps, "an entry without CALL_OPS code (<= v6.2)", "ftrace_caller at "+s.at(fcAt))
		}
		if direct >= 0 {
			ev.Direct = "yes"
			ev.decide(PropDirect, "direct calls through x17 (FTRACE_OPS_DIRECT_CALL, ftrace_stub_direct_tramp: v6.4+)", s.cite(direct))
		} else {
			ev.Direct = "no"
			ev.decide(PropDirect, "no direct-call path (<= v6.3)", "ftrace_caller at "+s.at(fcAt))
		}
	}
	return arm64Exit(s, ev)
}

// detectARM64Pg reads the entry half of a -pg era file (v4.19-v5.4; no
// patchable-entry #ifdef, ftrace_caller opening with mcount_enter at
// enter): the tracer gets (ip, parent_ip), the graph entry is
// ftrace_graph_caller, whose first argument tells v4.19's
// prepare_ftrace_return(&lr, pc, fp) from v5.0's (pc, &lr, fp).
func detectARM64Pg(s *source, ev *Evidence, fcAt, enter int) {
	ev.Pg, ev.WithArgs, ev.PtRegs, ev.CallOps, ev.Direct = "yes", "no", "no", "no", "no"
	ev.decide(PropSite, "ftrace_caller is called from the -pg call site, bl _mcount after the prologue (mcount_enter, no patchable-entry #ifdef: v4.19-v5.4)", s.cite(enter))
	ev.decide(PropArgs, "ftrace_caller hands the tracer (ip, parent_ip) only (v4.19-v5.4: no ARCH_SUPPORTS_FTRACE_OPS)", "ftrace_caller at "+s.at(fcAt))
	ev.decide(PropCallOps, "an entry without CALL_OPS code (<= v6.2)", "ftrace_caller at "+s.at(fcAt))
	ev.decide(PropDirect, "no direct-call path (<= v6.3)", "ftrace_caller at "+s.at(fcAt))
	if at := s.def("ftrace_graph_call"); at >= 0 {
		ev.Graph = trampolines.GraphViaCaller
		ev.decide(PropGraph, "the NOP at ftrace_graph_call branches to ftrace_graph_caller (<= v5.19)", s.cite(at))
	}
	from, to := s.body("ftrace_graph_caller", arm64End("ftrace_graph_caller"))
	if from < 0 {
		return
	}
	if at := s.find(arm64PrepParent, from, to); at >= 0 {
		ev.Prepare = ftrace.PrepareParentIPFP
		ev.decide(PropPrepare, "ftrace_graph_caller calls prepare_ftrace_return(&lr, ip, fp) (<= v4.20)", s.cite(at))
	} else if at := s.find(arm64PrepIP, from, to); at >= 0 {
		ev.Prepare = ftrace.PrepareIPParentFP
		ev.decide(PropPrepare, "ftrace_graph_caller calls prepare_ftrace_return(ip, &lr, fp) (v5.0+)", s.cite(at))
	}
}

// arm64Exit reads return_to_handler of any era into ev.
func arm64Exit(s *source, ev Evidence) Evidence {
	if ev.Exit {
		from, to := s.body("return_to_handler", arm64CallRTH)
		if at := s.find(arm64FgretRE, from, to); at >= 0 {
			ev.ExitABI = trampolines.ExitRetRegs
			ev.decide(PropExit, "return_to_handler passes sp over struct fgraph_ret_regs (FGRET_REGS_*, v6.5-v6.13)", s.cite(at))
		} else if at := s.find(arm64FregsRE, from, to); at >= 0 {
			ev.ExitABI = trampolines.ExitFregs
			ev.decide(PropExit, "return_to_handler passes sp over struct ftrace_regs (FREGS_*, v6.14+)", s.cite(at))
		} else if at := s.find(arm64PassFP, from, to); at >= 0 {
			ev.ExitABI = trampolines.ExitLegacy
			ev.decide(PropExit, "return_to_handler passes x29, the frame pointer (<= v6.4)", s.cite(at))
		} else if at := s.find(arm64PassSP, from, to); at >= 0 {
			ev.ExitABI = trampolines.ExitRetRegs
			ev.decide(PropExit, "return_to_handler passes sp over an untyped block (taken as struct fgraph_ret_regs, v6.5-v6.13)", s.cite(at))
		}
	}
	return ev
}

// blankElseOf is dropElseOf with each dropped line left empty (its
// newline kept), so that the lines after it keep their numbers.
func blankElseOf(src string, open *regexp.Regexp) string {
	lines, drop := elseOf(src, open)
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

// dropElseOf removes the #else (or #elif) branch of the first
// preprocessor conditional whose opening line matches open, keeping its
// #if branch and everything outside it: the branch a build that has the
// option does not assemble. Text without such a conditional is returned
// as it is.
func dropElseOf(src string, open *regexp.Regexp) string {
	lines, drop := elseOf(src, open)
	var b strings.Builder
	for i, l := range lines {
		if !drop[i] {
			b.WriteString(l)
		}
	}
	return b.String()
}

// elseOf splits src into lines and marks those of the #else branch
// dropElseOf removes.
func elseOf(src string, open *regexp.Regexp) (lines []string, drop []bool) {
	lines = strings.SplitAfter(src, "\n")
	drop = make([]bool, len(lines))
	start := -1
	for i, l := range lines {
		if open.MatchString(strings.TrimSpace(l)) {
			start = i
			break
		}
	}
	if start < 0 {
		return lines, drop
	}
	depth, skipping := 0, false
	for i := start + 1; i < len(lines); i++ {
		switch d := directiveName(strings.TrimSpace(lines[i])); {
		case strings.HasPrefix(d, "if"):
			depth++
		case d == "endif" && depth == 0:
			return lines, drop
		case d == "endif":
			depth--
		case (d == "else" || d == "elif") && depth == 0:
			skipping = true
		}
		drop[i] = skipping
	}
	return lines, drop
}

// directiveName returns the preprocessor directive of a line ("if",
// "ifdef", "else", "endif", ...), or "".
func directiveName(t string) string {
	if !strings.HasPrefix(t, "#") {
		return ""
	}
	t = strings.TrimSpace(t[1:])
	end := strings.IndexFunc(t, func(r rune) bool { return r < 'a' || r > 'z' })
	if end < 0 {
		return t
	}
	return t[:end]
}

// arm64 kernel functions entry-ftrace.S names outside the paths the tool
// runs: none in the distribution builds read (the -pg code that names
// ftrace_graph_entry_stub is the #else of the patchable entry). The trap
// is BUG_BRK_IMM (arch/arm64/include/asm/brk-imm.h).
func init() {
	standIns["arm64"] = standIn{trap: "brk #0x800"}
}

func init() {
	treeFiles["arm64"] = "arch/arm64/kernel/entry-ftrace.S"
	configArch["arm64"] = "CONFIG_ARM64"
}

// arm64 fprobe eras: rethook from v5.19 (arch/arm64/kernel/rethook.c,
// kprobes_trampoline.S) while arm64 has DYNAMIC_FTRACE_WITH_REGS (CONFIG_FPROBE
// depends on it in v5.18: kernel/trace/Kconfig); v6.2 moves arm64 to
// WITH_ARGS, which leaves no fprobe until v6.14 puts it on fgraph
// (the v6.2 end is inferred from the Kconfig dependency, unverified).
func init() {
	FprobeEras = append(FprobeEras,
		FprobeEra{Arch: "arm64", From: Version{5, 19}, To: Version{6, 1}, Design: ftrace.DesignRethook,
			Doc: "arm64 rethook (v5.19) with the WITH_REGS entry"},
		FprobeEra{Arch: "arm64", From: Version{6, 14}, Design: ftrace.DesignFgraph,
			Doc: "v6.14 fprobe on fgraph"})
}
