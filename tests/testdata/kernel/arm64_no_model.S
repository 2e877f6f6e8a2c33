/*
 * trampemu test file that fits no arm64 kernel model: a pt_regs entry
 * (S_*, v5.5-v6.1) with a return_to_handler that passes a struct
 * ftrace_regs (FREGS_*, v6.14+).
 */
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_REGS
SYM_CODE_START(ftrace_caller)
	sub	sp, sp, #(PT_REGS_SIZE + 16)
	stp	x0, x1, [sp, #S_X0]
	str	x30, [sp, #S_PC]
	ldp	x0, x1, [sp, #S_X0]
	add	sp, sp, #(PT_REGS_SIZE + 16)
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
