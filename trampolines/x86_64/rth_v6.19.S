/*
 * x86-64 return_to_handler as of v6.19 (the ORC unwind fix): subq $8 first
 * re-exposes the slot that held return_to_handler, then stores RSP = the
 * frame base, which is wrong (a kernel bug, fixed after v6.19 by "x86/fgraph:
 * Fix return_to_handler regs.rsp value"). The C side
 * (arch_ftrace_partial_regs) sets CS = __KERNEL_CS and clears EFLAGS.FIXED.
 */
SYM_CODE_START(return_to_handler)
	UNWIND_HINT_UNDEFINED
	ANNOTATE_NOENDBR
	subq	$8, %rsp
	UNWIND_HINT_FUNC			/* 20a0bc10272f: the ret slot is the frame's return address again */
	subq	$(FRAME_SIZE), %rsp
	movq	%rax, RAX(%rsp)
	movq	%rdx, RDX(%rsp)
	movq	%rbp, RBP(%rsp)
	movq	%rsp, RSP(%rsp)			/* the bug: the frame base, not the caller's sp */
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
