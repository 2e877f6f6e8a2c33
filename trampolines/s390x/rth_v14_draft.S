/*
 * NEGATIVE HISTORY, not a kernel: s390x return_to_handler of the v14 draft
 * of "fgraph: Replace fgraph_ret_regs with ftrace_regs" (2024). It stores
 * r2 and r15 into the new frame's __SF_GPRS slots instead of the
 * ftrace_regs above the frame ("does not pass the ftrace selftests"):
 * gprs[2] and gprs[15] of the ftrace_regs it passes are never written.
 */
SYM_FUNC_START(return_to_handler)
	stmg	%r2,%r5,32(%r15)
	lgr	%r1,%r15
	aghi	%r15,-STACK_FRAME_SIZE_FREGS
	stg	%r1,__SF_BACKCHAIN(%r15)
	la	%r3,STACK_FRAME_OVERHEAD(%r15)
	stg	%r2,(__SF_GPRS+2*8)(%r15)
	stg	%r15,(__SF_GPRS+15*8)(%r15)
	lgr	%r2,%r3
	brasl	%r14,ftrace_return_to_handler
	aghi	%r15,STACK_FRAME_SIZE_FREGS
	lgr	%r14,%r2
	lmg	%r2,%r5,32(%r15)
	BR_EX	%r14
SYM_FUNC_END(return_to_handler)
