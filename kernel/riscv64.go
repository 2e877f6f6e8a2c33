package kernel

import (
	"regexp"

	"trampemu/ftrace"
	"trampemu/trampolines"
)

// riscv64 options every era of a distribution kernel (Debian, Fedora,
// Ubuntu riscv64) builds mcount-dyn.S and mcount.S with (arch/riscv/Kconfig,
// kernel/trace/Kconfig): dynamic ftrace through -fpatchable-function-entry
// (v5.11+), the graph tracer, frame pointers (arch/riscv/Kconfig selects
// ARCH_WANT_FRAME_POINTERS; with FRAME_POINTER arch/riscv/include/asm/ftrace.h
// defines HAVE_FUNCTION_GRAPH_FP_TEST).
var riscv64Base = yes("CONFIG_RISCV", "CONFIG_64BIT", "CONFIG_FUNCTION_TRACER", "CONFIG_DYNAMIC_FTRACE",
	"CONFIG_FUNCTION_GRAPH_TRACER", "CONFIG_FRAME_POINTER")

var (
	// v6.11 "riscv: ftrace: support DYNAMIC_FTRACE_WITH_ARGS"
	// (7caa9765465f): WITH_ARGS replaces WITH_REGS, struct
	// __arch_ftrace_regs (FREGS_*).
	riscv64Args = yes("CONFIG_DYNAMIC_FTRACE_WITH_ARGS", "CONFIG_HAVE_DYNAMIC_FTRACE_WITH_ARGS")
	// Direct calls through t1 (v6.8 196c79f19a92 with WITH_REGS; kept by
	// the WITH_ARGS entry).
	riscv64Direct = yes("CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS", "CONFIG_HAVE_DYNAMIC_FTRACE_WITH_DIRECT_CALLS")
	// v6.5: HAVE_FUNCTION_GRAPH_RETVAL (b97aec082b51); v6.14:
	// HAVE_FUNCTION_GRAPH_FREGS (a3ed4157b7d8).
	riscv64Retval = yes("CONFIG_FUNCTION_GRAPH_RETVAL", "CONFIG_HAVE_FUNCTION_GRAPH_RETVAL")
	riscv64Fregs  = yes("CONFIG_HAVE_FUNCTION_GRAPH_FREGS")
)

// riscv64Partner: the registry variants of trampolines/riscv64.
func riscv64Partner(entry, exit string) map[trampolines.Role]string {
	return map[trampolines.Role]string{trampolines.Entry: entry, trampolines.Exit: exit}
}

// riscv64Models are the eras of arch/riscv/kernel/mcount-dyn.S (the
// entry) and mcount.S (return_to_handler) the tool models
// (shared/reference/riscv64.md "Eras"): the WITH_ARGS entry of v6.11-v6.15
// with return_to_handler passing struct fgraph_ret_regs (v6.5-v6.13) or
// struct ftrace_regs (v6.14+; v6.14-stable and later carry 67a5ba8f742f,
// so the v6.14+ partner is the fixed file). The older eras (the -pg
// _mcount, the ra-based 16-byte site, the t0 site of v6.3 with SAVE_ABI,
// the WITH_REGS SAVE_ABI_REGS of v6.8) and v6.16's CALL_OPS are rows to
// add here.
var riscv64Models = []*Model{
	{Name: "v6.11-v6.13", Arch: "riscv64", From: Version{6, 11}, To: Version{6, 13}, WithArgs: true,
		Graph: trampolines.GraphViaOps, ExitABI: trampolines.ExitRetRegs,
		Partner: riscv64Partner("ftrace_caller", "rth-retval"),
		Config:  merge(riscv64Base, riscv64Args, riscv64Direct, riscv64Retval),
		Doc:     "ftrace_caller fills struct __arch_ftrace_regs (WITH_ARGS, FREGS_*); return_to_handler passes struct fgraph_ret_regs (32 bytes)"},
	{Name: "v6.14+", Arch: "riscv64", From: Version{6, 14}, WithArgs: true,
		Graph: trampolines.GraphViaOps, ExitABI: trampolines.ExitFregs,
		Partner: riscv64Partner("ftrace_caller", "rth-fixed"),
		Config:  merge(riscv64Base, riscv64Args, riscv64Direct, riscv64Retval, riscv64Fregs),
		Doc:     "return_to_handler passes struct ftrace_regs (\"function_graph: Replace fgraph_ret_regs with ftrace_regs\"; the FREGS_* block of 67a5ba8f742f)"},
}

func init() {
	Models = append(Models, riscv64Models...)
	detectors["riscv64"] = detectRISCV64
	archHooks["riscv64"] = propHooks{
		props: []string{PropGraph, PropExit, PropArgs, PropDirect, PropFPTest, PropOffsets},
		exitOptions: map[trampolines.ExitABI]Config{
			trampolines.ExitLegacy:  {},
			trampolines.ExitRetRegs: riscv64Retval,
			trampolines.ExitFregs:   merge(riscv64Retval, riscv64Fregs),
		},
		fpTestWhy: "riscv defines HAVE_FUNCTION_GRAPH_FP_TEST with CONFIG_FRAME_POINTER (arch/riscv/include/asm/ftrace.h): return_to_handler's s0 must match the entry's",
	}
	// riscv kernel functions mcount-dyn.S and mcount.S name outside the
	// paths the tool runs; the trap is ebreak (BUG's, arch/riscv/include/asm/bug.h).
	standIns["riscv64"] = standIn{trap: "ebreak"}
	configArch["riscv64"] = "CONFIG_RISCV"
}

var (
	riscv64CallRTH  = regexp.MustCompile(`\bcall\s+ftrace_return_to_handler\b`)
	riscv64FregsRE  = regexp.MustCompile(`\bFREGS_[A-Z0-9_]+\b`)
	riscv64PassSP   = regexp.MustCompile(`(?m)^\s*mv\s+a0\s*,\s*sp\b`)
	riscv64PassFP   = regexp.MustCompile(`(?m)^\s*mv\s+a0\s*,\s*(t6|s0)\b`)
	riscv64DirectRE = regexp.MustCompile(`\bbnez\s+t1\b|ftrace_stub_direct_tramp`)
)

// detectRISCV64 reads the riscv64 files of the modelled eras
// (shared/reference/riscv64.md "Eras"):
//   - ftrace_caller filling FREGS_* slots: WITH_ARGS (v6.11+), graph
//     through ftrace_graph_func; a nonzero t1 branch or
//     ftrace_stub_direct_tramp: direct calls;
//   - return_to_handler passing sp over FREGS_* (v6.14+), sp over an
//     untyped block (fgraph_ret_regs, v6.5-v6.13), or the frame pointer
//     (<= v6.4).
func detectRISCV64(s *source) Evidence {
	var ev Evidence
	ev.Entry = s.defines("ftrace_caller")
	ev.Exit = s.defines("return_to_handler")
	if ev.Entry {
		fcAt := s.def("ftrace_caller")
		if at := s.find(riscv64FregsRE, 0, -1); at >= 0 {
			ev.WithArgs, ev.PtRegs = "yes", "no"
			ev.decide(PropArgs, "ftrace_caller fills a struct __arch_ftrace_regs (FREGS_*, WITH_ARGS, v6.11+)", s.cite(at))
			ev.Graph = trampolines.GraphViaOps
			ev.decide(PropGraph, "no ftrace_graph_call: graph through ftrace_graph_func (WITH_ARGS)", "ftrace_caller at "+s.at(fcAt))
		}
		if at := s.find(riscv64DirectRE, 0, -1); at >= 0 {
			ev.Direct = "yes"
			ev.decide(PropDirect, "direct calls through t1 (bnez t1, ftrace_stub_direct_tramp)", s.cite(at))
		}
	}
	if ev.Exit {
		from, to := s.body("return_to_handler", riscv64CallRTH)
		switch {
		case s.find(riscv64PassSP, from, to) >= 0 && s.find(riscv64FregsRE, from, to) >= 0:
			at := s.find(riscv64FregsRE, from, to)
			ev.ExitABI = trampolines.ExitFregs
			ev.decide(PropExit, "return_to_handler passes sp over struct __arch_ftrace_regs (FREGS_*, v6.14+)", s.cite(at))
		case s.find(riscv64PassSP, from, to) >= 0:
			at := s.find(riscv64PassSP, from, to)
			ev.ExitABI = trampolines.ExitRetRegs
			ev.decide(PropExit, "return_to_handler passes sp over an untyped block (taken as struct fgraph_ret_regs, v6.5-v6.13)", s.cite(at))
		case s.find(riscv64PassFP, from, to) >= 0:
			at := s.find(riscv64PassFP, from, to)
			ev.ExitABI = trampolines.ExitLegacy
			ev.decide(PropExit, "return_to_handler passes the frame pointer (<= v6.4)", s.cite(at))
		}
	}
	return ev
}

// riscv64 fprobe eras: fprobe on fgraph from v6.14 (the rethook era's
// riscv fprobe needs DYNAMIC_FTRACE_WITH_REGS, which v6.11 removed).
func init() {
	FprobeEras = append(FprobeEras,
		FprobeEra{Arch: "riscv64", From: Version{6, 14}, Design: ftrace.DesignFgraph,
			Doc: "v6.14 fprobe on fgraph"})
}
