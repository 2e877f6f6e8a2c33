/*
 * EXPERIMENT, not kernel code: rth_merged.S (v6.14 return_to_handler) with
 * one change, the return. Instead of the v6.5+ sequence that pushes a
 * return address and overwrites it so that the final ret is mispredicted
 * on purpose (call .Ldo_rop; mov %rdi,(%rsp); ret, the return-stack-buffer
 * friendly form used since v6.5, arch/x86/kernel/ftrace_64.S), it jumps to
 * the original return address as the <= v6.4 code did (JMP_NOSPEC %rdi).
 * Timed against rth-merged natively (package native), the difference is the
 * cost of that return sequence alone: the saves, frame and call are the same.
 */
SYM_CODE_START(return_to_handler)
	UNWIND_HINT_UNDEFINED
	ANNOTATE_NOENDBR
	subq	$(FRAME_SIZE), %rsp
	movq	%rax, RAX(%rsp)
	movq	%rdx, RDX(%rsp)
	movq	%rbp, RBP(%rsp)
	movq	%rsp, %rdi
	call	ftrace_return_to_handler
	movq	%rax, %rdi
	movq	RDX(%rsp), %rdx
	movq	RAX(%rsp), %rax
	addq	$(FRAME_SIZE), %rsp
	JMP_NOSPEC %rdi
SYM_CODE_END(return_to_handler)
