/*
 * arm64 return_to_handler, legacy form (<= v6.4,
 * arch/arm64/kernel/entry-ftrace.S, Rtoax/linux-5.10.13@0b82e3ea9acc; steps
 * from shared/reference/arm64.md "return_to_handler" A), written for
 * trampemu: x0-x7 (the return value registers, x0-x7 for an HFA/HVA) in a
 * 64-byte block, and
 * unsigned long ftrace_return_to_handler(unsigned long frame_pointer)
 * gets x29, which HAVE_FUNCTION_GRAPH_FP_TEST compares with the fp
 * prepare_ftrace_return was given. The callbacks get no registers.
 */
	.text
SYM_CODE_START(return_to_handler)
	sub	sp, sp, #64
	stp	x0, x1, [sp]
	stp	x2, x3, [sp, #16]
	stp	x4, x5, [sp, #32]
	stp	x6, x7, [sp, #48]
	mov	x0, x29				/* the traced function's caller's fp */
	bl	ftrace_return_to_handler
	mov	x30, x0				/* the original return address */
	ldp	x0, x1, [sp]
	ldp	x2, x3, [sp, #16]
	ldp	x4, x5, [sp, #32]
	ldp	x6, x7, [sp, #48]
	add	sp, sp, #64
	ret
SYM_CODE_END(return_to_handler)
