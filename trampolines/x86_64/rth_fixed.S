/*
 * x86-64 return_to_handler after v6.19 ("x86/fgraph: Fix return_to_handler
 * regs.rsp value"): the sp at entry is taken before subq $8 and stored as
 * RSP, so RSP holds the caller's stack pointer again. Written by the asm:
 * RAX, RDX, RBP, RSP; the C side writes RIP.
 */
SYM_CODE_START(return_to_handler)
	UNWIND_HINT_UNDEFINED
	ANNOTATE_NOENDBR
	movq	%rsp, %rdi			/* the sp the traced function returned with */
	subq	$8, %rsp
	UNWIND_HINT_FUNC			/* 20a0bc10272f: the ret slot is the frame's return address again */
	subq	$(FRAME_SIZE), %rsp
	movq	%rax, RAX(%rsp)
	movq	%rdx, RDX(%rsp)
	movq	%rbp, RBP(%rsp)
	movq	%rdi, RSP(%rsp)
	movq	%rsp, %rdi
	call	ftrace_return_to_handler
	movq	%rax, %rdi
	movq	RDX(%rsp), %rdx
	movq	RAX(%rsp), %rax
	addq	$(FRAME_SIZE)+8, %rsp
	ANNOTATE_INTRA_FUNCTION_CALL
	call	.Ldo_rop
	int3
.Ldo_rop:
	mov	%rdi, (%rsp)
	RET
SYM_CODE_END(return_to_handler)
