/* BROKEN on purpose: ftrace_caller that saves rdi in the RSI slot and rsi in
   the RDI slot (and restores them crosswise, so the registers survive): a
   callback reading the arguments gets them swapped. Must be caught as:
   wrong-value. */
.macro save_regs
	subq	$(FRAME_SIZE), %rsp
	movq	%rax, RAX(%rsp)
	movq	%rcx, RCX(%rsp)
	movq	%rdx, RDX(%rsp)
	movq	%rsi, RDI(%rsp)
	movq	%rdi, RSI(%rsp)
	movq	%r8, R8(%rsp)
	movq	%r9, R9(%rsp)
	movq	$0, ORIG_RAX(%rsp)
	movq	%rbp, RBP(%rsp)
	movq	FRAME_SIZE+8(%rsp), %rsi
	movq	FRAME_SIZE(%rsp), %rdi
	movq	%rdi, RIP(%rsp)
	subq	$MCOUNT_INSN_SIZE, %rdi
.endm
SYM_FUNC_START(ftrace_caller)
	save_regs
	leaq	FRAME_SIZE+8(%rsp), %rcx
	movq	%rcx, RSP(%rsp)
	movq	function_trace_op(%rip), %rdx
	leaq	(%rsp), %rcx
	movq	$0, CS(%rsp)
SYM_INNER_LABEL(ftrace_call, SYM_L_GLOBAL)
	call	ftrace_stub
	movq	RIP(%rsp), %rax
	movq	%rax, FRAME_SIZE(%rsp)
	movq	RBP(%rsp), %rbp
	movq	R9(%rsp), %r9
	movq	R8(%rsp), %r8
	movq	RSI(%rsp), %rdi
	movq	RDI(%rsp), %rsi
	movq	RDX(%rsp), %rdx
	movq	RCX(%rsp), %rcx
	movq	RAX(%rsp), %rax
	addq	$(FRAME_SIZE), %rsp
	RET
SYM_FUNC_END(ftrace_caller)
