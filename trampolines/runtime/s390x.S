/*
 * trampemu's s390x runtime: the kernel data the trampolines read
 * (function_trace_op; ftrace_func, through which current kernels call the
 * ops callback; ftrace_trace_function, the v4.x name), ftrace_stub, a buffer
 * for structs returned through memory, and the two drivers that call
 * workloads (see the x86-64 runtime). The harness sets r15 to the driver's
 * frame, whose back chain (152) is 0: the end of the chain.
 */
	.data
	.balign 8
SYM_DATA_START(function_trace_op)
	.quad	0
SYM_DATA_END(function_trace_op)
SYM_DATA_START(ftrace_func)
	.quad	0
SYM_DATA_END(ftrace_func)
SYM_DATA_START(ftrace_trace_function)
	.quad	0
SYM_DATA_END(ftrace_trace_function)
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
SYM_DATA_START(trampemu_retbuf)
	.quad	0, 0
SYM_DATA_END(trampemu_retbuf)

	.text
SYM_FUNC_START_WEAK(ftrace_stub)
	br	%r14
SYM_FUNC_END(ftrace_stub)

SYM_CODE_START(trampemu_checked_loop)
1:	brasl	%r14,trampemu_next
	lgrl	%r1,trampemu_target
	basr	%r14,%r1
SYM_INNER_LABEL(trampemu_return, SYM_L_GLOBAL)
	j	1b
SYM_CODE_END(trampemu_checked_loop)

SYM_CODE_START(trampemu_fast_loop)
1:	lgrl	%r1,trampemu_args+40
	stg	%r1,STACK_FRAME_OVERHEAD(%r15)	/* argument 6 on the stack */
	lgrl	%r2,trampemu_args
	lgrl	%r3,trampemu_args+8
	lgrl	%r4,trampemu_args+16
	lgrl	%r5,trampemu_args+24
	lgrl	%r6,trampemu_args+32
	lgrl	%r1,trampemu_target
	basr	%r14,%r1
SYM_INNER_LABEL(trampemu_fast_return, SYM_L_GLOBAL)
	stgrl	%r2,trampemu_result
	lgrl	%r1,trampemu_count
	aghi	%r1,-1
	stgrl	%r1,trampemu_count
	jnz	1b
SYM_INNER_LABEL(trampemu_exit, SYM_L_GLOBAL)
	nopr	%r7
SYM_CODE_END(trampemu_fast_loop)

/* A direct trampoline (arch_ftrace_set_direct_caller): ftrace_common
   branches here with r0 = ip+6 (where the traced function continues),
   r14 = its return address and r15 = its caller's sp; r0 and r14 are kept
   in the scratch bytes of the caller's 160-byte area around the report to
   the host, r2-r15 are untouched. */
SYM_CODE_START(trampemu_direct)
	stg	%r0,8(%r15)
	stg	%r14,16(%r15)
	brasl	%r14,trampemu_direct_hook
	lg	%r14,16(%r15)
	lg	%r1,8(%r15)
	br	%r1
SYM_CODE_END(trampemu_direct)
