/*
 * s390x return_to_handler with HAVE_FUNCTION_GRAPH_RETVAL (v6.5 .. v6.13,
 * arch/s390/kernel/mcount.S): a 16-byte struct fgraph_ret_regs {gpr2, fp}
 * above the call frame, fp = the caller's sp, passed to
 * ftrace_return_to_handler(struct fgraph_ret_regs *).
 */
SYM_FUNC_START(return_to_handler)
	stmg	%r2,%r5,32(%r15)
	lgr	%r1,%r15
	aghi	%r15,-(STACK_FRAME_OVERHEAD+__FGRAPH_RET_SIZE)
	stg	%r1,__SF_BACKCHAIN(%r15)
	la	%r3,STACK_FRAME_OVERHEAD(%r15)
	stg	%r1,__FGRAPH_RET_FP(%r3)
	stg	%r2,__FGRAPH_RET_GPR2(%r3)
	lgr	%r2,%r3
	brasl	%r14,ftrace_return_to_handler
	aghi	%r15,STACK_FRAME_OVERHEAD+__FGRAPH_RET_SIZE
	lgr	%r14,%r2
	lmg	%r2,%r5,32(%r15)
	BR_EX	%r14
SYM_FUNC_END(return_to_handler)
