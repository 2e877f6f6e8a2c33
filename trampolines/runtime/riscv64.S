/*
 * trampemu's riscv64 runtime (its data is in data.S): ftrace_stub, the
 * direct trampoline for arch_ftrace_set_direct_caller, and the two drivers
 * that call workloads (see the x86-64 runtime). Kernel text here follows
 * the psABI (riscv-cc.adoc): the drivers keep the record cursor in t6 and
 * call the workload through ra, so every other register can carry a
 * record's value.
 */
	.text
/* arch/riscv/kernel/mcount.S: ftrace_stub is a bare "ret" */
SYM_FUNC_START_WEAK(ftrace_stub)
	ret
SYM_FUNC_END(ftrace_stub)

/* The checked driver runs a batch of calls from trampemu_calls without Go:
   t6 = trampemu_cursor (the record being called; the C watch log copies
   the cursor word into every event); the record's stack arguments 9 and
   10 go to 0(sp) and 8(sp), a0-a7, gp, tp, s0-s11 and t0-t5 get the
   record's values (canaries, arguments, the frame pointer), ra the target
   and t6 its record value last; "jalr ra" sets ra; a0 and a1 come back
   into the record. At trampemu_end the host call trampemu_next finishes
   the batch and writes the next (an empty batch ends the run). */
SYM_CODE_START(trampemu_checked_loop)
1:	la	t6, trampemu_cursor
	ld	t6, 0(t6)
	la	t5, trampemu_end
	ld	t5, 0(t5)
	bltu	t6, t5, 2f
	call	trampemu_next
	la	t6, trampemu_cursor
	ld	t6, 0(t6)
	la	t5, trampemu_end
	ld	t5, 0(t5)
	bgeu	t6, t5, trampemu_exit
2:	ld	a0, TREC_STACK(t6)
	sd	a0, 0(sp)
	ld	a0, (TREC_STACK + 8)(t6)
	sd	a0, 8(sp)
	ld	a0, TREC_A0(t6)
	ld	a1, TREC_A1(t6)
	ld	a2, TREC_A2(t6)
	ld	a3, TREC_A3(t6)
	ld	a4, TREC_A4(t6)
	ld	a5, TREC_A5(t6)
	ld	a6, TREC_A6(t6)
	ld	a7, TREC_A7(t6)
	ld	gp, TREC_GP(t6)
	ld	tp, TREC_TP(t6)
	ld	s0, TREC_S0(t6)
	ld	s1, TREC_S1(t6)
	ld	s2, TREC_S2(t6)
	ld	s3, TREC_S3(t6)
	ld	s4, TREC_S4(t6)
	ld	s5, TREC_S5(t6)
	ld	s6, TREC_S6(t6)
	ld	s7, TREC_S7(t6)
	ld	s8, TREC_S8(t6)
	ld	s9, TREC_S9(t6)
	ld	s10, TREC_S10(t6)
	ld	s11, TREC_S11(t6)
	ld	t0, TREC_T0(t6)
	ld	t1, TREC_T1(t6)
	ld	t2, TREC_T2(t6)
	ld	t3, TREC_T3(t6)
	ld	t4, TREC_T4(t6)
	ld	t5, TREC_T5(t6)
	ld	ra, TREC_TARGET(t6)
	ld	t6, TREC_T6(t6)
	jalr	ra
SYM_INNER_LABEL(trampemu_return, SYM_L_GLOBAL)
	la	t5, trampemu_cursor
	ld	t6, 0(t5)
	sd	a0, TREC_OUT(t6)
	sd	a1, (TREC_OUT + 8)(t6)
	addi	t6, t6, TREC_SIZE
	sd	t6, 0(t5)
	j	1b
SYM_CODE_END(trampemu_checked_loop)

SYM_CODE_START(trampemu_fast_loop)
1:	la	t6, trampemu_args
	ld	a0, 0(t6)
	ld	a1, 8(t6)
	ld	a2, 16(t6)
	ld	a3, 24(t6)
	ld	a4, 32(t6)
	ld	a5, 40(t6)
	la	t6, trampemu_target
	ld	ra, 0(t6)
	jalr	ra
SYM_INNER_LABEL(trampemu_fast_return, SYM_L_GLOBAL)
	la	t6, trampemu_result
	sd	a0, 0(t6)
	sd	a1, 8(t6)
	la	t6, trampemu_count
	ld	t5, 0(t6)
	addi	t5, t5, -1
	sd	t5, 0(t6)
	bnez	t5, 1b
SYM_INNER_LABEL(trampemu_exit, SYM_L_GLOBAL)
	nop
SYM_CODE_END(trampemu_fast_loop)

/* A direct trampoline (arch_ftrace_set_direct_caller writes fregs->t1):
   ftrace_caller jumps here with "jr t1", ra = the traced function's return
   address and t0 = where the traced function continues (the convention
   of ftrace_stub_direct_tramp, "jr t0", arch/riscv/kernel/mcount-dyn.S
   v6.11+). t0 and ra are kept in a 16-byte frame around the report to the
   host; a0-a7 and s0-s11 are untouched. */
SYM_CODE_START(trampemu_direct)
	addi	sp, sp, -16
	sd	t0, 0(sp)
	sd	ra, 8(sp)
	call	trampemu_direct_hook
	ld	ra, 8(sp)
	ld	t0, 0(sp)
	addi	sp, sp, 16
	jr	t0
SYM_CODE_END(trampemu_direct)
