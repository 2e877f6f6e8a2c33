/*
 * riscv64 ftrace_caller and ftrace_regs_caller, DYNAMIC_FTRACE_WITH_REGS
 * with the graph tracer on ftrace_graph_func, v6.8-v6.10
 * (arch/riscv/kernel/mcount-dyn.S after Song Shuai's "riscv: ftrace: Make
 * function graph use ftrace directly", 35e61e8827ee, and "riscv: ftrace:
 * Add DYNAMIC_FTRACE_WITH_DIRECT_CALLS support", 196c79f19a92; read in
 * torvalds/linux@00c1d298d486 and deepin-community/kernel@ba438ab304b1;
 * steps from shared/reference/riscv64.md "E3 entry"), written for trampemu.
 *
 * Same t0-based call site as v6.3 (auipc t0; jalr t0 at the function).
 * Both entries fill a struct pt_regs below sp, which the callbacks get as
 * their ftrace_regs (without WITH_ARGS struct ftrace_regs wraps a pt_regs,
 * include/linux/ftrace.h v6.8): ftrace_caller only epc (t0), ra and a0-a7
 * (s0 with HAVE_FUNCTION_GRAPH_FP_TEST), ftrace_regs_caller every
 * register, x2 after sp was lowered (regs->sp = entry sp - 288, as in
 * v6.3). No graph call site: ftrace_graph_func hooks &regs->ra
 * (arch/riscv/kernel/ftrace.c v6.8). ftrace_regs_caller clears t1 first;
 * a direct caller (arch_ftrace_set_direct_caller: regs->t1 = addr) makes
 * it "jr t1" after the restore, with ra and t0 as the call site left them.
 */
#define E3_IP_OFFSET	8	/* FENTRY_RA_OFFSET: t0 - 8 is the function */

	/* the slots both entries fill */
	.macro	e3_abi op
	\op	ra, PT_RA(sp)
	\op	a0, PT_A0(sp)
	\op	a1, PT_A1(sp)
	\op	a2, PT_A2(sp)
	\op	a3, PT_A3(sp)
	\op	a4, PT_A4(sp)
	\op	a5, PT_A5(sp)
	\op	a6, PT_A6(sp)
	\op	a7, PT_A7(sp)
	.endm

	/* what ftrace_regs_caller adds: x3-x9 (t0 into PT_T0 on the way in
	 * only) and x18-x31 */
	.macro	e3_all op
	\op	gp, PT_GP(sp)
	\op	tp, PT_TP(sp)
	\op	t1, PT_T1(sp)
	\op	t2, PT_T2(sp)
	\op	s0, PT_S0(sp)
	\op	s1, PT_S1(sp)
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

	.macro	e3_args
	addi	a0, t0, -E3_IP_OFFSET		/* ip */
	la	a1, function_trace_op
	REG_L	a2, 0(a1)			/* op */
	mv	a1, ra				/* parent_ip */
	mv	a3, sp				/* fregs: the pt_regs */
	.endm

	.text
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_REGS
SYM_FUNC_START(ftrace_regs_caller)
	mv	t1, zero			/* no direct caller yet */
	addi	sp, sp, -PT_SIZE_ON_STACK
	REG_S	t0, PT_EPC(sp)
	e3_abi	REG_S
	REG_S	sp, PT_SP(sp)			/* already lowered */
	REG_S	t0, PT_T0(sp)
	e3_all	REG_S
	e3_args
SYM_INNER_LABEL(ftrace_regs_call, SYM_L_GLOBAL)
	call	ftrace_stub
	REG_L	t0, PT_EPC(sp)
	e3_abi	REG_L
	REG_L	sp, PT_SP(sp)
	e3_all	REG_L
	addi	sp, sp, PT_SIZE_ON_STACK
	bnez	t1, .Le3_direct
	jr	t0
.Le3_direct:
	jr	t1
SYM_FUNC_END(ftrace_regs_caller)
#endif /* CONFIG_DYNAMIC_FTRACE_WITH_REGS */

SYM_FUNC_START(ftrace_caller)
	addi	sp, sp, -PT_SIZE_ON_STACK
	REG_S	t0, PT_EPC(sp)
	e3_abi	REG_S
#ifdef HAVE_FUNCTION_GRAPH_FP_TEST
	REG_S	s0, PT_S0(sp)
#endif
	e3_args
SYM_INNER_LABEL(ftrace_call, SYM_L_GLOBAL)
	call	ftrace_stub
	REG_L	t0, PT_EPC(sp)
	e3_abi	REG_L
#ifdef HAVE_FUNCTION_GRAPH_FP_TEST
	REG_L	s0, PT_S0(sp)
#endif
	addi	sp, sp, PT_SIZE_ON_STACK
	jr	t0
SYM_FUNC_END(ftrace_caller)

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
SYM_CODE_START(ftrace_stub_direct_tramp)
	jr	t0
SYM_CODE_END(ftrace_stub_direct_tramp)
#endif
