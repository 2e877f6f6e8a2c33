/* BROKEN on purpose: return_to_handler (v6.14 shape) that never reloads
   rdx, the second return register: a 128-bit result loses its high half.
   Must be caught as: clobber. */
SYM_CODE_START(return_to_handler)
	subq	$(FRAME_SIZE), %rsp
	movq	%rax, RAX(%rsp)
	movq	%rdx, RDX(%rsp)
	movq	%rbp, RBP(%rsp)
	movq	%rsp, %rdi
	call	ftrace_return_to_handler
	movq	%rax, %rdi
	movq	RAX(%rsp), %rax
	addq	$(FRAME_SIZE), %rsp
	call	.Ldo_rop
	int3
.Ldo_rop:
	mov	%rdi, (%rsp)
	RET
SYM_CODE_END(return_to_handler)
