/* BROKEN on purpose: s390x return_to_handler that allocates its frame but
   never stores the back chain: an unwinder from ftrace_return_to_handler
   cannot reach the traced function's caller. Must be caught as: backchain. */
SYM_FUNC_START(return_to_handler)
	stmg	%r2,%r5,32(%r15)
	lgr	%r1,%r15
	aghi	%r15,-STACK_FRAME_SIZE_FREGS
	stg	%r2,(STACK_FREGS_PTREGS_GPRS+2*8)(%r15)
	stg	%r1,(STACK_FREGS_PTREGS_GPRS+15*8)(%r15)
	la	%r2,STACK_FRAME_OVERHEAD(%r15)
	brasl	%r14,ftrace_return_to_handler
	aghi	%r15,STACK_FRAME_SIZE_FREGS
	lgr	%r14,%r2
	lmg	%r2,%r5,32(%r15)
	br	%r14
SYM_FUNC_END(return_to_handler)
