/* BROKEN on purpose, the riscv64 ftrace_regs_caller of v5.11-v6.2
   (arch/riscv/kernel/mcount-dyn.S SAVE_ALL/RESTORE_ALL of the 16-byte
   ra-based call site, afc76b8b8011; rewritten by 6724a76cff85 "riscv:
   ftrace: Reduce the detour code size to half", v6.3), written for
   trampemu: it lowers sp by 8 + 288 (296: sp is 8 bytes off the psABI's
   16 at the call into C), and to move the parent word into pt_regs it
   raises sp back over the pt_regs it has started (PT_EPC, then on the way
   out every slot, below sp while it reads them back: an interrupt there
   writes over them). Must be caught as: stack. Its fixed twin is
   riscv64_entry_ra_ok.S. */
#define E1_IP_OFF	12

	.text
SYM_FUNC_START(ftrace_regs_caller)
	addi	sp, sp, -SZREG
	addi	sp, sp, -PT_SIZE_ON_STACK
	REG_S	ra, PT_EPC(sp)
	addi	sp, sp, PT_SIZE_ON_STACK
	REG_L	ra, 0(sp)
	addi	sp, sp, -PT_SIZE_ON_STACK
	REG_S	ra, PT_RA(sp)
	REG_L	ra, PT_EPC(sp)
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
	addi	a0, ra, -E1_IP_OFF
	la	a1, function_trace_op
	REG_L	a2, 0(a1)
	REG_L	a1, PT_SIZE_ON_STACK(sp)
	mv	a3, sp
SYM_INNER_LABEL(ftrace_regs_call, SYM_L_GLOBAL)
	call	ftrace_stub
	addi	a0, sp, PT_RA
	REG_L	a1, PT_EPC(sp)
	addi	a1, a1, -E1_IP_OFF
	mv	a2, s0
SYM_INNER_LABEL(ftrace_graph_regs_call, SYM_L_GLOBAL)
	call	ftrace_stub
	REG_L	ra, PT_RA(sp)
	addi	sp, sp, PT_SIZE_ON_STACK
	REG_S	ra, 0(sp)
	addi	sp, sp, -PT_SIZE_ON_STACK
	REG_L	ra, PT_EPC(sp)
	REG_L	sp, PT_SP(sp)
	REG_L	gp, PT_GP(sp)
	REG_L	tp, PT_TP(sp)
	REG_L	t0, PT_T0(sp)
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
	addi	sp, sp, SZREG
	ret
SYM_FUNC_END(ftrace_regs_caller)
