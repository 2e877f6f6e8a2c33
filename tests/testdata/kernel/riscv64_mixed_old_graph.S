/*
 * trampemu test file mixing eras (written for trampemu): the v6.3-v6.7 entry of riscv64_v6.7.S (the t0-based site, the patched
 * ftrace_graph_call) with the return_to_handler of 67a5ba8f742f (struct
 * ftrace_regs), as a stable tree that took the fgraph series has it.
 */
#include <linux/linkage.h>
#include <asm/asm.h>
#include <asm/asm-offsets.h>
#include <asm/ftrace.h>

#define E2_RA_OFFSET	8	/* FENTRY_RA_OFFSET: t0 - 8 is the function */
#define E2_BLOCK	80
#define E2_BLOCK_T0	64
#define E2_BLOCK_RA	72

	.macro	e2_abi op
	.irp	n, 0, 1, 2, 3, 4, 5, 6, 7
	\op	a\n, \n*SZREG(sp)
	.endr
	\op	t0, E2_BLOCK_T0(sp)
	\op	ra, E2_BLOCK_RA(sp)
	.endm

	/* x6-x31 to or from their pt_regs slots */
	.macro	e2_high op
	\op	t1, PT_T1(sp)
	\op	t2, PT_T2(sp)
	\op	s0, PT_S0(sp)
	\op	s1, PT_S1(sp)
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
SYM_FUNC_START(ftrace_caller)
	addi	sp, sp, -E2_BLOCK
	e2_abi	REG_S
	addi	a0, t0, -E2_RA_OFFSET		/* ip */
	la	a1, function_trace_op
	REG_L	a2, 0(a1)			/* op */
	mv	a1, ra				/* parent_ip */
	mv	a3, sp				/* the block, no pt_regs */
SYM_INNER_LABEL(ftrace_call, SYM_L_GLOBAL)
	call	ftrace_stub
#ifdef CONFIG_FUNCTION_GRAPH_TRACER
	addi	a0, sp, E2_BLOCK_RA		/* &the saved parent */
	REG_L	a1, E2_BLOCK_T0(sp)
	addi	a1, a1, -E2_RA_OFFSET		/* self_addr */
#ifdef HAVE_FUNCTION_GRAPH_FP_TEST
	mv	a2, s0
#endif
SYM_INNER_LABEL(ftrace_graph_call, SYM_L_GLOBAL)
	call	ftrace_stub
#endif
	e2_abi	REG_L
	addi	sp, sp, E2_BLOCK
	jr	t0
SYM_FUNC_END(ftrace_caller)

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_REGS
SYM_FUNC_START(ftrace_regs_caller)
	addi	sp, sp, -PT_SIZE_ON_STACK
	REG_S	t0, PT_EPC(sp)
	REG_S	ra, PT_RA(sp)
	REG_S	sp, PT_SP(sp)			/* already lowered */
	REG_S	gp, PT_GP(sp)
	REG_S	tp, PT_TP(sp)
	REG_S	t0, PT_T0(sp)
	e2_high	REG_S

	addi	a0, t0, -E2_RA_OFFSET
	la	a1, function_trace_op
	REG_L	a2, 0(a1)
	mv	a1, ra
	mv	a3, sp				/* regs */
SYM_INNER_LABEL(ftrace_regs_call, SYM_L_GLOBAL)
	call	ftrace_stub
#ifdef CONFIG_FUNCTION_GRAPH_TRACER
	addi	a0, sp, PT_RA
	REG_L	a1, PT_EPC(sp)
	addi	a1, a1, -E2_RA_OFFSET
#ifdef HAVE_FUNCTION_GRAPH_FP_TEST
	mv	a2, s0
#endif
SYM_INNER_LABEL(ftrace_graph_regs_call, SYM_L_GLOBAL)
	call	ftrace_stub
#endif
	REG_L	ra, PT_RA(sp)
	REG_L	sp, PT_SP(sp)			/* the lowered sp it stored */
	REG_L	gp, PT_GP(sp)
	REG_L	tp, PT_TP(sp)
	REG_L	t0, PT_EPC(sp)			/* where to go: a live patch moves it */
	e2_high	REG_L
	addi	sp, sp, PT_SIZE_ON_STACK
	jr	t0
SYM_FUNC_END(ftrace_regs_caller)
#endif /* CONFIG_DYNAMIC_FTRACE_WITH_REGS */

#ifdef CONFIG_FUNCTION_GRAPH_TRACER
/* return_to_handler of 67a5ba8f742f: a struct __arch_ftrace_regs */
SYM_FUNC_START(return_to_handler)
	addi	sp, sp, -FREGS_SIZE_ON_STACK
	REG_S	ra, FREGS_RA(sp)
	REG_S	s0, FREGS_S0(sp)
	REG_S	a0, FREGS_A0(sp)
	REG_S	a1, FREGS_A1(sp)
	addi	s0, sp, FREGS_SIZE_ON_STACK
	mv	a0, sp
	call	ftrace_return_to_handler
	mv	a2, a0
	REG_L	ra, FREGS_RA(sp)
	REG_L	s0, FREGS_S0(sp)
	REG_L	a0, FREGS_A0(sp)
	REG_L	a1, FREGS_A1(sp)
	addi	sp, sp, FREGS_SIZE_ON_STACK
	jalr	a2
SYM_FUNC_END(return_to_handler)
#endif
