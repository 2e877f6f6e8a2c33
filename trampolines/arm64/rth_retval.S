/*
 * arm64 return_to_handler with struct fgraph_ret_regs (v6.5-v6.13,
 * HAVE_FUNCTION_GRAPH_RETVAL; arch/arm64/kernel/entry-ftrace.S,
 * intel-lab-lkp/linux@48493697a285; steps from shared/reference/arm64.md
 * "return_to_handler" B), written for trampemu: x0-x7 and fp in an
 * 80-byte fgraph_ret_regs (FGRET_REGS_SIZE: the v7 of that series had 72,
 * Mark Rutland asked for the pad that keeps sp 16-byte aligned), its
 * address the argument of ftrace_return_to_handler.
 */
	.text
SYM_CODE_START(return_to_handler)
	sub	sp, sp, #FGRET_REGS_SIZE
	stp	x0, x1, [sp, #FGRET_REGS_X0]
	stp	x2, x3, [sp, #FGRET_REGS_X2]
	stp	x4, x5, [sp, #FGRET_REGS_X4]
	stp	x6, x7, [sp, #FGRET_REGS_X6]
	str	x29, [sp, #FGRET_REGS_FP]	/* the caller's fp, for the FP test */
	mov	x0, sp
	bl	ftrace_return_to_handler
	mov	x30, x0				/* the original return address */
	ldp	x0, x1, [sp, #FGRET_REGS_X0]
	ldp	x2, x3, [sp, #FGRET_REGS_X2]
	ldp	x4, x5, [sp, #FGRET_REGS_X4]
	ldp	x6, x7, [sp, #FGRET_REGS_X6]
	add	sp, sp, #FGRET_REGS_SIZE
	ret
SYM_CODE_END(return_to_handler)
