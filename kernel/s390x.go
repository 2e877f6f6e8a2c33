package kernel

import (
	"regexp"

	"trampemu/ftrace"
	"trampemu/trampolines"
)

// s390x options every era of a distribution kernel (Debian, Fedora, SLES)
// builds mcount.S with (arch/s390/Kconfig, kernel/trace/Kconfig): dynamic
// ftrace, the graph tracer, expolines, z196 or newer as the minimum CPU.
var s390Base = yes("CONFIG_64BIT", "CONFIG_FUNCTION_TRACER", "CONFIG_DYNAMIC_FTRACE", "CONFIG_FUNCTION_GRAPH_TRACER",
	"CONFIG_DYNAMIC_FTRACE_WITH_REGS", "CONFIG_HAVE_DYNAMIC_FTRACE_WITH_REGS", "CONFIG_HAVE_MARCH_Z196_FEATURES",
	"CONFIG_EXPOLINE")

var (
	// arch/s390/Makefile (v4.x-v5.x): -mhotpatch makes the call site
	// "brasl %r0,ftrace_caller" and the Makefile passes -DCC_USING_HOTPATCH.
	s390Hotpatch = map[string]string{"CC_USING_HOTPATCH": "1"}
	// v5.5: DYNAMIC_FTRACE_WITH_DIRECT_CALLS arrived on s390 with v6.0
	// ("s390/ftrace: add direct call support"); WITH_ARGS with v5.17
	// ("s390/ftrace: add HAVE_DYNAMIC_FTRACE_WITH_ARGS").
	s390Args   = yes("CONFIG_DYNAMIC_FTRACE_WITH_ARGS", "CONFIG_HAVE_DYNAMIC_FTRACE_WITH_ARGS")
	s390Direct = yes("CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS", "CONFIG_HAVE_DYNAMIC_FTRACE_WITH_DIRECT_CALLS")
	// v6.5: HAVE_FUNCTION_GRAPH_RETVAL; v6.14: HAVE_FUNCTION_GRAPH_FREGS.
	s390Retval = yes("CONFIG_FUNCTION_GRAPH_RETVAL", "CONFIG_HAVE_FUNCTION_GRAPH_RETVAL")
	s390Fregs  = yes("CONFIG_HAVE_FUNCTION_GRAPH_FREGS")
	// v6.2: "s390/kprobes: use rethook": arch_rethook_trampoline in mcount.S.
	s390Rethook = yes("CONFIG_KPROBES", "CONFIG_RETHOOK")
)

// s390Models are the eras of arch/s390/kernel/mcount.S. Every era hands the
// callbacks the pt_regs it built on the stack ("la %r5,STACK_PTREGS(%r15)",
// v4.19 mcount.S), so WithArgs holds throughout.
var s390Models = []*Model{
	// prepare_ftrace_return(parent, ip) until "s390/ftrace: use
	// HAVE_FUNCTION_GRAPH_RET_ADDR_PTR" (s390 pull for the 5.2 merge
	// window, tag s390-5.2-1) made it (ra, sp, ip): v4.19.71 mcount.S
	// loads "lg %r2" / "lg %r3", v5.10.198 "lmg %r2,%r3" / "lg %r4".
	{Name: "v4.19-v5.1", Arch: "s390x", From: Version{4, 19}, To: Version{5, 1}, RegsAliased: true, WithArgs: true, NoFullRegs: true,
		Graph: trampolines.GraphViaCaller, Prepare: ftrace.PrepareParentIP, ExitABI: trampolines.ExitLegacy,
		Partner: map[trampolines.Role]string{trampolines.Entry: "ftrace_caller-v6.13", trampolines.Exit: "rth-legacy"},
		Config:  merge(s390Base, s390Hotpatch),
		Doc:     "ftrace_regs_caller is ftrace_caller (.set); the j at ftrace_graph_caller is patched to a nop; prepare_ftrace_return(parent, ip); return_to_handler passes r2"},
	{Name: "v5.2-v5.13", Arch: "s390x", From: Version{5, 2}, To: Version{5, 13}, RegsAliased: true, WithArgs: true, NoFullRegs: true,
		Graph: trampolines.GraphViaCaller, Prepare: ftrace.PrepareRaSpIP, ExitABI: trampolines.ExitLegacy,
		Partner: map[trampolines.Role]string{trampolines.Entry: "ftrace_caller-v6.13", trampolines.Exit: "rth-legacy"},
		Config:  merge(s390Base, s390Hotpatch),
		Doc:     "ftrace_regs_caller is ftrace_caller (.set); the j at ftrace_graph_caller is patched to a nop; prepare_ftrace_return(ra, sp, ip); return_to_handler passes r2"},
	{Name: "v5.14-v6.4", Arch: "s390x", From: Version{5, 14}, To: Version{6, 4}, WithArgs: true,
		Graph: trampolines.GraphViaCaller, Prepare: ftrace.PrepareRaSpIP, ExitABI: trampolines.ExitLegacy,
		Partner: map[trampolines.Role]string{trampolines.Entry: "ftrace_caller-v6.13", trampolines.Exit: "rth-legacy"},
		Config:  merge(s390Base, s390Args, s390Direct),
		Doc:     "separate ftrace_regs_caller (ftrace_regs_entry macro); graph through ftrace_graph_caller; return_to_handler passes r2"},
	{Name: "v6.5-v6.12", Arch: "s390x", From: Version{6, 5}, To: Version{6, 12}, WithArgs: true,
		Graph: trampolines.GraphViaCaller, Prepare: ftrace.PrepareRaSpIP, ExitABI: trampolines.ExitRetRegs,
		Partner: map[trampolines.Role]string{trampolines.Entry: "ftrace_caller-v6.13", trampolines.Exit: "rth-retval"},
		Config:  merge(s390Base, s390Args, s390Direct, s390Retval, s390Rethook),
		Doc:     "return_to_handler passes struct fgraph_ret_regs (__FGRAPH_RET_*); graph still through ftrace_graph_caller"},
	// s390 graph entry moved to ftrace_graph_func in v6.13: mcount.S of
	// v6.12 (the "Linux 6.12-rc7" side of xkhelper/aston-mainline@c3155cf)
	// still has ftrace_graph_caller, the v6.13-era file of
	// intel-lab-lkp/linux@d421609 has not, and return_to_handler still
	// passes fgraph_ret_regs. v6.13 is the boundary for --kernel and trees;
	// files are judged by what they contain.
	{Name: "v6.13", Arch: "s390x", From: Version{6, 13}, To: Version{6, 13}, WithArgs: true,
		Graph: trampolines.GraphViaOps, ExitABI: trampolines.ExitRetRegs,
		Partner: map[trampolines.Role]string{trampolines.Entry: "ftrace_caller", trampolines.Exit: "rth-retval"},
		Config:  merge(s390Base, s390Args, s390Direct, s390Retval, s390Rethook),
		Doc:     "graph through ftrace_graph_func; return_to_handler passes struct fgraph_ret_regs (__FGRAPH_RET_*)"},
	{Name: "v6.14+", Arch: "s390x", From: Version{6, 14}, WithArgs: true,
		Graph: trampolines.GraphViaOps, ExitABI: trampolines.ExitFregs,
		Partner: map[trampolines.Role]string{trampolines.Entry: "ftrace_caller", trampolines.Exit: "rth-merged"},
		Config:  merge(s390Base, s390Args, s390Direct, s390Retval, s390Fregs, s390Rethook),
		Doc:     "graph through the ftrace_graph_func ops; return_to_handler passes struct ftrace_regs"},
}

// Models is every model of every arch.
var Models = append(append([]*Model{}, x86Models...), s390Models...)

func init() {
	detectors["s390x"] = detectS390
	archHooks["s390x"] = propHooks{
		props: []string{PropGraph, PropPrepare, PropExit, PropArgs, PropRegsCaller, PropDirect, PropFPTest, PropOffsets},
		exitOptions: map[trampolines.ExitABI]Config{
			trampolines.ExitLegacy:  {},
			trampolines.ExitRetRegs: s390Retval,
			trampolines.ExitFregs:   merge(s390Retval, s390Fregs),
		},
		// arch/s390/include/asm/ftrace.h (v4.19-v6.19) defines no
		// HAVE_FUNCTION_GRAPH_FP_TEST.
		fpTestWhy: "s390x has no HAVE_FUNCTION_GRAPH_FP_TEST (arch/s390/include/asm/ftrace.h, every era)",
	}
}

var (
	s390CallRTH     = regexp.MustCompile(`brasl\s+%r14,\s*ftrace_return_to_handler`)
	s390RegsAliased = regexp.MustCompile(`\.set\s+ftrace_regs_caller\s*,\s*ftrace_caller`)
	// ftrace_graph_caller up to its brasl into prepare_ftrace_return:
	// "lmg %r2,%r3,...gprs[14]" (ra and sp, v5.2+) or "lg %r3,...PSW..."
	// (ip in the second argument, <= v5.1).
	s390CallPrepare = regexp.MustCompile(`brasl\s+%r14,\s*prepare_ftrace_return`)
	s390PrepareRaSp = regexp.MustCompile(`(?m)^\s*lmg\s+%r2,\s*%r3,`)
	s390PrepareIP   = regexp.MustCompile(`(?m)^\s*lg\s+%r3,\s*\([A-Z_]*PSW`)
	// the callbacks' regs: "la %r5,STACK_PTREGS(%r15)" (v4.19) or
	// "la %r5,STACK_FREGS(%r15)" (v6.x) before the call.
	s390Regs = regexp.MustCompile(`(?m)^\s*la\s+%r5,`)
	// "s390/ftrace: add direct call support" (v6.0): ftrace_common loads
	// the direct trampoline from orig_gpr2, "ltg %r1,...ORIG_GPR2(%r15)".
	s390DirectRE  = regexp.MustCompile(`(?m)^\s*ltg\s+%r1,\s*\(?[A-Z_]*ORIG_GPR2`)
	s390FgraphRet = regexp.MustCompile(`__FGRAPH_RET`)
	s390FregsRE   = regexp.MustCompile(`FREGS|__FTRACE_REGS|PTREGS`)
)

// detectS390 reads arch/s390/kernel/mcount.S of any era:
//   - ".set ftrace_regs_caller,ftrace_caller" up to v5.13; v5.14 added the
//     ftrace_regs_entry macro and a real ftrace_regs_caller;
//   - the "j" at ftrace_graph_caller (patched to a nop) exists up to v6.12;
//     v6.13 graphs through ftrace_graph_func;
//   - return_to_handler fills __FGRAPH_RET_* (struct fgraph_ret_regs) in
//     v6.5-v6.13 and STACK_FREGS_PTREGS_* / __FTRACE_REGS (struct
//     ftrace_regs) from v6.14; before, it passes only r2. 6.12-stable
//     (Debian's linux-source-6.12, 6.12.117) has the v6.12 graph path with
//     the v6.14 return_to_handler.
func detectS390(s *source) Evidence {
	var ev Evidence
	fcAt := s.def("ftrace_caller")
	ev.Entry = fcAt >= 0
	ev.Exit = s.defines("return_to_handler")
	if ev.Entry {
		if at := s.find(s390RegsAliased, 0, -1); at >= 0 {
			ev.RegsAliased = "yes"
			ev.decide(PropRegsCaller, "ftrace_regs_caller is set to ftrace_caller (<= v5.13)", s.cite(at))
		} else if at := s.def("ftrace_regs_caller"); at >= 0 {
			ev.RegsAliased = "no"
			ev.decide(PropRegsCaller, "ftrace_regs_caller has its own entry (v5.14+)", s.cite(at))
		}
		if at := s.def("ftrace_graph_caller"); at >= 0 {
			ev.Graph = trampolines.GraphViaCaller
			ev.decide(PropGraph, "ftrace_graph_caller's j is patched to a nop (<= v6.12)", s.cite(at))
			from, to := s.body("ftrace_graph_caller", s390CallPrepare)
			if at := s.find(s390PrepareRaSp, from, to); at >= 0 {
				ev.Prepare = ftrace.PrepareRaSpIP
				ev.decide(PropPrepare, "ftrace_graph_caller loads r2, r3 with lmg: prepare_ftrace_return(ra, sp, ip) (v5.2+)", s.cite(at))
			} else if at := s.find(s390PrepareIP, from, to); at >= 0 {
				ev.Prepare = ftrace.PrepareParentIP
				ev.decide(PropPrepare, "ftrace_graph_caller loads r3 from psw.addr: prepare_ftrace_return(parent, ip) (<= v5.1)", s.cite(at))
			}
		} else {
			ev.Graph = trampolines.GraphViaOps
			ev.decide(PropGraph, "no ftrace_graph_caller: graph through ftrace_graph_func (v6.13+)", "ftrace_caller at "+s.at(fcAt)+", no ftrace_graph_caller in the file")
		}
		if at := s.find(s390Regs, 0, -1); at >= 0 {
			ev.WithArgs = "yes"
			ev.decide(PropArgs, "the callbacks get the regs built on the stack (every era)", s.cite(at))
		}
		if at := s.find(s390DirectRE, 0, -1); at >= 0 {
			ev.Direct = "yes"
			ev.decide(PropDirect, "ftrace_common takes a direct trampoline from orig_gpr2 (v6.0+)", s.cite(at))
		}
	}
	if ev.Exit {
		from, to := s.body("return_to_handler", s390CallRTH)
		if at := s.find(s390FgraphRet, from, to); at >= 0 {
			ev.ExitABI = trampolines.ExitRetRegs
			ev.decide(PropExit, "return_to_handler fills __FGRAPH_RET_* (struct fgraph_ret_regs, v6.5-v6.13)", s.cite(at))
		} else if at := s.find(s390FregsRE, from, to); at >= 0 {
			ev.ExitABI = trampolines.ExitFregs
			ev.decide(PropExit, "return_to_handler fills a struct ftrace_regs (v6.14+)", s.cite(at))
		} else {
			ev.ExitABI = trampolines.ExitLegacy
			ev.decide(PropExit, "return_to_handler passes only r2 (<= v6.4)", "return_to_handler at "+s.at(from)+" fills no structure")
		}
	}
	return ev
}

// s390x kernel functions mcount.S names outside the paths the tool runs:
// the rethook trampoline's C half (v6.x, CONFIG_RETHOOK).
func init() {
	standIns["s390x"] = standIn{trap: ".long 0", funcs: []string{"arch_rethook_trampoline_callback"}}
}

func init() {
	treeFiles["s390x"] = "arch/s390/kernel/mcount.S"
	configArch["s390x"] = "CONFIG_S390"
}
