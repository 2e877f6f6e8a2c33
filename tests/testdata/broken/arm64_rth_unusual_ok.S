/* Correct but unusual: an arm64 return_to_handler that allocates and
   releases its struct ftrace_regs with pre-/post-indexed pairs, restores
   x0-x7 in reverse order and leaves through "br x16" (IP0, free at a
   return) instead of "ret" with x30, which then keeps the address it was
   given. Everything the caller of the traced function can see is as
   after a plain return: must pass with no error finding. */
SYM_CODE_START(return_to_handler)
	stp	x0, x1, [sp, #-FREGS_SIZE]!
	stp	x2, x3, [sp, #FREGS_X2]
	stp	x4, x5, [sp, #FREGS_X4]
	stp	x6, x7, [sp, #FREGS_X6]
	str	x29, [sp, #FREGS_FP]
	mov	x0, sp
	bl	ftrace_return_to_handler
	mov	x16, x0
	mov	x30, x0
	ldp	x6, x7, [sp, #FREGS_X6]
	ldp	x4, x5, [sp, #FREGS_X4]
	ldp	x2, x3, [sp, #FREGS_X2]
	ldp	x0, x1, [sp], #FREGS_SIZE
	br	x16
SYM_CODE_END(return_to_handler)
