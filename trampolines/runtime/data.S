/*
 * trampemu's runtime data, the same on both architectures (linked with
 * runtime/<arch>.S): function_trace_op, the ops pointer the entry
 * trampolines load (arch/x86/kernel/ftrace_64.S and arch/s390/kernel/
 * mcount.S read the kernel's variable of that name), and the drivers'
 * words: the fast driver's target, arguments, count and last result; the
 * checked driver's cursor, end and call table (TREC_* from the harness,
 * layout in trampolines/runtime.go).
 */
	.data
	.balign 8
SYM_DATA_START(function_trace_op)
	.quad	0
SYM_DATA_END(function_trace_op)
SYM_DATA_START(trampemu_target)
	.quad	0
SYM_DATA_END(trampemu_target)
SYM_DATA_START(trampemu_args)
	.quad	0, 0, 0, 0, 0, 0
SYM_DATA_END(trampemu_args)
SYM_DATA_START(trampemu_count)
	.quad	0
SYM_DATA_END(trampemu_count)
SYM_DATA_START(trampemu_result)
	.quad	0, 0
SYM_DATA_END(trampemu_result)
SYM_DATA_START(trampemu_cursor)
	.quad	0
SYM_DATA_END(trampemu_cursor)
SYM_DATA_START(trampemu_end)
	.quad	0
SYM_DATA_END(trampemu_end)
SYM_DATA_START(trampemu_calls)
	.skip	TREC_SIZE * TREC_BATCH
SYM_DATA_END(trampemu_calls)
