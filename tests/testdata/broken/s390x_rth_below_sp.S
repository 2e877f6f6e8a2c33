/* Broken: the return_to_handler of s390x_rth_ok.S stores r2 into the
   gprs[2] slot of its ftrace_regs before it moves r15 down over it. An
   interrupt or program check in kernel mode builds its frame right below
   r15 (arch/s390/kernel/entry.S), so one arriving in between overwrites
   the return value. Caught by the interrupt model as a stack finding. */
SYM_FUNC_START(return_to_handler)
	stmg	%r2,%r5,32(%r15)
	lgr	%r1,%r15
	stg	%r2,(STACK_FREGS_PTREGS_GPRS+2*8-STACK_FRAME_SIZE_FREGS)(%r15)
	aghi	%r15,-STACK_FRAME_SIZE_FREGS
	stg	%r1,__SF_BACKCHAIN(%r15)
	stg	%r1,(STACK_FREGS_PTREGS_GPRS+15*8)(%r15)
	la	%r2,STACK_FRAME_OVERHEAD(%r15)
	brasl	%r14,ftrace_return_to_handler
	aghi	%r15,STACK_FRAME_SIZE_FREGS
	lgr	%r14,%r2
	lmg	%r2,%r5,32(%r15)
	br	%r14
SYM_FUNC_END(return_to_handler)
