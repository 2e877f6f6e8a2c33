/* A correct return_to_handler written from scratch (the v6.14 shape, with
   RSP filled like the post-v6.19 fix): must pass with no error finding. */
SYM_CODE_START(return_to_handler)
	movq	%rsp, %rdi
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
	addq	$(FRAME_SIZE), %rsp
	JMP_NOSPEC %rdi
SYM_CODE_END(return_to_handler)
