/* A return_to_handler in the manner of arch/powerpc/kernel/trace/
   ftrace_64_mprofile.S (v6.x), written for trampemu's wrong-arch test. */
_GLOBAL(return_to_handler)
	std	r0, LRSAVE(r1)
	stdu	r1, -112(r1)
	std	r3, 48(r1)
	std	r4, 56(r1)
	mr	r3, r1
	bl	ftrace_return_to_handler
	nop
	mtlr	r3
	ld	r3, 48(r1)
	ld	r4, 56(r1)
	addi	r1, r1, 112
	blr
