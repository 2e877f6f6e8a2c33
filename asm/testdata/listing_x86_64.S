/*
 * Golden-listing input for package asm (x86-64): a small ftrace_caller-like
 * trampoline in kernel style. It uses the prelude's linkage macros, the
 * asm-offsets names of pt_regs, a call to a host function (ftrace_stub), a
 * rip-relative load of a data symbol defined here, and endbr64.
 */
	.data
	.balign 8
SYM_DATA_START(listing_op)
	.quad	0x1122334455667788
SYM_DATA_END(listing_op)

	.text
SYM_FUNC_START(listing_caller)
	ENDBR
	subq	$FRAME_SIZE, %rsp
	movq	%rax, RAX(%rsp)
	movq	%rdi, RDI(%rsp)
	movq	%rsi, RSI(%rsp)
	movq	$0, ORIG_RAX(%rsp)
	movq	FRAME_SIZE(%rsp), %rdi		/* ip + MCOUNT_INSN_SIZE */
	subq	$MCOUNT_INSN_SIZE, %rdi
	leaq	FRAME_SIZE+8(%rsp), %rcx
	movq	%rcx, RSP(%rsp)
	pushq	RIP(%rsp)			/* a memory push */
	popq	RIP(%rsp)
SYM_INNER_LABEL(listing_op_ptr, SYM_L_GLOBAL)
	movq	listing_op(%rip), %rdx
	movq	%rsp, %rcx
	movq	$__KERNEL_CS, CS(%rsp)
SYM_INNER_LABEL(listing_call, SYM_L_GLOBAL)
	call	ftrace_stub
	testq	%rax, %rax
	jnz	1f
	movq	RSI(%rsp), %rsi
	movq	RDI(%rsp), %rdi
1:	movq	RAX(%rsp), %rax
	addq	$FRAME_SIZE, %rsp
	RET
SYM_FUNC_END(listing_caller)

SYM_FUNC_START(listing_indirect)
	pushfq
	pushq	%rbp
	movq	%rsp, %rbp
	call	*%rdi
	leaq	(%rdi,%rsi,8), %rax
	popq	%rbp
	popfq
	jmp	*%rax
SYM_FUNC_END(listing_indirect)
