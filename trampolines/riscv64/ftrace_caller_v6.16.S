/*
 * riscv64 ftrace_caller of v6.16 (arch/riscv/kernel/mcount-dyn.S of
 * torvalds/linux@a7bee4e7f780, blob 48f6c4f7dca0), written for trampemu
 * from the step list of shared/reference/riscv64.md "E5 entry":
 *  - the jalr-only call site ("riscv: ftrace: prepare ftrace for atomic
 *    code patching", b2137c3b6d7a): boot writes "auipc t0" at the
 *    function, enabling writes the jalr after it; the trampoline is
 *    entered with t0 = the function + 8, ra = the traced function's
 *    return address, and rec->ip is the jalr, t0 - MCOUNT_JALR_SIZE;
 *  - CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS: the 8 bytes before the function
 *    hold the ops of the site (ftrace_rec_update_ops), at t0 - 16; the
 *    entry calls its func with "jalr ra" itself (no ftrace_call site);
 *  - CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS through the ops ("riscv:
 *    ftrace: support direct call using call_ops", b21cdb9523e5): a
 *    nonzero ops->direct_call is jumped to at once, nothing saved, with
 *    ra = the parent and t0 = the return into the function (the
 *    convention of ftrace_stub_direct_tramp, "jr t0"); a callback that set
 *    fregs->t1 (arch_ftrace_set_direct_caller) sends the exit there;
 *  - the v6.16 struct __arch_ftrace_regs (direct_tramp at FREGS_DIRECT_TRAMP,
 *    never stored; a0-a7 from 48: the build's asm-offsets.h of that form,
 *    the registry's Fregs), with t2-t6 saved and reloaded under
 *    CONFIG_CC_IS_CLANG ("riscv: ftrace: support fastcc in Clang for
 *    WITH_ARGS", f8693f6dffcd: clang's fastcc passes arguments in them,
 *    llvm/llvm-project#83111); the SP slot is computed from the lowered
 *    sp through a0 (b21cdb9523e5 dropped the "mv t4, sp").
 *
 * Twins (the registry's): TWIN_OPS_AT_8 reads the ops 8 bytes too high,
 * at the call site's own words; TWIN_NO_RA does not reload ra, which the
 * "jalr ra" to op->func overwrote; TWIN_NO_T0 does not reload t0, which
 * C may clobber and a live patch moves (fregs->epc).
 */
#include "fregs_args.h"

#ifdef TWIN_OPS_AT_8
#define OPS_AT	-8
#else
#define OPS_AT	-16		/* the function - 8 */
#endif

	.text
SYM_FUNC_START(ftrace_caller)
	REG_L	t1, OPS_AT(t0)			/* the site's struct ftrace_ops */
	REG_L	t1, FTRACE_OPS_DIRECT_CALL(t1)
	bnez	t1, .Ldirect			/* a single direct user: nothing to save */

	addi	sp, sp, -FREGS_SIZE_ON_STACK
	REG_S	t0, FREGS_EPC(sp)
	REG_S	ra, FREGS_RA(sp)
#ifdef HAVE_FUNCTION_GRAPH_FP_TEST
	REG_S	s0, FREGS_S0(sp)		/* the frame the graph entry files */
#endif
	REG_S	t1, FREGS_T1(sp)		/* 0: no direct trampoline yet */
#ifdef CONFIG_CC_IS_CLANG
	REG_S	t2, FREGS_T2(sp)		/* fastcc arguments */
	REG_S	t3, FREGS_T3(sp)
	REG_S	t4, FREGS_T4(sp)
	REG_S	t5, FREGS_T5(sp)
	REG_S	t6, FREGS_T6(sp)
#endif
	fregs_save_args
	addi	a0, sp, FREGS_SIZE_ON_STACK	/* the traced function's sp */
	REG_S	a0, FREGS_SP(sp)

	addi	a0, t0, -MCOUNT_JALR_SIZE	/* ip: the site's jalr */
	mv	a1, ra				/* parent_ip */
	REG_L	a2, OPS_AT(t0)			/* op */
	REG_L	ra, FTRACE_OPS_FUNC(a2)
	mv	a3, sp				/* fregs */
	jalr	ra				/* op->func(ip, parent_ip, op, fregs) */

#ifndef TWIN_NO_T0
	REG_L	t0, FREGS_EPC(sp)		/* a live patch may have moved it */
#endif
#ifndef TWIN_NO_RA
	REG_L	ra, FREGS_RA(sp)		/* return_to_handler under the graph tracer */
#endif
#ifdef HAVE_FUNCTION_GRAPH_FP_TEST
	REG_L	s0, FREGS_S0(sp)
#endif
	REG_L	t1, FREGS_T1(sp)
#ifdef CONFIG_CC_IS_CLANG
	REG_L	t2, FREGS_T2(sp)
	REG_L	t3, FREGS_T3(sp)
	REG_L	t4, FREGS_T4(sp)
	REG_L	t5, FREGS_T5(sp)
	REG_L	t6, FREGS_T6(sp)
#endif
	fregs_restore_args
	addi	sp, sp, FREGS_SIZE_ON_STACK
	bnez	t1, .Ldirect
	jr	t0
.Ldirect:
	jr	t1
SYM_FUNC_END(ftrace_caller)

SYM_CODE_START(ftrace_stub_direct_tramp)
	jr	t0
SYM_CODE_END(ftrace_stub_direct_tramp)
