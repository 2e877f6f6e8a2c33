/* BROKEN on purpose: ftrace_caller that does not clear CS: the frame's CS
   holds whatever was on the stack, so arch_ftrace_get_regs() hands a partial
   frame to a full-regs user as if it were a pt_regs. Must be caught as:
   stale-read. */
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
	leaq	FRAME_SIZE+8(%rsp), %rcx
	movq	%rcx, RSP(%rsp)
	movq	function_trace_op(%rip), %rdx
	leaq	(%rsp), %rcx
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
