/*
 * trampemu test file that fits no s390x kernel model: ftrace_regs_caller
 * set to ftrace_caller (<= v5.13) without ftrace_graph_caller (v6.13+), a
 * combination no era's entry has.
 */
ENTRY(ftrace_caller)
	.globl	ftrace_regs_caller
	.set	ftrace_regs_caller,ftrace_caller
	br	%r0
ENDPROC(ftrace_caller)

SYM_FUNC_START(return_to_handler)
	aghi	%r15,-STACK_FRAME_SIZE_FREGS
	stg	%r2,(STACK_FREGS_PTREGS_GPRS+2*8)(%r15)
	brasl	%r14,ftrace_return_to_handler
	aghi	%r15,STACK_FRAME_SIZE_FREGS
	br	%r2
SYM_FUNC_END(return_to_handler)
