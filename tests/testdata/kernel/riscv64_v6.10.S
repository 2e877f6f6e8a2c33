/*
 * trampemu test file in the shape of the riscv64 mcount-dyn.S and mcount.S
 * of v6.8-v6.10 (written for trampemu; both roles, one file): under CONFIG_DYNAMIC_FTRACE_WITH_REGS both entries fill a pt_regs and graph tracing goes through ftrace_graph_func (the #ifndef branch, an older ABI-block ftrace_caller with ftrace_graph_call, is not what a distribution builds); direct calls through t1; return_to_handler passes a struct fgraph_ret_regs.
 */
#include <linux/linkage.h>
#include <asm/asm.h>
#include <asm/asm-offsets.h>
#include <asm/ftrace.h>

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

#ifndef CONFIG_DYNAMIC_FTRACE_WITH_REGS
/* without WITH_REGS (not a distribution build): the older ABI block */
SYM_FUNC_START(ftrace_caller)
	addi	sp, sp, -80
	REG_S	t0, 64(sp)
	REG_S	ra, 72(sp)
	addi	a0, t0, -8
SYM_INNER_LABEL(ftrace_call, SYM_L_GLOBAL)
	call	ftrace_stub
SYM_INNER_LABEL(ftrace_graph_call, SYM_L_GLOBAL)
	call	ftrace_stub
	REG_L	t0, 64(sp)
	REG_L	ra, 72(sp)
	addi	sp, sp, 80
	jr	t0
SYM_FUNC_END(ftrace_caller)
#else
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
#endif /* CONFIG_DYNAMIC_FTRACE_WITH_REGS */

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
SYM_CODE_START(ftrace_stub_direct_tramp)
	jr	t0
SYM_CODE_END(ftrace_stub_direct_tramp)
#endif

#ifdef CONFIG_FUNCTION_GRAPH_TRACER
/* return_to_handler of v6.5-v6.13: a 4*SZREG struct fgraph_ret_regs
   (a1, a0, s0, ra) at sp, its address to ftrace_return_to_handler */
SYM_FUNC_START(return_to_handler)
	addi	sp, sp, -4*SZREG
	REG_S	a1, 0*SZREG(sp)
	REG_S	a0, 1*SZREG(sp)
	REG_S	s0, 2*SZREG(sp)
	REG_S	ra, 3*SZREG(sp)
	addi	s0, sp, 4*SZREG
	mv	a0, sp
	call	ftrace_return_to_handler
	mv	a2, a0
	REG_L	a1, 0*SZREG(sp)
	REG_L	a0, 1*SZREG(sp)
	REG_L	s0, 2*SZREG(sp)
	REG_L	ra, 3*SZREG(sp)
	addi	sp, sp, 4*SZREG
	jalr	a2
SYM_FUNC_END(return_to_handler)
#endif
