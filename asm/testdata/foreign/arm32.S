@ A return_to_handler in the manner of arch/arm/kernel/entry-ftrace.S
@ (v6.x), written for trampemu's wrong-arch test.
ENTRY(return_to_handler)
	stmdb	sp!, {r0-r3}
	add	r0, sp, #16
	bl	ftrace_return_to_handler
	mov	lr, r0
	ldmia	sp!, {r0-r3}
	ret	lr
	push	{r4, lr}
	pop	{r4, pc}
	bx	lr
ENDPROC(return_to_handler)
