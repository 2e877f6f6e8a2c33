/*
 * x86-64 return_to_handler as merged in v6.14 ("fgraph: Replace
 * fgraph_ret_regs with ftrace_regs"): an ftrace_regs whose asm-written slots
 * are RAX, RDX and RBP only; ftrace_return_to_handler(struct ftrace_regs *)
 * writes RIP (the original return address) before the callbacks run.
 */
SYM_CODE_START(return_to_handler)
	UNWIND_HINT_UNDEFINED
	ANNOTATE_NOENDBR
	subq	$(FRAME_SIZE), %rsp
	movq	%rax, RAX(%rsp)
	movq	%rdx, RDX(%rsp)
	movq	%rbp, RBP(%rsp)
	movq	%rsp, %rdi
	call	ftrace_return_to_handler
	movq	%rax, %rdi
	movq	RDX(%rsp), %rdx
	movq	RAX(%rsp), %rax
	addq	$(FRAME_SIZE), %rsp
	ANNOTATE_INTRA_FUNCTION_CALL
	call	.Ldo_rop
	int3
.Ldo_rop:
	mov	%rdi, (%rsp)
	RET
SYM_CODE_END(return_to_handler)
