/* BROKEN on purpose: return_to_handler that saves rax but never reloads
   it, so the traced function's caller gets the original return address
   (what ftrace_return_to_handler returned) as its result. Must be caught
   as: clobber (and natively by the child's check that add(1, 2) == 3). */
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
	addq	$(FRAME_SIZE), %rsp
	JMP_NOSPEC %rdi
SYM_CODE_END(return_to_handler)
