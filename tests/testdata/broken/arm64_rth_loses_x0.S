/* BROKEN on purpose: arm64 return_to_handler that reloads x1-x7 but not
   x0, so the traced function's result comes back as the original return
   address ftrace_return_to_handler returned. Must be caught as: clobber. */
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
	ldr	x1, [sp, #FREGS_X0 + 8]
	ldp	x2, x3, [sp, #FREGS_X2]
	ldp	x4, x5, [sp, #FREGS_X4]
	ldp	x6, x7, [sp, #FREGS_X6]
	add	sp, sp, #FREGS_SIZE
	ret
SYM_CODE_END(return_to_handler)
