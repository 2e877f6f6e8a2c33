/*
 * Golden-listing input for package asm (arm64): a small ftrace_caller-like
 * trampoline in kernel style. It uses the prelude's linkage macros and
 * ldr_l, the asm-offsets names of struct ftrace_regs, a call to a host
 * function (ftrace_stub), a literal load and bti c.
 */
	.data
	.balign 8
SYM_DATA_START(listing_op)
	.quad	0x1122334455667788
SYM_DATA_END(listing_op)

	.text
SYM_CODE_START(listing_caller)
	bti	c
	mov	x10, sp
	sub	sp, sp, #(FREGS_SIZE + 16)
	stp	x0, x1, [sp, #FREGS_X0]
	stp	x2, x3, [sp, #FREGS_X2]
	str	x9, [sp, #FREGS_LR]
	str	x10, [sp, #FREGS_SP]
	str	x30, [sp, #FREGS_PC]
	stp	x29, x30, [sp, #FREGS_SIZE]
	add	x29, sp, #FREGS_SIZE
	sub	x0, x30, #AARCH64_INSN_SIZE
	mov	x1, x9
	mov	x3, sp
SYM_INNER_LABEL(listing_op_ptr, SYM_L_GLOBAL)
	ldr_l	x2, listing_op
SYM_INNER_LABEL(listing_call, SYM_L_GLOBAL)
	bl	ftrace_stub
	cbz	x0, 1f
	ldr	x4, 2f
	blr	x4
1:	ldp	x0, x1, [sp, #FREGS_X0]
	ldp	x2, x3, [sp, #FREGS_X2]
	ldr	x30, [sp, #FREGS_LR]
	ldr	x9, [sp, #FREGS_PC]
	add	sp, sp, #(FREGS_SIZE + 16)
	ret	x9
	.balign	8
2:	.quad	0
SYM_CODE_END(listing_caller)

SYM_FUNC_START(listing_leaf)
	paciasp
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
	ldr	w0, [x0, #4]
	ldp	x29, x30, [sp], #16
	autiasp
	ret
SYM_FUNC_END(listing_leaf)
