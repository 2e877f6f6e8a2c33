/*
 * trampemu test file that fits no arm64 kernel model: an ftrace_caller
 * that fills a struct ftrace_regs (FREGS_*, v6.2+) with the NOP at
 * ftrace_graph_call (<= v5.19), a combination no era's entry has.
 */
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_ARGS
SYM_CODE_START(ftrace_caller)
	sub	sp, sp, #FREGS_SIZE
	stp	x0, x1, [sp, #FREGS_X0]
SYM_INNER_LABEL(ftrace_graph_call, SYM_L_GLOBAL)
	nop
	ldp	x0, x1, [sp, #FREGS_X0]
	add	sp, sp, #FREGS_SIZE
	ret	x30
SYM_CODE_END(ftrace_caller)
#endif

SYM_CODE_START(return_to_handler)
	sub	sp, sp, #FREGS_SIZE
	stp	x0, x1, [sp, #FREGS_X0]
	str	x29, [sp, #FREGS_FP]
	mov	x0, sp
	bl	ftrace_return_to_handler
	mov	x30, x0
	ldp	x0, x1, [sp, #FREGS_X0]
	add	sp, sp, #FREGS_SIZE
	ret
SYM_CODE_END(return_to_handler)
