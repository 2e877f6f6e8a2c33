/*
 * x86-64 return_to_handler with HAVE_FUNCTION_GRAPH_RETVAL (v6.5 .. v6.13),
 * arch/x86/kernel/ftrace_64.S: a 24-byte struct fgraph_ret_regs {ax, dx, bp}
 * is passed to ftrace_return_to_handler(struct fgraph_ret_regs *), and the
 * return goes through call/mov/ret instead of jmp *%rdi (IBT: return
 * addresses carry no ENDBR).
 */
SYM_CODE_START(return_to_handler)
	UNWIND_HINT_UNDEFINED
	ANNOTATE_NOENDBR
	subq	$24, %rsp
	movq	%rax, 0(%rsp)			/* fgraph_ret_regs.ax */
	movq	%rdx, 8(%rsp)			/* .dx */
	movq	%rbp, 16(%rsp)			/* .bp */
	movq	%rsp, %rdi
	call	ftrace_return_to_handler
	movq	%rax, %rdi
	movq	8(%rsp), %rdx
	movq	(%rsp), %rax
	addq	$24, %rsp
	ANNOTATE_INTRA_FUNCTION_CALL
	call	.Ldo_rop
	int3
.Ldo_rop:
	mov	%rdi, (%rsp)
	RET
SYM_CODE_END(return_to_handler)
