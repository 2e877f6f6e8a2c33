/*
 * x86-64 return_to_handler, legacy form (<= v6.4), arch/x86/kernel/ftrace_64.S:
 * saves rax/rdx on the stack, passes the frame pointer in rdi to
 * unsigned long ftrace_return_to_handler(unsigned long frame_pointer)
 * and jumps to the original return address it returns. Callbacks get no
 * registers (no return value).
 */
SYM_CODE_START(return_to_handler)
	UNWIND_HINT_EMPTY
	ANNOTATE_NOENDBR
	subq	$24, %rsp
	movq	%rax, (%rsp)
	movq	%rdx, 8(%rsp)
	movq	%rbp, %rdi
	call	ftrace_return_to_handler
	movq	%rax, %rdi
	movq	8(%rsp), %rdx
	movq	(%rsp), %rax
	addq	$24, %rsp
	JMP_NOSPEC %rdi
SYM_CODE_END(return_to_handler)
