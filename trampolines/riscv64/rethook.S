/*
 * riscv64 arch_rethook_trampoline (arch/riscv/kernel/probes/
 * rethook_trampoline.S, from b57c2f124098 "riscv: add riscv rethook
 * implementation", v6.2; unchanged through torvalds/linux@03c11eb3b16d),
 * written for trampemu from its steps: the traced function returned here
 * through ra, which arch_rethook_prepare pointed at the trampoline
 * (arch/riscv/kernel/probes/rethook.c: rhn->ret_addr = regs->ra,
 * rhn->frame = regs->s0).
 *   - a pt_regs (PT_SIZE_ON_STACK) below sp with ra, gp, tp, t0-t6, s0-s11
 *     and a0-a7: no epc and no sp are written (the callback leaves them);
 *   - a0 = arch_rethook_trampoline_callback(regs) (rethook.c:
 *     rethook_trampoline_handler(regs, regs->s0)), the real return
 *     address, into ra; every saved register back but ra; ret.
 * Twins (Variant.Bug): RETHOOK_DROP_S1 never saves or reloads s1,
 * RETHOOK_SKIP_CALLBACK never calls the callback, RETHOOK_UNBALANCED
 * releases 16 bytes too few.
 */
	.macro	rethook_regs op
	\op	gp, PT_GP(sp)
	\op	tp, PT_TP(sp)
	\op	t0, PT_T0(sp)
	\op	t1, PT_T1(sp)
	\op	t2, PT_T2(sp)
	\op	s0, PT_S0(sp)
#ifndef RETHOOK_DROP_S1
	\op	s1, PT_S1(sp)
#endif
	\op	a0, PT_A0(sp)
	\op	a1, PT_A1(sp)
	\op	a2, PT_A2(sp)
	\op	a3, PT_A3(sp)
	\op	a4, PT_A4(sp)
	\op	a5, PT_A5(sp)
	\op	a6, PT_A6(sp)
	\op	a7, PT_A7(sp)
	\op	s2, PT_S2(sp)
	\op	s3, PT_S3(sp)
	\op	s4, PT_S4(sp)
	\op	s5, PT_S5(sp)
	\op	s6, PT_S6(sp)
	\op	s7, PT_S7(sp)
	\op	s8, PT_S8(sp)
	\op	s9, PT_S9(sp)
	\op	s10, PT_S10(sp)
	\op	s11, PT_S11(sp)
	\op	t3, PT_T3(sp)
	\op	t4, PT_T4(sp)
	\op	t5, PT_T5(sp)
	\op	t6, PT_T6(sp)
	.endm

	.text
SYM_CODE_START(arch_rethook_trampoline)
	addi	sp, sp, -PT_SIZE_ON_STACK
	REG_S	ra, PT_RA(sp)
	rethook_regs REG_S
	mv	a0, sp				/* regs */
#ifndef RETHOOK_SKIP_CALLBACK
	call	arch_rethook_trampoline_callback
#else
	REG_L	a0, PT_RA(sp)
#endif
	mv	ra, a0				/* the real return address */
	rethook_regs REG_L
#ifndef RETHOOK_UNBALANCED
	addi	sp, sp, PT_SIZE_ON_STACK
#else
	addi	sp, sp, PT_SIZE_ON_STACK - 16
#endif
	ret
SYM_CODE_END(arch_rethook_trampoline)
