/* The fixed twin of riscv64_entry_clang_fastcc.S, written for trampemu
   in the shape of the v6.16 ftrace_caller (torvalds/linux@a7bee4e7f780
   arch/riscv/kernel/mcount-dyn.S): the jalr-only call site (ip = t0 -
   MCOUNT_JALR_SIZE), the ops from the literal before the function
   (CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS), a direct call through
   ops->direct_call taken before anything is saved, the SP slot computed
   from the lowered sp, and t2-t6 saved into and reloaded from the
   FREGS_T2..FREGS_T6 slots under CONFIG_CC_IS_CLANG, as f8693f6dffcd
   ("riscv: ftrace: support fastcc in Clang for WITH_ARGS") added them:
   160 bytes of struct __arch_ftrace_regs then. Checked with -D
   CONFIG_CC_IS_CLANG -U CONFIG_CC_IS_GCC, it must pass with no error
   finding. */
	.text
SYM_FUNC_START(ftrace_caller)
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS
	REG_L	t1, -16(t0)
	REG_L	t1, FTRACE_OPS_DIRECT_CALL(t1)
	bnez	t1, .Ldirect
#endif
	addi	sp, sp, -FREGS_SIZE_ON_STACK
	REG_S	t0, FREGS_EPC(sp)
	REG_S	ra, FREGS_RA(sp)
	REG_S	s0, FREGS_S0(sp)
	REG_S	t1, FREGS_T1(sp)
#ifdef CONFIG_CC_IS_CLANG
	REG_S	t2, FREGS_T2(sp)
	REG_S	t3, FREGS_T3(sp)
	REG_S	t4, FREGS_T4(sp)
	REG_S	t5, FREGS_T5(sp)
	REG_S	t6, FREGS_T6(sp)
#endif
	REG_S	a0, FREGS_A0(sp)
	REG_S	a1, FREGS_A1(sp)
	REG_S	a2, FREGS_A2(sp)
	REG_S	a3, FREGS_A3(sp)
	REG_S	a4, FREGS_A4(sp)
	REG_S	a5, FREGS_A5(sp)
	REG_S	a6, FREGS_A6(sp)
	REG_S	a7, FREGS_A7(sp)
	addi	a0, sp, FREGS_SIZE_ON_STACK
	REG_S	a0, FREGS_SP(sp)
	addi	a0, t0, -MCOUNT_JALR_SIZE
	mv	a1, ra
	REG_L	a2, -16(t0)
	REG_L	ra, FTRACE_OPS_FUNC(a2)
	mv	a3, sp
	jalr	ra
	REG_L	t0, FREGS_EPC(sp)
	REG_L	ra, FREGS_RA(sp)
	REG_L	s0, FREGS_S0(sp)
	REG_L	t1, FREGS_T1(sp)
#ifdef CONFIG_CC_IS_CLANG
	REG_L	t2, FREGS_T2(sp)
	REG_L	t3, FREGS_T3(sp)
	REG_L	t4, FREGS_T4(sp)
	REG_L	t5, FREGS_T5(sp)
	REG_L	t6, FREGS_T6(sp)
#endif
	REG_L	a0, FREGS_A0(sp)
	REG_L	a1, FREGS_A1(sp)
	REG_L	a2, FREGS_A2(sp)
	REG_L	a3, FREGS_A3(sp)
	REG_L	a4, FREGS_A4(sp)
	REG_L	a5, FREGS_A5(sp)
	REG_L	a6, FREGS_A6(sp)
	REG_L	a7, FREGS_A7(sp)
	addi	sp, sp, FREGS_SIZE_ON_STACK
	bnez	t1, .Ldirect
	jr	t0
.Ldirect:
	jr	t1
SYM_FUNC_END(ftrace_caller)

SYM_CODE_START(ftrace_stub_direct_tramp)
	jr	t0
SYM_CODE_END(ftrace_stub_direct_tramp)
