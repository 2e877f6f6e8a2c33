/* BROKEN on purpose: arm64 return_to_handler that releases 16 bytes less
   than it allocated (still 16-byte aligned): the traced function's caller
   continues with sp 16 bytes too low. Must be caught as: stack. */
SYM_CODE_START(return_to_handler)
	sub	sp, sp, #FREGS_SIZE
	stp	x0, x1, [sp, #FREGS_X0]
	stp	x2, x3, [sp, #FREGS_X2]
	stp	x4, x5, [sp, #FREGS_X4]
	stp	x6, x7, [sp, #FREGS_X6]
	str	x29, [sp, #FREGS_FP]
	mov	x0, sp
	bl	ftrace_return_to_handler
	mov	x30, x0
	ldp	x0, x1, [sp, #FREGS_X0]
	ldp	x2, x3, [sp, #FREGS_X2]
	ldp	x4, x5, [sp, #FREGS_X4]
	ldp	x6, x7, [sp, #FREGS_X6]
	add	sp, sp, #(FREGS_SIZE - 16)
	ret
SYM_CODE_END(return_to_handler)
