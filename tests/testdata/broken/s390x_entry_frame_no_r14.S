/* s390x_entry_ok.S without the store of the traced function's ip+6 into
   the r14 slot of the 24-byte frame built for it: the back chain is
   whole, but an unwinder (or ftrace_return_address()) reading that frame's
   saved r14 gets stale stack contents. Found by trampemu mutate. */
SYM_CODE_START(ftrace_caller)
	stg	%r14,(__SF_GPRS+8*8)(%r15)
	lgr	%r1,%r15
	aghi	%r15,-TRACED_FUNC_FRAME_SIZE
	stg	%r1,__SF_BACKCHAIN(%r15)
	stg	%r15,(__SF_GPRS+9*8)(%r15)
	aghi	%r15,-STACK_FRAME_SIZE_FREGS
	stg	%r1,(STACK_FREGS_PTREGS_GPRS+15*8)(%r15)
	xc	STACK_FREGS_PTREGS_ORIG_GPR2(8,%r15),STACK_FREGS_PTREGS_ORIG_GPR2(%r15)
	xc	STACK_FREGS_PTREGS_FLAGS(8,%r15),STACK_FREGS_PTREGS_FLAGS(%r15)
	lg	%r14,(__SF_GPRS+8*8)(%r1)
	aghi	%r1,-TRACED_FUNC_FRAME_SIZE
	stg	%r1,__SF_BACKCHAIN(%r15)
	stg	%r0,(STACK_FREGS_PTREGS_PSW+8)(%r15)
	stmg	%r2,%r14,(STACK_FREGS_PTREGS_GPRS+2*8)(%r15)
	aghik	%r2,%r0,-MCOUNT_INSN_SIZE
	lgrl	%r4,function_trace_op
	lgrl	%r1,ftrace_func
	lgr	%r3,%r14
	la	%r5,STACK_FREGS(%r15)
	basr	%r14,%r1
	lg	%r0,(STACK_FREGS_PTREGS_PSW+8)(%r15)
	ltg	%r1,STACK_FREGS_PTREGS_ORIG_GPR2(%r15)
	locgrz	%r1,%r0
	lmg	%r2,%r15,(STACK_FREGS_PTREGS_GPRS+2*8)(%r15)
	br	%r1
SYM_CODE_END(ftrace_caller)
