/*
 * trampemu test file in the shape of the riscv64 mcount-dyn.S and mcount.S
 * of v5.11-v6.2 (written for trampemu; both roles, one file): the 16-byte ra-based call site; ftrace_caller with its ABI block and ftrace_graph_call, ftrace_regs_caller with a pt_regs under CONFIG_DYNAMIC_FTRACE_WITH_REGS; return_to_handler passes s0.
 */
#include <linux/linkage.h>
#include <asm/asm.h>
#include <asm/asm-offsets.h>
#include <asm/ftrace.h>

#define E1_RA_OFFSET	12	/* FENTRY_RA_OFFSET: ra - 12 is the function */
#define E1_BLOCK	72	/* a0-a7, then ra */
#define E1_BLOCK_RA	64

	.macro	e1_abi_save
	addi	sp, sp, -SZREG			/* down onto the parent word */
	addi	sp, sp, -E1_BLOCK
	.irp	n, 0, 1, 2, 3, 4, 5, 6, 7
	REG_S	a\n, \n*SZREG(sp)
	.endr
	REG_S	ra, E1_BLOCK_RA(sp)
	.endm

	.macro	e1_abi_restore
	.irp	n, 0, 1, 2, 3, 4, 5, 6, 7
	REG_L	a\n, \n*SZREG(sp)
	.endr
	REG_L	ra, E1_BLOCK_RA(sp)
	addi	sp, sp, E1_BLOCK
	addi	sp, sp, SZREG
	.endm

	/* x3-x31 to or from their pt_regs slots (x1 and x2 are done apart) */
	.macro	e1_rest op
	\op	gp, PT_GP(sp)
	\op	tp, PT_TP(sp)
	\op	t0, PT_T0(sp)
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
	e1_abi_save
	addi	a0, ra, -E1_RA_OFFSET		/* ip */
	la	a1, function_trace_op
	REG_L	a2, 0(a1)			/* op */
	REG_L	a1, E1_BLOCK(sp)		/* parent_ip, from the parent word */
	mv	a3, sp				/* the block, no pt_regs */
SYM_INNER_LABEL(ftrace_call, SYM_L_GLOBAL)
	call	ftrace_stub
#ifdef CONFIG_FUNCTION_GRAPH_TRACER
	addi	a0, sp, E1_BLOCK		/* &parent word */
	REG_L	a1, E1_BLOCK_RA(sp)
	addi	a1, a1, -E1_RA_OFFSET		/* self_addr */
#ifdef HAVE_FUNCTION_GRAPH_FP_TEST
	mv	a2, s0
#endif
SYM_INNER_LABEL(ftrace_graph_call, SYM_L_GLOBAL)
	call	ftrace_stub
#endif
	e1_abi_restore
	ret
SYM_FUNC_END(ftrace_caller)

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_REGS
SYM_FUNC_START(ftrace_regs_caller)
	addi	sp, sp, -SZREG
	addi	sp, sp, -PT_SIZE_ON_STACK
	REG_S	ra, PT_EPC(sp)			/* func + 12 */
	addi	sp, sp, PT_SIZE_ON_STACK	/* PT_EPC is below sp now */
	REG_L	ra, 0(sp)			/* the parent word */
	addi	sp, sp, -PT_SIZE_ON_STACK
	REG_S	ra, PT_RA(sp)
	REG_L	ra, PT_EPC(sp)
	REG_S	sp, PT_SP(sp)			/* the lowered sp */
	e1_rest	REG_S

	addi	a0, ra, -E1_RA_OFFSET
	la	a1, function_trace_op
	REG_L	a2, 0(a1)
	REG_L	a1, PT_SIZE_ON_STACK(sp)	/* parent_ip */
	mv	a3, sp				/* regs */
SYM_INNER_LABEL(ftrace_regs_call, SYM_L_GLOBAL)
	call	ftrace_stub
#ifdef CONFIG_FUNCTION_GRAPH_TRACER
	addi	a0, sp, PT_RA			/* the pt_regs copy of the parent */
	REG_L	a1, PT_EPC(sp)
	addi	a1, a1, -E1_RA_OFFSET
#ifdef HAVE_FUNCTION_GRAPH_FP_TEST
	mv	a2, s0
#endif
SYM_INNER_LABEL(ftrace_graph_regs_call, SYM_L_GLOBAL)
	call	ftrace_stub
#endif
	REG_L	ra, PT_RA(sp)
	addi	sp, sp, PT_SIZE_ON_STACK	/* the whole pt_regs below sp */
	REG_S	ra, 0(sp)			/* back into the parent word */
	addi	sp, sp, -PT_SIZE_ON_STACK
	REG_L	ra, PT_EPC(sp)
	REG_L	sp, PT_SP(sp)
	e1_rest	REG_L
	addi	sp, sp, PT_SIZE_ON_STACK
	addi	sp, sp, SZREG
	ret
SYM_FUNC_END(ftrace_regs_caller)
#endif /* CONFIG_DYNAMIC_FTRACE_WITH_REGS */

#ifdef CONFIG_FUNCTION_GRAPH_TRACER
#define RTH_BLOCK	(4*SZREG)

SYM_FUNC_START(return_to_handler)
#ifdef HAVE_FUNCTION_GRAPH_FP_TEST
	mv	t6, s0				/* the frame pointer on return */
#endif
	addi	sp, sp, -RTH_BLOCK
	REG_S	a1, 0*SZREG(sp)
#endif
	REG_S	a0, 1*SZREG(sp)
	REG_S	s0, 2*SZREG(sp)
	REG_S	ra, 3*SZREG(sp)
	addi	s0, sp, RTH_BLOCK		/* frame record at s0-16 */
#ifdef HAVE_FUNCTION_GRAPH_FP_TEST
	mv	a0, t6
#endif
	call	ftrace_return_to_handler
#ifndef RTH_LEGACY_NO_A1
	mv	a2, a0				/* the original return address */
	REG_L	a1, 0*SZREG(sp)
	REG_L	a0, 1*SZREG(sp)
	REG_L	s0, 2*SZREG(sp)
	REG_L	ra, 3*SZREG(sp)
	addi	sp, sp, RTH_BLOCK
	jalr	a2
SYM_FUNC_END(return_to_handler)
#endif
