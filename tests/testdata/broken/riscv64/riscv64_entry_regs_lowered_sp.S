/* BROKEN on purpose, the riscv64 ftrace_regs_caller of v6.3-v6.10
   (arch/riscv/kernel/mcount-dyn.S SAVE_ALL / SAVE_ABI_REGS 1 store x2 after
   sp was lowered), written for trampemu with the v6.8 shape: t1 cleared,
   a whole pt_regs, regs->sp = the trampoline's sp (entry sp - 288), not
   the traced function's, until "ftrace: riscv: move from REGS to ARGS"
   (7caa9765465f, v6.11) stored the entry sp ("Save original SP in T4").
   A kprobe on ftrace reading kernel_stack_pointer(regs) sees the
   trampoline's frame. Must be caught as: wrong-value. Its fixed twin is
   riscv64_entry_regs_sp_ok.S. */
#define IP_OFF	8

	.text
SYM_FUNC_START(ftrace_regs_caller)
	mv	t1, zero
	addi	sp, sp, -PT_SIZE_ON_STACK
	REG_S	t0, PT_EPC(sp)
	REG_S	ra, PT_RA(sp)
	REG_S	sp, PT_SP(sp)
	REG_S	gp, PT_GP(sp)
	REG_S	tp, PT_TP(sp)
	REG_S	t0, PT_T0(sp)
	REG_S	t1, PT_T1(sp)
	REG_S	t2, PT_T2(sp)
	REG_S	s0, PT_S0(sp)
	REG_S	s1, PT_S1(sp)
	REG_S	a0, PT_A0(sp)
	REG_S	a1, PT_A1(sp)
	REG_S	a2, PT_A2(sp)
	REG_S	a3, PT_A3(sp)
	REG_S	a4, PT_A4(sp)
	REG_S	a5, PT_A5(sp)
	REG_S	a6, PT_A6(sp)
	REG_S	a7, PT_A7(sp)
	REG_S	s2, PT_S2(sp)
	REG_S	s3, PT_S3(sp)
	REG_S	s4, PT_S4(sp)
	REG_S	s5, PT_S5(sp)
	REG_S	s6, PT_S6(sp)
	REG_S	s7, PT_S7(sp)
	REG_S	s8, PT_S8(sp)
	REG_S	s9, PT_S9(sp)
	REG_S	s10, PT_S10(sp)
	REG_S	s11, PT_S11(sp)
	REG_S	t3, PT_T3(sp)
	REG_S	t4, PT_T4(sp)
	REG_S	t5, PT_T5(sp)
	REG_S	t6, PT_T6(sp)
	addi	a0, t0, -IP_OFF
	la	a1, function_trace_op
	REG_L	a2, 0(a1)
	mv	a1, ra
	mv	a3, sp
SYM_INNER_LABEL(ftrace_regs_call, SYM_L_GLOBAL)
	call	ftrace_stub
	REG_L	t0, PT_EPC(sp)
	REG_L	ra, PT_RA(sp)
	REG_L	gp, PT_GP(sp)
	REG_L	tp, PT_TP(sp)
	REG_L	t1, PT_T1(sp)
	REG_L	t2, PT_T2(sp)
	REG_L	s0, PT_S0(sp)
	REG_L	s1, PT_S1(sp)
	REG_L	a0, PT_A0(sp)
	REG_L	a1, PT_A1(sp)
	REG_L	a2, PT_A2(sp)
	REG_L	a3, PT_A3(sp)
	REG_L	a4, PT_A4(sp)
	REG_L	a5, PT_A5(sp)
	REG_L	a6, PT_A6(sp)
	REG_L	a7, PT_A7(sp)
	REG_L	s2, PT_S2(sp)
	REG_L	s3, PT_S3(sp)
	REG_L	s4, PT_S4(sp)
	REG_L	s5, PT_S5(sp)
	REG_L	s6, PT_S6(sp)
	REG_L	s7, PT_S7(sp)
	REG_L	s8, PT_S8(sp)
	REG_L	s9, PT_S9(sp)
	REG_L	s10, PT_S10(sp)
	REG_L	s11, PT_S11(sp)
	REG_L	t3, PT_T3(sp)
	REG_L	t4, PT_T4(sp)
	REG_L	t5, PT_T5(sp)
	REG_L	t6, PT_T6(sp)
	addi	sp, sp, PT_SIZE_ON_STACK
	bnez	t1, 1f
	jr	t0
1:	jr	t1
SYM_FUNC_END(ftrace_regs_caller)

SYM_CODE_START(ftrace_stub_direct_tramp)
	jr	t0
SYM_CODE_END(ftrace_stub_direct_tramp)
