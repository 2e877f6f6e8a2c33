/* A riscv64 WITH_ARGS ftrace_caller (trampolines/riscv64/ftrace_caller.S,
   with its direct path through t1) resuming at the wrong address: epc minus
   MCOUNT_INSN_SIZE, the call site itself, so every return re-enters the
   call site and the kernel would go round for ever. Must be caught as:
   control, at the first return (the call stops there), not at an
   instruction limit. */
SYM_FUNC_START(ftrace_caller)
	mv	t4, sp
	addi	sp, sp, -FREGS_SIZE_ON_STACK
	REG_S	t0, FREGS_EPC(sp)
	REG_S	ra, FREGS_RA(sp)
	REG_S	t4, FREGS_SP(sp)
	REG_S	s0, FREGS_S0(sp)
	REG_S	zero, FREGS_T1(sp)
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
	addi	t0, t0, -MCOUNT_INSN_SIZE
	jr	t0
.Ldirect:
	jr	t1
SYM_FUNC_END(ftrace_caller)
