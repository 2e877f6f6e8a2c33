/*
 * The register-saving part shared by s390x ftrace_caller and
 * ftrace_regs_caller (arch/s390/kernel/mcount.S, v5.x .. v6.14+; the
 * instruction list is in trampemu's reference s390x.md): included by the
 * entry variants of this folder.
 *
 * The fake frame's r0/r15 stores use __SF_GPRS+8*8 / +9*8 (136/144 with
 * the packed stack_frame): kernel commit "s390/ftrace: save traced function
 * caller" (2019), not the 112/120 of the reference's step list.
 */
	.macro	ftrace_regs_entry, allregs=0
	stg	%r14,(__SF_GPRS+8*8)(%r15)	/* the parent, into the caller's area */
	.if \allregs == 1
	epsw	%r1,%r14			/* PSW mask: no CC change before this */
	risbg	%r14,%r1,0,31,32
	.endif
	lgr	%r1,%r15
	aghi	%r15,-TRACED_FUNC_FRAME_SIZE	/* a frame for the traced function */
	stg	%r1,__SF_BACKCHAIN(%r15)
	stg	%r0,(__SF_GPRS+8*8)(%r15)
	stg	%r15,(__SF_GPRS+9*8)(%r15)
	aghi	%r15,-STACK_FRAME_SIZE_FREGS	/* ftrace_regs + a frame for the callback */
	stg	%r1,(STACK_FREGS_PTREGS_GPRS+15*8)(%r15)
	xc	STACK_FREGS_PTREGS_ORIG_GPR2(8,%r15),STACK_FREGS_PTREGS_ORIG_GPR2(%r15)
	.if \allregs == 1
	stg	%r14,(STACK_FREGS_PTREGS_PSW)(%r15)
	mvghi	STACK_FREGS_PTREGS_FLAGS(%r15),_PIF_FTRACE_FULL_REGS
	.else
	xc	STACK_FREGS_PTREGS_FLAGS(8,%r15),STACK_FREGS_PTREGS_FLAGS(%r15)
	.endif
	lg	%r14,(__SF_GPRS+8*8)(%r1)	/* the original r14 again */
	aghi	%r1,-TRACED_FUNC_FRAME_SIZE
	stg	%r1,__SF_BACKCHAIN(%r15)
	stg	%r0,(STACK_FREGS_PTREGS_PSW+8)(%r15)
	stmg	%r2,%r14,(STACK_FREGS_PTREGS_GPRS+2*8)(%r15)
	.endm
