/*
 * trampemu's x86-64 runtime (its data is in data.S): the ftrace_stub the
 * trampolines call before patching, a direct trampoline for
 * arch_ftrace_set_direct_caller, and the two drivers that call workloads:
 *  - trampemu_checked_loop: batches of calls described in memory (canary
 *    registers, arguments, target), one host call per batch (trampemu_next
 *    collects the results and writes the next batch; TREC_* offsets come
 *    from the harness);
 *  - trampemu_fast_loop: arguments and count from memory, no host calls
 *    (benchmarks with checks off).
 * Both end at trampemu_exit.
 */
	.text
SYM_FUNC_START_WEAK(ftrace_stub)
	RET
SYM_FUNC_END(ftrace_stub)

/* The checked driver runs a batch of calls from trampemu_calls without Go:
   r11 = trampemu_cursor (the record of the call being made; the C watch
   log copies it into every event, so Go knows which call a trampoline run
   belongs to); every general register but rsp gets the record's value
   (canaries and arguments), the call goes to the record's target, and rax
   and rdx come back into the record. When the cursor reaches trampemu_end
   the one host call trampemu_next finishes the batch and writes the next
   (an empty batch ends the run). */
SYM_CODE_START(trampemu_checked_loop)
	UNWIND_HINT_END_OF_STACK	/* the bottom of every stack walk (objtool, ORC) */
1:	movq	trampemu_cursor(%rip), %r11
	cmpq	trampemu_end(%rip), %r11
	jb	2f
	call	trampemu_next
	movq	trampemu_cursor(%rip), %r11
	cmpq	trampemu_end(%rip), %r11
	jae	trampemu_exit
2:	movq	TREC_TARGET(%r11), %rax
	movq	%rax, trampemu_target(%rip)
	movq	TREC_STACK(%r11), %rax		/* stack arguments 7 and 8 */
	movq	%rax, 0(%rsp)
	movq	TREC_STACK+8(%r11), %rax
	movq	%rax, 8(%rsp)
	movq	TREC_RAX(%r11), %rax
	movq	TREC_RBX(%r11), %rbx
	movq	TREC_RCX(%r11), %rcx
	movq	TREC_RDX(%r11), %rdx
	movq	TREC_RSI(%r11), %rsi
	movq	TREC_RDI(%r11), %rdi
	movq	TREC_RBP(%r11), %rbp
	movq	TREC_R8(%r11), %r8
	movq	TREC_R9(%r11), %r9
	movq	TREC_R10(%r11), %r10
	movq	TREC_R12(%r11), %r12
	movq	TREC_R13(%r11), %r13
	movq	TREC_R14(%r11), %r14
	movq	TREC_R15(%r11), %r15
	movq	TREC_R11(%r11), %r11
	call	*trampemu_target(%rip)
SYM_INNER_LABEL(trampemu_return, SYM_L_GLOBAL)
	movq	trampemu_cursor(%rip), %r11
	movq	%rax, TREC_OUT(%r11)
	movq	%rdx, TREC_OUT+8(%r11)
	addq	$TREC_SIZE, %r11
	movq	%r11, trampemu_cursor(%rip)
	jmp	1b
SYM_CODE_END(trampemu_checked_loop)

SYM_CODE_START(trampemu_fast_loop)
	UNWIND_HINT_END_OF_STACK
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
	UNWIND_HINT_FUNC		/* entered by a ret with the traced function's return address on top */
	call	trampemu_direct_hook
	RET
SYM_CODE_END(trampemu_direct)
