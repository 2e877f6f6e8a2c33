/*
 * trampemu's x86-64 runtime: the kernel data the trampolines read, the
 * ftrace_stub they call before patching, a direct trampoline for
 * arch_ftrace_set_direct_caller, and the two drivers that call workloads:
 *  - trampemu_checked_loop: one host call between workload calls
 *    (trampemu_next records the last call's results and sets canary
 *    registers, arguments and the target of the next; after the last call
 *    the target is trampemu_exit);
 *  - trampemu_fast_loop: arguments and count from memory, no host calls
 *    (benchmarks with checks off).
 * Both end at trampemu_exit.
 */
	.data
	.balign 8
SYM_DATA_START(function_trace_op)
	.quad	0
SYM_DATA_END(function_trace_op)
SYM_DATA_START(trampemu_target)
	.quad	0
SYM_DATA_END(trampemu_target)
SYM_DATA_START(trampemu_args)
	.quad	0, 0, 0, 0, 0, 0
SYM_DATA_END(trampemu_args)
SYM_DATA_START(trampemu_count)
	.quad	0
SYM_DATA_END(trampemu_count)
SYM_DATA_START(trampemu_result)
	.quad	0, 0
SYM_DATA_END(trampemu_result)

	.text
SYM_FUNC_START_WEAK(ftrace_stub)
	RET
SYM_FUNC_END(ftrace_stub)

SYM_CODE_START(trampemu_checked_loop)
1:	call	trampemu_next
	call	*trampemu_target(%rip)
SYM_INNER_LABEL(trampemu_return, SYM_L_GLOBAL)
	jmp	1b
SYM_CODE_END(trampemu_checked_loop)

SYM_CODE_START(trampemu_fast_loop)
1:	movq	trampemu_args+0(%rip), %rdi
	movq	trampemu_args+8(%rip), %rsi
	movq	trampemu_args+16(%rip), %rdx
	movq	trampemu_args+24(%rip), %rcx
	movq	trampemu_args+32(%rip), %r8
	movq	trampemu_args+40(%rip), %r9
	call	*trampemu_target(%rip)
SYM_INNER_LABEL(trampemu_fast_return, SYM_L_GLOBAL)
	movq	%rax, trampemu_result(%rip)
	movq	%rdx, trampemu_result+8(%rip)
	decq	trampemu_count(%rip)
	jnz	1b
SYM_INNER_LABEL(trampemu_exit, SYM_L_GLOBAL)
	nop
SYM_CODE_END(trampemu_fast_loop)

/* A direct trampoline: ftrace_regs_caller returns here when a callback set
   ORIG_RAX; it reports to the host and returns into the traced function. */
SYM_CODE_START(trampemu_direct)
	call	trampemu_direct_hook
	RET
SYM_CODE_END(trampemu_direct)
