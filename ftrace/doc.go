// Package ftrace is the Go stand-in for the kernel C code the ftrace
// trampolines call: the ftrace_ops list and its dispatch, the function-graph
// tracer (multi-user shadow stack in guest memory, function_graph_enter_regs,
// ftrace_return_to_handler, data reservation), fprobe on top of it (and the
// v5.18-v6.13 fprobe on one ftrace_ops per probe and rethook: RethookFprobes,
// RethookCore, per-arch arch_rethook_trampoline_callback), and the
// arch glue (ftrace_graph_func, prepare_ftrace_return, the exit-path ABIs of
// each kernel era, the call-site encodings of arch/*/kernel/ftrace.c,
// arm64's ftrace_partial_regs and the frame-pointer word of
// HAVE_FUNCTION_GRAPH_FP_TEST), per arch in x86_64.go, s390x.go and
// arm64.go behind ArchOps.
//
// It reaches guest memory only through regs.Memory and ftrace_regs only
// through regs.Frame, so it is tested and fuzzed in pure Go; package harness
// wires it to an emulated machine.
package ftrace
