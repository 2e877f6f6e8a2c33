/* BROKEN on purpose: s390x return_to_handler that reloads only r3-r5, so
   r2 (the return value) comes back as the return address. Must be caught
   as: clobber. */
SYM_FUNC_START(return_to_handler)
	stmg	%r2,%r5,32(%r15)
	lgr	%r1,%r15
	aghi	%r15,-STACK_FRAME_SIZE_FREGS
	stg	%r1,__SF_BACKCHAIN(%r15)
	stg	%r2,(STACK_FREGS_PTREGS_GPRS+2*8)(%r15)
	stg	%r1,(STACK_FREGS_PTREGS_GPRS+15*8)(%r15)
	la	%r2,STACK_FRAME_OVERHEAD(%r15)
	brasl	%r14,ftrace_return_to_handler
	aghi	%r15,STACK_FRAME_SIZE_FREGS
	lgr	%r14,%r2
	lmg	%r3,%r5,40(%r15)
	br	%r14
SYM_FUNC_END(return_to_handler)
