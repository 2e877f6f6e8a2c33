/*
 * trampemu's s390x runtime: the s390x-only kernel data (ftrace_func,
 * through which current kernels call the ops callback;
 * ftrace_trace_function, the v4.x name; the rest is in data.S),
 * ftrace_stub, and the two drivers that call workloads (see the x86-64
 * runtime); a record of the checked driver's call table has the buffer for
 * a struct returned through memory. The harness sets r15 to the driver's
 * frame, whose back chain (152) is 0: the end of the chain.
 */
	.data
	.balign 8
SYM_DATA_START(ftrace_func)
	.quad	0
SYM_DATA_END(ftrace_func)
SYM_DATA_START(ftrace_trace_function)
	.quad	0
SYM_DATA_END(ftrace_trace_function)

	.text
SYM_FUNC_START_WEAK(ftrace_stub)
	br	%r14
SYM_FUNC_END(ftrace_stub)

/* The checked driver runs a batch of calls from trampemu_calls without Go,
   like the x86-64 one: r1 = trampemu_cursor (copied into every watch event:
   which call a trampoline run belongs to); the record's stack arguments go
   above the 160-byte area, r0 and r2-r13 get the record's values, r1 the
   target, basr sets r14; r2 comes back into the record. At trampemu_end
   the host call trampemu_next finishes the batch and writes the next. */
SYM_CODE_START(trampemu_checked_loop)
1:	lgrl	%r1,trampemu_cursor
	clgrl	%r1,trampemu_end
	jl	2f
	brasl	%r14,trampemu_next
	lgrl	%r1,trampemu_cursor
	clgrl	%r1,trampemu_end
	jgnl	trampemu_exit
2:	mvc	STACK_FRAME_OVERHEAD(16,%r15),TREC_STACK(%r1)
	lg	%r0,TREC_R0(%r1)
	lmg	%r2,%r13,TREC_R2(%r1)
	lg	%r1,TREC_TARGET(%r1)
	basr	%r14,%r1
SYM_INNER_LABEL(trampemu_return, SYM_L_GLOBAL)
	lgrl	%r1,trampemu_cursor
	stg	%r2,TREC_OUT(%r1)
	la	%r1,TREC_SIZE(%r1)
	stgrl	%r1,trampemu_cursor
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
