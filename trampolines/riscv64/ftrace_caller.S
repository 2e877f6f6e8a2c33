/*
 * riscv64 ftrace_caller with DYNAMIC_FTRACE_WITH_ARGS (v6.11-v6.15: "riscv:
 * ftrace: support DYNAMIC_FTRACE_WITH_ARGS" replaced WITH_REGS,
 * 7caa9765465f; arch/riscv/kernel/mcount-dyn.S of
 * jackYoung0915/anolis-cloud-kernel@9d156be6f613), written for trampemu
 * from the step list of shared/reference/riscv64.md "E4 entry": the call
 * site "auipc t0; jalr t0" enters with t0 = the site + 8, ra = the traced
 * function's return address and sp its own; a struct __arch_ftrace_regs
 * (FREGS_SIZE_ON_STACK, 112 bytes) below sp holds epc, ra, the traced
 * function's sp, s0 (under HAVE_FUNCTION_GRAPH_FP_TEST), t1 and a0-a7; the
 * callbacks get (ip = t0 - 8, parent_ip = ra, op, fregs); a nonzero t1
 * afterwards (arch_ftrace_set_direct_caller) is a direct trampoline,
 * entered with ra = the parent and t0 = the return into the function.
 */
	.text
SYM_FUNC_START(ftrace_caller)
	mv	t1, zero			/* no direct trampoline yet */
	mv	t4, sp				/* the traced function's sp */
	addi	sp, sp, -FREGS_SIZE_ON_STACK
	REG_S	t0, FREGS_EPC(sp)
	REG_S	ra, FREGS_RA(sp)
	REG_S	t4, FREGS_SP(sp)
#ifdef HAVE_FUNCTION_GRAPH_FP_TEST
	REG_S	s0, FREGS_S0(sp)		/* the frame the graph entry files */
#endif
	REG_S	t1, FREGS_T1(sp)
	REG_S	a0, FREGS_A0(sp)
	REG_S	a1, FREGS_A1(sp)
	REG_S	a2, FREGS_A2(sp)
	REG_S	a3, FREGS_A3(sp)
	REG_S	a4, FREGS_A4(sp)
	REG_S	a5, FREGS_A5(sp)
	REG_S	a6, FREGS_A6(sp)
	REG_S	a7, FREGS_A7(sp)

	addi	a0, t0, -MCOUNT_INSN_SIZE	/* ip: the call site */
	la	a1, function_trace_op
	REG_L	a2, 0(a1)			/* op */
	mv	a1, ra				/* parent_ip */
	mv	a3, sp				/* fregs */
SYM_INNER_LABEL(ftrace_call, SYM_L_GLOBAL)
	call	ftrace_stub

	REG_L	t0, FREGS_EPC(sp)		/* a live patch may have moved it */
	REG_L	ra, FREGS_RA(sp)		/* return_to_handler under the graph tracer */
#ifdef HAVE_FUNCTION_GRAPH_FP_TEST
	REG_L	s0, FREGS_S0(sp)
#endif
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
