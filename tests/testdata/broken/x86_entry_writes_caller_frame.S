/* BROKEN on purpose: ftrace_caller (WITH_ARGS shape) that parks rax in the
   word above the parent slot, i.e. in the traced function's caller's frame.
   Must be caught as: stack. */
.macro save_regs
	subq	$(FRAME_SIZE), %rsp
	movq	%rax, RAX(%rsp)
	movq	%rcx, RCX(%rsp)
	movq	%rdx, RDX(%rsp)
	movq	%rsi, RSI(%rsp)
	movq	%rdi, RDI(%rsp)
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
	movq	%rax, FRAME_SIZE+16(%rsp)	/* the bug */
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
	movq	RDI(%rsp), %rdi
	movq	RSI(%rsp), %rsi
	movq	RDX(%rsp), %rdx
	movq	RCX(%rsp), %rcx
	movq	RAX(%rsp), %rax
	addq	$(FRAME_SIZE), %rsp
	RET
SYM_FUNC_END(ftrace_caller)
