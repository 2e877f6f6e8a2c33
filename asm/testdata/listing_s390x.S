/*
 * Golden-listing input for package asm (s390x): a small ftrace_caller-like
 * trampoline in kernel style. It uses the prelude's linkage macros and
 * BR_EX, the asm-offsets names of the stack frame and pt_regs, a call to a
 * host function (ftrace_stub) and a relative-long load (lgrl) of a data
 * symbol defined here.
 */
	.data
	.balign 8
SYM_DATA_START(listing_op)
	.quad	0x1122334455667788
SYM_DATA_END(listing_op)

	.text
SYM_FUNC_START(listing_caller)
	stg	%r14,__SF_GPRS+8*8(%r15)	/* r14 slot of the caller's frame */
	lgr	%r1,%r15
	aghi	%r15,-STACK_FRAME_SIZE_FREGS
	stg	%r1,__SF_BACKCHAIN(%r15)
	stg	%r1,STACK_FREGS_PTREGS_GPRS+15*8(%r15)
	stg	%r0,STACK_FREGS_PTREGS_PSW+8(%r15)
	stmg	%r2,%r14,STACK_FREGS_PTREGS_GPRS+2*8(%r15)
	xc	STACK_FREGS_PTREGS_FLAGS(8,%r15),STACK_FREGS_PTREGS_FLAGS(%r15)
	aghik	%r2,%r0,-MCOUNT_INSN_SIZE
SYM_INNER_LABEL(listing_op_ptr, SYM_L_GLOBAL)
	lgrl	%r4,listing_op
	lgr	%r3,%r14
	la	%r5,STACK_FREGS(%r15)
SYM_INNER_LABEL(listing_call, SYM_L_GLOBAL)
	brasl	%r14,ftrace_stub
	ltgr	%r2,%r2
	jz	1f
	nop	0				/* 4-byte bc 0 */
1:	lg	%r1,STACK_FREGS_PTREGS_PSW+8(%r15)
	lmg	%r2,%r15,STACK_FREGS_PTREGS_GPRS+2*8(%r15)
	BR_EX	%r1
SYM_FUNC_END(listing_caller)

SYM_FUNC_START(listing_frame)
	stmg	%r6,%r15,__SF_GPRS(%r15)
	lgr	%r1,%r15
	aghi	%r15,-STACK_FRAME_OVERHEAD
	stg	%r1,__SF_BACKCHAIN(%r15)
	brcl	0,0				/* disabled call site (jgnop) */
	basr	%r14,%r2
	lmg	%r6,%r15,STACK_FRAME_OVERHEAD+__SF_GPRS(%r15)
	BR_EX	%r14
SYM_FUNC_END(listing_frame)
