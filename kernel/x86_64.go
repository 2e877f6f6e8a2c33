package kernel

import (
	"regexp"

	"trampemu/ftrace"
	"trampemu/trampolines"
)

// x86-64 options every era of a distribution kernel (Debian, Fedora)
// builds ftrace_64.S with (arch/x86/Kconfig, kernel/trace/Kconfig): dynamic
// ftrace with a separate ftrace_regs_caller, the graph tracer, ORC instead
// of frame pointers, retpolines.
var x86Base = merge(yes("CONFIG_X86_64", "CONFIG_64BIT", "CONFIG_FUNCTION_TRACER", "CONFIG_DYNAMIC_FTRACE",
	"CONFIG_FUNCTION_GRAPH_TRACER", "CONFIG_DYNAMIC_FTRACE_WITH_REGS", "CONFIG_HAVE_DYNAMIC_FTRACE_WITH_REGS",
	"CONFIG_UNWINDER_ORC", "CONFIG_STACK_VALIDATION"))

var (
	// arch/x86/Makefile up to v5.x: -mfentry (the call site before the
	// prologue) and -DCC_USING_FENTRY; ftrace_64.S of v4.19 branches on it.
	x86Fentry = map[string]string{"CC_USING_FENTRY": "1"}
	// v5.5: "ftrace/x86: Add register_ftrace_direct() for custom trampolines".
	x86Direct = yes("CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS", "CONFIG_HAVE_DYNAMIC_FTRACE_WITH_DIRECT_CALLS")
	// v5.11: "ftrace/x86: Allow for arguments to be passed in to ftrace_regs by default".
	x86Args = yes("CONFIG_DYNAMIC_FTRACE_WITH_ARGS", "CONFIG_HAVE_DYNAMIC_FTRACE_WITH_ARGS")
	// v5.18: CONFIG_X86_KERNEL_IBT (arch/x86/Kconfig: SYM_FUNC_START opens
	// with endbr64); v5.19: CONFIG_OBJTOOL. The v5.16-v6.4 model takes them
	// from v5.18 on for the whole era.
	x86IBT = yes("CONFIG_X86_KERNEL_IBT", "CONFIG_OBJTOOL", "CONFIG_RETPOLINE", "CONFIG_RETHUNK")
	// v6.2: call depth tracking; v6.9 renamed the mitigations CONFIG_MITIGATION_*.
	x86Depth = yes("CONFIG_CALL_DEPTH_TRACKING")
	x86Mitig = yes("CONFIG_MITIGATION_RETPOLINE", "CONFIG_MITIGATION_RETHUNK", "CONFIG_MITIGATION_CALL_DEPTH_TRACKING")
	// v6.5: HAVE_FUNCTION_GRAPH_RETVAL; v6.14: HAVE_FUNCTION_GRAPH_FREGS.
	x86Retval = yes("CONFIG_FUNCTION_GRAPH_RETVAL", "CONFIG_HAVE_FUNCTION_GRAPH_RETVAL")
	x86Fregs  = yes("CONFIG_HAVE_FUNCTION_GRAPH_FREGS")
)

// x86Models are the eras of arch/x86/kernel/ftrace_64.S.
var x86Models = []*Model{
	{Name: "v4.19-v5.10", Arch: "x86_64", From: Version{4, 19}, To: Version{5, 10},
		Graph: trampolines.GraphViaCaller, Prepare: ftrace.PrepareIPParentFP, ExitABI: trampolines.ExitLegacy,
		Partner: map[trampolines.Role]string{trampolines.Entry: "ftrace_caller-v5.10", trampolines.Exit: "rth-legacy"},
		Config:  merge(x86Base, yes("CONFIG_RETPOLINE"), x86Direct, x86Fentry),
		Doc:     "ftrace_caller passes regs = NULL; ftrace_graph_call jumps to ftrace_graph_caller; return_to_handler passes the frame pointer"},
	{Name: "v5.11-v5.15", Arch: "x86_64", From: Version{5, 11}, To: Version{5, 15}, WithArgs: true,
		Graph: trampolines.GraphViaCaller, Prepare: ftrace.PrepareIPParentFP, ExitABI: trampolines.ExitLegacy,
		Partner: map[trampolines.Role]string{trampolines.Entry: "ftrace_caller-v5.10", trampolines.Exit: "rth-legacy"},
		Config:  merge(x86Base, yes("CONFIG_RETPOLINE"), x86Direct, x86Args),
		Doc:     "ftrace_caller passes ftrace_regs (WITH_ARGS); graph still through ftrace_graph_caller"},
	{Name: "v5.16-v6.4", Arch: "x86_64", From: Version{5, 16}, To: Version{6, 4}, WithArgs: true,
		Graph: trampolines.GraphViaOps, ExitABI: trampolines.ExitLegacy,
		Partner: map[trampolines.Role]string{trampolines.Entry: "ftrace_caller", trampolines.Exit: "rth-legacy"},
		Config:  merge(x86Base, x86Direct, x86Args, x86IBT, x86Depth),
		Doc:     "graph through the ftrace_graph_func ops (\"x86/ftrace: Make function graph use ftrace directly\"); return_to_handler passes the frame pointer"},
	{Name: "v6.5-v6.13", Arch: "x86_64", From: Version{6, 5}, To: Version{6, 13}, WithArgs: true,
		Graph: trampolines.GraphViaOps, ExitABI: trampolines.ExitRetRegs,
		Partner: map[trampolines.Role]string{trampolines.Entry: "ftrace_caller", trampolines.Exit: "rth-retval"},
		Config:  merge(x86Base, x86Direct, x86Args, x86IBT, x86Mitig, x86Retval),
		Doc:     "return_to_handler passes struct fgraph_ret_regs (24 bytes: ax, dx, bp)"},
	{Name: "v6.14+", Arch: "x86_64", From: Version{6, 14}, WithArgs: true,
		Graph: trampolines.GraphViaOps, ExitABI: trampolines.ExitFregs,
		Partner: map[trampolines.Role]string{trampolines.Entry: "ftrace_caller", trampolines.Exit: "rth-merged"},
		Config:  merge(x86Base, x86Direct, x86Args, x86IBT, x86Mitig, x86Retval, x86Fregs),
		Doc:     "return_to_handler passes struct ftrace_regs (\"fgraph: Replace fgraph_ret_regs with ftrace_regs\")"},
}

func init() {
	detectors["x86_64"] = detectX86
	archHooks["x86_64"] = propHooks{
		props: []string{PropGraph, PropPrepare, PropExit, PropArgs, PropDirect, PropFPTest, PropOffsets},
		exitOptions: map[trampolines.ExitABI]Config{
			trampolines.ExitLegacy:  {},
			trampolines.ExitRetRegs: x86Retval,
			trampolines.ExitFregs:   merge(x86Retval, x86Fregs),
		},
		// arch/x86/include/asm/ftrace.h (v4.19-v6.19) defines no
		// HAVE_FUNCTION_GRAPH_FP_TEST.
		fpTestWhy: "x86-64 has no HAVE_FUNCTION_GRAPH_FP_TEST (arch/x86/include/asm/ftrace.h, every era)",
	}
}

var (
	x86CallRTH     = regexp.MustCompile(`call\s+ftrace_return_to_handler`)
	x86FtraceCal   = regexp.MustCompile(`ftrace_call\b`)
	x86NullRegs    = regexp.MustCompile(`\$0,\s*%rcx`)
	x86PassRBP     = regexp.MustCompile(`%rbp,\s*%rdi`)
	x86PassRSP     = regexp.MustCompile(`%rsp,\s*%rdi`)
	x86FillArgs    = regexp.MustCompile(`\b(CS|RSP)\(%rsp\)`)
	x86FregsRE     = regexp.MustCompile(`FRAME_SIZE|\bRAX\(%rsp\)`)
	x86CallPrepare = regexp.MustCompile(`call\s+prepare_ftrace_return`)
	x86OrigRAX     = regexp.MustCompile(`\bORIG_RAX\(%rsp\)`)
	x86RegsEnd     = regexp.MustCompile(`SYM_FUNC_END\(\s*ftrace_regs_caller\s*\)`)
)

// detectX86 reads arch/x86/kernel/ftrace_64.S of any era:
//   - ftrace_graph_call (a jmp patched to ftrace_graph_caller) exists up to
//     v5.15; v5.16 "x86/ftrace: Make function graph use ftrace directly"
//     removed it; ftrace_graph_caller calls prepare_ftrace_return(ip,
//     parent, frame_pointer) (arch/x86/kernel/ftrace.c, <= v5.15);
//   - ftrace_caller passes "movq $0, %rcx" (regs = NULL) up to v5.10; from
//     v5.11 it fills RSP and CS in ftrace_regs;
//   - save_mcount_regs zeroes ORIG_RAX and ftrace_regs_caller tests it for
//     a direct trampoline from v5.5 ("ftrace/x86: Add
//     register_ftrace_direct() for custom trampolines");
//   - return_to_handler passes %rbp (the frame pointer) up to v6.4, %rsp
//     over a 24-byte fgraph_ret_regs in v6.5-v6.13, and a FRAME_SIZE
//     ftrace_regs filled by RAX(%rsp)... from v6.14.
func detectX86(s *source) Evidence {
	var ev Evidence
	fcAt := s.def("ftrace_caller")
	ev.Entry = fcAt >= 0
	ev.Exit = s.defines("return_to_handler")
	if ev.Entry {
		if at := s.def("ftrace_graph_call"); at >= 0 {
			ev.Graph = trampolines.GraphViaCaller
			ev.decide(PropGraph, "ftrace_graph_call jumps to ftrace_graph_caller (<= v5.15)", s.cite(at))
			if from, to := s.body("ftrace_graph_caller", x86CallPrepare); from >= 0 {
				if at := s.find(x86CallPrepare, from, to); at >= 0 {
					ev.Prepare = ftrace.PrepareIPParentFP
					ev.decide(PropPrepare, "ftrace_graph_caller calls prepare_ftrace_return(ip, parent, frame_pointer) (<= v5.15)", s.cite(at))
				}
			}
		} else {
			ev.Graph = trampolines.GraphViaOps
			ev.decide(PropGraph, "no ftrace_graph_call: graph through ftrace_graph_func (v5.16+)", "ftrace_caller at "+s.at(fcAt)+" has none")
		}
		from, to := s.body("ftrace_caller", x86FtraceCal)
		if at := s.find(x86NullRegs, from, to); at >= 0 {
			ev.WithArgs = "no"
			ev.decide(PropArgs, "ftrace_caller passes regs = NULL (<= v5.10)", s.cite(at))
		} else if at := s.find(x86FillArgs, from, to); at >= 0 {
			ev.WithArgs = "yes"
			ev.decide(PropArgs, "ftrace_caller fills ftrace_regs RSP/CS (WITH_ARGS, v5.11+)", s.cite(at))
		}
		if from, to := s.bodyN("ftrace_regs_caller", x86RegsEnd, 200); from >= 0 {
			if at := s.find(x86OrigRAX, from, to); at >= 0 {
				ev.Direct = "yes"
				ev.decide(PropDirect, "ftrace_regs_caller tests ORIG_RAX for a direct trampoline (v5.5+)", s.cite(at))
			}
		}
	}
	if ev.Exit {
		from, to := s.body("return_to_handler", x86CallRTH)
		if at := s.find(x86FregsRE, from, to); at >= 0 {
			ev.ExitABI = trampolines.ExitFregs
			ev.decide(PropExit, "return_to_handler passes a FRAME_SIZE struct ftrace_regs (v6.14+)", s.cite(at))
		} else if at := s.find(x86PassRBP, from, to); at >= 0 {
			ev.ExitABI = trampolines.ExitLegacy
			ev.decide(PropExit, "return_to_handler passes %rbp, the frame pointer (<= v6.4)", s.cite(at))
		} else if at := s.find(x86PassRSP, from, to); at >= 0 {
			ev.ExitABI = trampolines.ExitRetRegs
			ev.decide(PropExit, "return_to_handler passes %rsp over a struct fgraph_ret_regs (v6.5-v6.13)", s.cite(at))
		}
	}
	return ev
}

// x86-64 kernel functions ftrace_64.S names outside the paths the tool
// runs (v4.19-v6.19).
func init() {
	standIns["x86_64"] = standIn{trap: "ud2", funcs: []string{"ftrace_graph_entry_stub"}}
}

func init() {
	treeFiles["x86_64"] = "arch/x86/kernel/ftrace_64.S"
	configArch["x86_64"] = "CONFIG_X86_64"
}
