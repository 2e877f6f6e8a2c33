/* emu test program, x86-64: host calls, loops and deliberate faults. */
	.text
SYM_FUNC_START(guest_add)
	call	host_add		/* rax = host_add(rdi, rsi) */
	incq	%rax
	RET
SYM_FUNC_END(guest_add)

SYM_FUNC_START(guest_loop)		/* calls host_count(i) for i = rdi..1 */
	pushq	%rbx
	movq	%rdi, %rbx
1:	movq	%rbx, %rdi
	call	host_count
	decq	%rbx
	jnz	1b
	popq	%rbx
	RET
SYM_FUNC_END(guest_loop)

SYM_FUNC_START(guest_stores)		/* rdi = iterations: a store-heavy loop */
	movq	%rsp, %rsi
1:	movq	%rdi, -8(%rsi)
	movq	%rdi, -16(%rsi)
	movq	%rdi, -24(%rsi)
	movq	%rdi, -32(%rsi)
	decq	%rdi
	jnz	1b
	RET
SYM_FUNC_END(guest_stores)

SYM_FUNC_START(bad_read)
	movq	0x1000, %rax
	RET
SYM_FUNC_END(bad_read)

SYM_FUNC_START(bad_write)
	movq	%rax, 0x1000
	RET
SYM_FUNC_END(bad_write)

SYM_FUNC_START(bad_insn)
	ud2
SYM_FUNC_END(bad_insn)

SYM_FUNC_START(spin)
1:	jmp	1b
SYM_FUNC_END(spin)

SYM_FUNC_START(split_a)			/* a branch straight into split_b */
	jmp	split_b
SYM_FUNC_END(split_a)

SYM_FUNC_START(split_b)
	RET
SYM_FUNC_END(split_b)

SYM_CODE_START(done)
	nop
SYM_CODE_END(done)
