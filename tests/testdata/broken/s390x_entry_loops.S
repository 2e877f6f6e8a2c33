/* s390x_entry_ok.S branching back to the wrong resume address: psw.addr
   minus MCOUNT_INSN_SIZE, the brasl of the call site, so every return
   runs the call again and the kernel would go round for ever. Must be
   caught as: control, at the first return (the call stops there), not
   at an instruction limit. */
SYM_CODE_START(ftrace_caller)
	stg	%r14,(__SF_GPRS+8*8)(%r15)
	lgr	%r1,%r15
	aghi	%r15,-TRACED_FUNC_FRAME_SIZE
	stg	%r1,__SF_BACKCHAIN(%r15)
	stg	%r0,(__SF_GPRS+8*8)(%r15)
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
	aghi	%r1,-MCOUNT_INSN_SIZE
	br	%r1
SYM_CODE_END(ftrace_caller)
