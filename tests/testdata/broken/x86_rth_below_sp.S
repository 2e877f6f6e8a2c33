/* Broken: the return_to_handler of x86_rth_ok.S stores rax, rdx and rbp
   into its frame before it moves rsp down over it. The kernel has no red
   zone (-mno-red-zone): an interrupt between the stores and the subq
   pushes its frame there and the return value is lost. Caught by the
   interrupt model as a stack finding at those boundaries. */
SYM_CODE_START(return_to_handler)
	movq	%rsp, %rdi
	movq	%rax, RAX-FRAME_SIZE(%rsp)
	movq	%rdx, RDX-FRAME_SIZE(%rsp)
	movq	%rbp, RBP-FRAME_SIZE(%rsp)
	subq	$(FRAME_SIZE), %rsp
	movq	%rdi, RSP(%rsp)
	movq	%rsp, %rdi
	call	ftrace_return_to_handler
	movq	%rax, %rdi
	movq	RDX(%rsp), %rdx
	movq	RAX(%rsp), %rax
	addq	$(FRAME_SIZE), %rsp
	JMP_NOSPEC %rdi
SYM_CODE_END(return_to_handler)
