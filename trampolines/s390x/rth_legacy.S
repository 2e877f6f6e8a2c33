/*
 * s390x return_to_handler, legacy form (<= v6.4, arch/s390/kernel/mcount.S):
 * r2-r5 kept in the scratch area of the caller's frame, a 160-byte frame for
 * the call, unsigned long ftrace_return_to_handler(unsigned long
 * frame_pointer) with r2 = the return value in the frame-pointer argument
 * (ignored), and a branch to the original return address it returns.
 */
SYM_FUNC_START(return_to_handler)
	stmg	%r2,%r5,32(%r15)
	lgr	%r1,%r15
	aghi	%r15,-STACK_FRAME_OVERHEAD
	stg	%r1,__SF_BACKCHAIN(%r15)
	brasl	%r14,ftrace_return_to_handler
	aghi	%r15,STACK_FRAME_OVERHEAD
	lgr	%r14,%r2
	lmg	%r2,%r5,32(%r15)
	BR_EX	%r14
SYM_FUNC_END(return_to_handler)
