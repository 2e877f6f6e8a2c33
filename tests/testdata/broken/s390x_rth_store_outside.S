/* BROKEN on purpose: s390x return_to_handler that keeps r2 in the r6 save
   slot (72) of the caller's 160-byte area instead of the scratch bytes:
   outside what a trampoline may write there. Must be caught as: stack. */
SYM_FUNC_START(return_to_handler)
	stmg	%r2,%r5,32(%r15)
	stg	%r2,__SF_GPRS(%r15)
	lgr	%r1,%r15
	aghi	%r15,-STACK_FRAME_SIZE_FREGS
	stg	%r1,__SF_BACKCHAIN(%r15)
	stg	%r2,(STACK_FREGS_PTREGS_GPRS+2*8)(%r15)
	stg	%r1,(STACK_FREGS_PTREGS_GPRS+15*8)(%r15)
	la	%r2,STACK_FRAME_OVERHEAD(%r15)
	brasl	%r14,ftrace_return_to_handler
	aghi	%r15,STACK_FRAME_SIZE_FREGS
	lgr	%r14,%r2
	lmg	%r2,%r5,32(%r15)
	br	%r14
SYM_FUNC_END(return_to_handler)
