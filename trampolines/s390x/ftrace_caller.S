/*
 * s390x ftrace_caller and ftrace_regs_caller as of v6.14+
 * (arch/s390/kernel/mcount.S; instruction list in trampemu's reference
 * s390x.md). Entered from the traced function's first instruction
 * "brasl %r0,ftrace_caller": r0 = ip+6, r14 = parent, r15 = the caller's sp
 * (R). A 24-byte frame for the traced function (TRACED_FUNC_FRAME_SIZE,
 * back chain = R), then ftrace_regs plus a frame for the callback.
 * ftrace_regs_caller also stores the PSW mask and PIF_FTRACE_FULL_REGS.
 * MARCH_HAS_Z196_FEATURES selects aghik/lgrl/ltg+locgrz over the old-CPU
 * sequences (lgr+aghi, larl+lg, lg+ltgr+jnz+lgr).
 */
#include "ftrace_regs_entry.h"

SYM_CODE_START(ftrace_regs_caller)
	ftrace_regs_entry	1
	j	ftrace_common
SYM_CODE_END(ftrace_regs_caller)

SYM_CODE_START(ftrace_caller)
	ftrace_regs_entry	0
	j	ftrace_common
SYM_CODE_END(ftrace_caller)

SYM_CODE_START(ftrace_common)
#ifdef MARCH_HAS_Z196_FEATURES
	aghik	%r2,%r0,-MCOUNT_INSN_SIZE	/* ip: the call site */
	lgrl	%r4,function_trace_op
	lgrl	%r1,ftrace_func
#else
	lgr	%r2,%r0
	aghi	%r2,-MCOUNT_INSN_SIZE
	larl	%r4,function_trace_op
	lg	%r4,0(%r4)
	larl	%r1,ftrace_func
	lg	%r1,0(%r1)
#endif
	lgr	%r3,%r14			/* parent */
	la	%r5,STACK_FREGS(%r15)		/* fregs */
	BASR_EX	%r14,%r1
	lg	%r0,(STACK_FREGS_PTREGS_PSW+8)(%r15)
#ifdef MARCH_HAS_Z196_FEATURES
	ltg	%r1,STACK_FREGS_PTREGS_ORIG_GPR2(%r15)	/* direct caller set? */
	locgrz	%r1,%r0
#else
	lg	%r1,STACK_FREGS_PTREGS_ORIG_GPR2(%r15)
	ltgr	%r1,%r1
	jnz	0f
	lgr	%r1,%r0
#endif
0:	lmg	%r2,%r15,(STACK_FREGS_PTREGS_GPRS+2*8)(%r15)
	BR_EX	%r1
SYM_CODE_END(ftrace_common)
