/*
 * x86-64 return_to_handler from the rejected v7 patch "Enable
 * HAVE_FUNCTION_GRAPH_FREGS" (Feb 2024): a full ftrace_regs with every
 * argument register, rbp and RSP, although only rax/rdx carry a value on
 * return. Steven Rostedt: "this unconditionally slows down function graph
 * tracer"; "ftrace_regs can hold incomplete data".
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
	ANNOTATE_INTRA_FUNCTION_CALL
	call	.Ldo_rop
	int3
.Ldo_rop:
	mov	%rdi, (%rsp)
	RET
SYM_CODE_END(return_to_handler)
