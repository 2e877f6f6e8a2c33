/*
 * arm64 return_to_handler as merged in v6.14 ("fgraph: Replace
 * fgraph_ret_regs with ftrace_regs"; arch/arm64/kernel/entry-ftrace.S,
 * menglongdong/bpf@be3811727ad7; steps from shared/reference/arm64.md
 * "return_to_handler" C), written for trampemu: a struct ftrace_regs
 * (FREGS_SIZE, 112 bytes) whose asm-written slots are x0-x7 and fp only;
 * ftrace_return_to_handler(struct ftrace_regs *) sets pc to the original
 * return address before the callbacks run. x8, direct_tramp, lr and sp
 * stay unwritten.
 */
	.text
SYM_CODE_START(return_to_handler)
	sub	sp, sp, #FREGS_SIZE
	stp	x0, x1, [sp, #FREGS_X0]
	stp	x2, x3, [sp, #FREGS_X2]
	stp	x4, x5, [sp, #FREGS_X4]
	stp	x6, x7, [sp, #FREGS_X6]
	str	x29, [sp, #FREGS_FP]		/* the caller's fp, for the FP test */
	mov	x0, sp
	bl	ftrace_return_to_handler
	mov	x30, x0				/* the original return address */
	ldp	x0, x1, [sp, #FREGS_X0]
	ldp	x2, x3, [sp, #FREGS_X2]
	ldp	x4, x5, [sp, #FREGS_X4]
	ldp	x6, x7, [sp, #FREGS_X6]
	add	sp, sp, #FREGS_SIZE
	ret
SYM_CODE_END(return_to_handler)
