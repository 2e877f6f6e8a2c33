/* BROKEN on purpose: return_to_handler that ends in a plain "ret" instead of
   jumping to the address ftrace_return_to_handler returned: it "returns"
   through whatever the caller keeps at its sp. Must be caught as: control. */
SYM_CODE_START(return_to_handler)
	subq	$(FRAME_SIZE), %rsp
	movq	%rax, RAX(%rsp)
	movq	%rdx, RDX(%rsp)
	movq	%rbp, RBP(%rsp)
	movq	%rsp, %rdi
	call	ftrace_return_to_handler
	movq	RDX(%rsp), %rdx
	movq	RAX(%rsp), %rax
	addq	$(FRAME_SIZE), %rsp
	RET
SYM_CODE_END(return_to_handler)
