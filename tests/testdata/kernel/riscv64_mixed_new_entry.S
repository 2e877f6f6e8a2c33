/*
 * trampemu test file mixing eras (written for trampemu): the v6.11-v6.15 WITH_ARGS entry (as trampolines/riscv64/ftrace_caller.S)
 * with the <= v6.4 return_to_handler that passes s0.
 */
#include <linux/linkage.h>
#include <asm/asm.h>
#include <asm/asm-offsets.h>
#include <asm/ftrace.h>

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

#ifdef CONFIG_FUNCTION_GRAPH_TRACER
/* return_to_handler of <= v6.4: a0 = s0, the frame pointer */
SYM_FUNC_START(return_to_handler)
#ifdef HAVE_FUNCTION_GRAPH_FP_TEST
	mv	t6, s0
#endif
	addi	sp, sp, -4*SZREG
	REG_S	a1, 0*SZREG(sp)
	REG_S	a0, 1*SZREG(sp)
	REG_S	s0, 2*SZREG(sp)
	REG_S	ra, 3*SZREG(sp)
	addi	s0, sp, 4*SZREG
#ifdef HAVE_FUNCTION_GRAPH_FP_TEST
	mv	a0, t6
#endif
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
