/*
 * trampemu test file that fits no x86-64 kernel model: an ftrace_caller
 * that passes regs = NULL (<= v5.10) without ftrace_graph_call (v5.16+),
 * a combination no era's entry has.
 */
SYM_FUNC_START(ftrace_caller)
	movq	$0, %rcx
SYM_INNER_LABEL(ftrace_call, SYM_L_GLOBAL)
	call	ftrace_stub
	RET
SYM_FUNC_END(ftrace_caller)

SYM_CODE_START(return_to_handler)
	subq	$(FRAME_SIZE), %rsp
	movq	%rax, RAX(%rsp)
	movq	%rsp, %rdi
	call	ftrace_return_to_handler
	addq	$(FRAME_SIZE), %rsp
	jmp	*%rax
SYM_CODE_END(return_to_handler)
