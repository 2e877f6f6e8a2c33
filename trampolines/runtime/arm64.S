/*
 * trampemu's arm64 runtime (its data is in data.S): ftrace_stub, the
 * direct trampoline for arch_ftrace_set_direct_caller, and the two drivers
 * that call workloads (see the x86-64 runtime). Kernel text here is
 * AAPCS64: x16/x17 are the intra-procedure-call scratch registers, which
 * the drivers use for the cursor and the call target.
 */
/* The address of a runtime data word in reg, from absolute relocations
   (movz/movk): the data region is beyond adr's reach, and objdump and the
   tool's disassembler annotate an adrp page target differently. */
.macro data_addr reg, sym
	movz	\reg, #:abs_g3:\sym
	movk	\reg, #:abs_g2_nc:\sym
	movk	\reg, #:abs_g1_nc:\sym
	movk	\reg, #:abs_g0_nc:\sym
.endm

	.text
/* arch/arm64/kernel/entry-ftrace.S: ftrace_stub is a bare "ret" */
SYM_FUNC_START_WEAK(ftrace_stub)
	ret
SYM_FUNC_END(ftrace_stub)

/* The checked driver runs a batch of calls from trampemu_calls without Go:
   x16 = trampemu_cursor (the record being called; the C watch log copies
   the cursor word into every event); the record's stack arguments 9 and
   10 go to [sp] and [sp, #8], x0-x15 and x18-x29 get the record's values
   (canaries, arguments, the frame pointer), x17 the target and x16 its
   record value last; blr sets x30; x0 and x1 come back into the record.
   At trampemu_end the host call trampemu_next finishes the batch and
   writes the next (an empty batch ends the run). */
SYM_CODE_START(trampemu_checked_loop)
1:	data_addr	x16, trampemu_cursor
	ldr	x16, [x16]
	data_addr	x17, trampemu_end
	ldr	x17, [x17]
	cmp	x16, x17
	b.lo	2f
	bl	trampemu_next
	data_addr	x16, trampemu_cursor
	ldr	x16, [x16]
	data_addr	x17, trampemu_end
	ldr	x17, [x17]
	cmp	x16, x17
	b.hs	trampemu_exit
2:	ldp	x0, x1, [x16, #TREC_STACK]
	stp	x0, x1, [sp]
	ldp	x0, x1, [x16, #TREC_X0]
	ldp	x2, x3, [x16, #TREC_X2]
	ldp	x4, x5, [x16, #TREC_X4]
	ldp	x6, x7, [x16, #TREC_X6]
	ldp	x8, x9, [x16, #TREC_X8]
	ldp	x10, x11, [x16, #TREC_X10]
	ldp	x12, x13, [x16, #TREC_X12]
	ldp	x14, x15, [x16, #TREC_X14]
	ldp	x18, x19, [x16, #TREC_X18]
	ldp	x20, x21, [x16, #TREC_X20]
	ldp	x22, x23, [x16, #TREC_X22]
	ldp	x24, x25, [x16, #TREC_X24]
	ldp	x26, x27, [x16, #TREC_X26]
	ldp	x28, x29, [x16, #TREC_X28]
	ldr	x17, [x16, #TREC_TARGET]
	ldr	x16, [x16, #TREC_X16]
	blr	x17
SYM_INNER_LABEL(trampemu_return, SYM_L_GLOBAL)
	data_addr	x17, trampemu_cursor
	ldr	x16, [x17]
	stp	x0, x1, [x16, #TREC_OUT]
	add	x16, x16, #TREC_SIZE
	str	x16, [x17]
	b	1b
SYM_CODE_END(trampemu_checked_loop)

SYM_CODE_START(trampemu_fast_loop)
1:	data_addr	x16, trampemu_args
	ldp	x0, x1, [x16]
	ldp	x2, x3, [x16, #16]
	ldp	x4, x5, [x16, #32]
	data_addr	x17, trampemu_target
	ldr	x17, [x17]
	blr	x17
SYM_INNER_LABEL(trampemu_fast_return, SYM_L_GLOBAL)
	data_addr	x16, trampemu_result
	stp	x0, x1, [x16]
	data_addr	x16, trampemu_count
	ldr	x17, [x16]
	subs	x17, x17, #1
	str	x17, [x16]
	b.ne	1b
SYM_INNER_LABEL(trampemu_exit, SYM_L_GLOBAL)
	nop
SYM_CODE_END(trampemu_fast_loop)

/* A direct trampoline (arch_ftrace_set_direct_caller): ftrace_caller
   branches here with "br x17", x9 = the traced function's return address
   and x30 = where the traced function continues (the convention of
   ftrace_stub_direct_tramp, arch/arm64/kernel/entry-ftrace.S v6.4+). x9
   and x30 are kept in a 16-byte frame around the report to the host;
   x0-x8 and x19-x29 are untouched. */
SYM_CODE_START(trampemu_direct)
	bti	c
	stp	x9, x30, [sp, #-16]!
	bl	trampemu_direct_hook
	ldp	x9, x30, [sp], #16
	mov	x10, x30
	mov	x30, x9
	ret	x10
SYM_CODE_END(trampemu_direct)
