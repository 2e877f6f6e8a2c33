package kernel

import "trampemu/trampolines"

// s390FeiLeak: v5.14-v6.12 ftrace_common calls ftrace_graph_caller after
// the callbacks, so when an error injection moved psw.addr to gprs[14]
// (kernel/fail_function.c fei_kprobe_handler ->
// arch/s390/lib/error-inject.c override_function_with_return),
// prepare_ftrace_return still pushes a shadow-stack frame and hooks r14,
// and ftrace_common's branch to psw.addr never pops it (arch/s390/kernel/
// mcount.S v5.14-v6.12, read: FlorentRevest/linux@e7fea6fd2158 v6.4,
// xkhelper/aston-mainline@c3155cf11ce6 v6.12-rc7 side; docs/orc.md
// "Shadow-stack balance"). Gone with the graph entry as an ftrace_ops
// callback, 7495e179b478 ("s390/tracing: Enable HAVE_FTRACE_GRAPH_FUNC",
// Sven Schnelle, merged with "fprobe: Rewrite fprobe on function-graph
// tracer" for v6.14; the tool's v6.13 model already has that entry, from
// an lkp file), which stable dropped from its queue (Greg KH's reply on
// the stable list): 6.12.y keeps the bug.
var s390FeiLeak = KnownBug{Role: trampolines.Entry, Symbol: "ftrace_regs_caller", Kind: "control", Workload: "fei_target",
	Summary: "shadow stack not balanced after fei_target",
	Cause:   "arch/s390/kernel/mcount.S ftrace_common calls ftrace_graph_caller after the callbacks: an error injection's psw.addr = gprs[14] skips the call whose frame prepare_ftrace_return then pushes",
	Fix:     "7495e179b478", FixedIn: "v6.14"}

func init() { attach(s390Models, Version{5, 14}, Version{6, 12}, s390FeiLeak) }
