/* BROKEN on purpose: return_to_handler that uses the callee-saved rbx as
   scratch for the return address. Must be caught as: clobber. */
SYM_CODE_START(return_to_handler)
	subq	$(FRAME_SIZE), %rsp
	movq	%rax, RAX(%rsp)
	movq	%rdx, RDX(%rsp)
	movq	%rbp, RBP(%rsp)
	movq	%rsp, %rdi
	call	ftrace_return_to_handler
	movq	%rax, %rbx
	movq	RDX(%rsp), %rdx
	movq	RAX(%rsp), %rax
	addq	$(FRAME_SIZE), %rsp
	JMP_NOSPEC %rbx
SYM_CODE_END(return_to_handler)
