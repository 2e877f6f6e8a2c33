/*
 * s390x ftrace_caller in its v4.x form (arch/s390/kernel/mcount.S, e.g.
 * v4.4): ftrace_regs_caller is an alias, one pt_regs frame below the
 * caller's sp with no frame for the traced function, and the callback is
 * reached through the ftrace_trace_function pointer. Written: back chain,
 * gprs[2..15], psw.addr. Graph tracing of this era (the 2-argument
 * prepare_ftrace_return) is not modelled: pair it for function tracing.
 */
#define STACK_FRAME_SIZE	(STACK_FRAME_OVERHEAD + __PT_SIZE)

ENTRY(ftrace_caller)
	.globl	ftrace_regs_caller
	.set	ftrace_regs_caller,ftrace_caller
	lgr	%r1,%r15
	aghi	%r15,-STACK_FRAME_SIZE
	stg	%r1,__SF_BACKCHAIN(%r15)
	stg	%r1,(STACK_PTREGS_GPRS+15*8)(%r15)
	stg	%r0,(STACK_PTREGS_PSW+8)(%r15)
	stmg	%r2,%r14,(STACK_PTREGS_GPRS+2*8)(%r15)
#ifdef MARCH_HAS_Z196_FEATURES
	aghik	%r2,%r0,-MCOUNT_INSN_SIZE
	lgrl	%r4,function_trace_op
	lgrl	%r1,ftrace_trace_function
#else
	lgr	%r2,%r0
	aghi	%r2,-MCOUNT_INSN_SIZE
	larl	%r4,function_trace_op
	lg	%r4,0(%r4)
	larl	%r1,ftrace_trace_function
	lg	%r1,0(%r1)
#endif
	lgr	%r3,%r14
	la	%r5,STACK_PTREGS(%r15)
	basr	%r14,%r1
	lg	%r1,(STACK_PTREGS_PSW+8)(%r15)
	lmg	%r2,%r15,(STACK_PTREGS_GPRS+2*8)(%r15)
	br	%r1
