/*
 * trampemu test file in the shape of a v6.14-stable riscv64 kernel's two
 * ftrace files together (written for trampemu): arch/riscv/kernel/mcount-dyn.S's
 * ftrace_caller under CONFIG_DYNAMIC_FTRACE_WITH_ARGS, filling a struct
 * __arch_ftrace_regs (FREGS_*) and leaving through t1 for a direct call,
 * and arch/riscv/kernel/mcount.S's return_to_handler with the FREGS_*
 * block of 67a5ba8f742f. Both roles, one file.
 */
#include <linux/init.h>
#include <linux/linkage.h>
#include <linux/cfi_types.h>
#include <asm/asm.h>
#include <asm/asm-offsets.h>
#include <asm/ftrace.h>

	.text
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_ARGS
	.macro SAVE_ARGS_FREGS
	mv	t4, sp
	addi	sp, sp, -FREGS_SIZE_ON_STACK
	REG_S	t0, FREGS_EPC(sp)
	REG_S	x1, FREGS_RA(sp)
	REG_S	t4, FREGS_SP(sp)
#ifdef HAVE_FUNCTION_GRAPH_FP_TEST
	REG_S	x8, FREGS_S0(sp)
#endif
	REG_S	x6, FREGS_T1(sp)
	REG_S	x10, FREGS_A0(sp)
	REG_S	x11, FREGS_A1(sp)
	REG_S	x12, FREGS_A2(sp)
	REG_S	x13, FREGS_A3(sp)
	REG_S	x14, FREGS_A4(sp)
	REG_S	x15, FREGS_A5(sp)
	REG_S	x16, FREGS_A6(sp)
	REG_S	x17, FREGS_A7(sp)
	.endm

	.macro RESTORE_ARGS_FREGS
	REG_L	t0, FREGS_EPC(sp)
	REG_L	x1, FREGS_RA(sp)
#ifdef HAVE_FUNCTION_GRAPH_FP_TEST
	REG_L	x8, FREGS_S0(sp)
#endif
	REG_L	x6, FREGS_T1(sp)
	REG_L	x10, FREGS_A0(sp)
	REG_L	x11, FREGS_A1(sp)
	REG_L	x12, FREGS_A2(sp)
	REG_L	x13, FREGS_A3(sp)
	REG_L	x14, FREGS_A4(sp)
	REG_L	x15, FREGS_A5(sp)
	REG_L	x16, FREGS_A6(sp)
	REG_L	x17, FREGS_A7(sp)
	addi	sp, sp, FREGS_SIZE_ON_STACK
	.endm

SYM_FUNC_START(ftrace_caller)
	mv	t1, zero
	SAVE_ARGS_FREGS
	addi	a0, t0, -MCOUNT_INSN_SIZE
	la	a1, function_trace_op
	REG_L	a2, 0(a1)
	mv	a1, ra
	mv	a3, sp
SYM_INNER_LABEL(ftrace_call, SYM_L_GLOBAL)
	call	ftrace_stub
	RESTORE_ARGS_FREGS
	bnez	t1, .Ldirect
	jr	t0
.Ldirect:
	jr	t1
SYM_FUNC_END(ftrace_caller)

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
SYM_CODE_START(ftrace_stub_direct_tramp)
	jr	t0
SYM_CODE_END(ftrace_stub_direct_tramp)
#endif
#endif /* CONFIG_DYNAMIC_FTRACE_WITH_ARGS */

#ifdef CONFIG_FUNCTION_GRAPH_TRACER
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
