/* x86_entry_ok.S storing the wrong resume address: the word its RET
   pops is ip (the fentry call site) instead of ip + MCOUNT_INSN_SIZE, so
   every return runs the call again and the kernel would go round for
   ever. Must be caught as: control, at the first return (the call
   stops there), not at an instruction limit. */
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
	movq	$0, CS(%rsp)
SYM_INNER_LABEL(ftrace_call, SYM_L_GLOBAL)
	call	ftrace_stub
	movq	RIP(%rsp), %rax
	subq	$MCOUNT_INSN_SIZE, %rax
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
