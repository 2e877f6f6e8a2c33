/*
 * EXPERIMENT, not kernel code: rth_full_fregs.S (the rejected v7 patch's
 * return_to_handler, every argument register, rbp and RSP saved) with one
 * change, the return: JMP_NOSPEC %rdi as in <= v6.4 instead of the v6.5+
 * call; mov %rdi,(%rsp); ret. With exp_merged_jmp.S it completes a 2x2
 * design: {3 saves, 9 saves} x {deliberately mispredicted ret, jmp}, so the
 * cost of the extra stores and the cost of the return sequence are each
 * measured with the other held fixed (package native).
 */
SYM_CODE_START(return_to_handler)
	UNWIND_HINT_UNDEFINED
	ANNOTATE_NOENDBR
	subq	$(FRAME_SIZE), %rsp
	movq	%rax, RAX(%rsp)
	movq	%rcx, RCX(%rsp)
	movq	%rdx, RDX(%rsp)
	movq	%rsi, RSI(%rsp)
	movq	%rdi, RDI(%rsp)
	movq	%r8, R8(%rsp)
	movq	%r9, R9(%rsp)
	movq	%rbp, RBP(%rsp)
	leaq	FRAME_SIZE(%rsp), %rcx
	movq	%rcx, RSP(%rsp)
	movq	%rsp, %rdi
	call	ftrace_return_to_handler
	movq	%rax, %rdi
	movq	RDX(%rsp), %rdx
	movq	RAX(%rsp), %rax
	addq	$(FRAME_SIZE), %rsp
	JMP_NOSPEC %rdi
SYM_CODE_END(return_to_handler)
