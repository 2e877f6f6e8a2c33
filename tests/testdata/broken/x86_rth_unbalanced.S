/* BROKEN on purpose: return_to_handler that releases 8 bytes less than it
   allocated: the caller gets a different rsp back. Must be caught as: stack. */
SYM_CODE_START(return_to_handler)
	subq	$(FRAME_SIZE), %rsp
	movq	%rax, RAX(%rsp)
	movq	%rdx, RDX(%rsp)
	movq	%rbp, RBP(%rsp)
	movq	%rsp, %rdi
	call	ftrace_return_to_handler
	movq	%rax, %rdi
	movq	RDX(%rsp), %rdx
	movq	RAX(%rsp), %rax
	addq	$(FRAME_SIZE)-8, %rsp
	JMP_NOSPEC %rdi
SYM_CODE_END(return_to_handler)
