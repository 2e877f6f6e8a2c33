/* BROKEN on purpose when built with clang: the riscv64 ftrace_caller of
   v6.11-v6.15 (arch/riscv/kernel/mcount-dyn.S after 7caa9765465f), written
   for trampemu with that shape: t1 cleared, the entry sp kept in t4 (so t4
   is overwritten before anything could save it), struct
   __arch_ftrace_regs with epc, ra, sp, s0, t1 and a0-a7, nothing of
   t2-t6. gcc never passes an argument there, but clang's fastcc gives the
   9th and later ones to t2 and up (llvm/llvm-project#83111, "x7/t2
   register is used to pass the 9th argument"), and the callbacks are C,
   free to change every temporary: the traced function then reads the
   callbacks' values as its arguments. Fixed by f8693f6dffcd ("riscv:
   ftrace: support fastcc in Clang for WITH_ARGS", v6.16), which saves and
   reloads t2-t6 under CONFIG_CC_IS_CLANG. Checked with -D
   CONFIG_CC_IS_CLANG -U CONFIG_CC_IS_GCC: Must be caught as: clobber (of
   t2, t3, t4, t5 and t6; built with gcc it passes). Its fixed twin is
   riscv64_entry_clang_fastcc_ok.S. */
	.text
SYM_FUNC_START(ftrace_caller)
	mv	t1, zero
	mv	t4, sp
	addi	sp, sp, -FREGS_SIZE_ON_STACK
	REG_S	t0, FREGS_EPC(sp)
	REG_S	ra, FREGS_RA(sp)
	REG_S	t4, FREGS_SP(sp)
	REG_S	s0, FREGS_S0(sp)
	REG_S	t1, FREGS_T1(sp)
	REG_S	a0, FREGS_A0(sp)
	REG_S	a1, FREGS_A1(sp)
	REG_S	a2, FREGS_A2(sp)
	REG_S	a3, FREGS_A3(sp)
	REG_S	a4, FREGS_A4(sp)
	REG_S	a5, FREGS_A5(sp)
	REG_S	a6, FREGS_A6(sp)
	REG_S	a7, FREGS_A7(sp)
	addi	a0, t0, -MCOUNT_INSN_SIZE
	la	a1, function_trace_op
	REG_L	a2, 0(a1)
	mv	a1, ra
	mv	a3, sp
SYM_INNER_LABEL(ftrace_call, SYM_L_GLOBAL)
	call	ftrace_stub
	REG_L	t0, FREGS_EPC(sp)
	REG_L	ra, FREGS_RA(sp)
	REG_L	s0, FREGS_S0(sp)
	REG_L	t1, FREGS_T1(sp)
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
