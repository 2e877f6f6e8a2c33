/*
 * trampemu test file that fits no x86-64 kernel model: the old graph path
 * (ftrace_graph_call, <= v5.15) with a v6.14+ return_to_handler.
 */
SYM_FUNC_START(ftrace_caller)
SYM_INNER_LABEL(ftrace_call, SYM_L_GLOBAL)
	call	ftrace_stub
SYM_INNER_LABEL(ftrace_graph_call, SYM_L_GLOBAL)
	jmp	ftrace_stub
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
