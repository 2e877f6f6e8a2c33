/*
 * arm64 ftrace_caller and ftrace_graph_caller of the -pg/_mcount era
 * (v4.19-v5.4: CONFIG_DYNAMIC_FTRACE without DYNAMIC_FTRACE_WITH_REGS,
 * the "#else /" "* CONFIG_DYNAMIC_FTRACE *" "/" branch of
 * arch/arm64/kernel/entry-ftrace.S), written for trampemu from the steps
 * of that file in v5.0 (figozhang/runninglinuxkernel_5.0@875e3166701d,
 * blob 81b8eb5c4633) and v4.19 (the Android 4.19 trees), and of
 * arch/arm64/kernel/ftrace.c of the same versions.
 *
 * The call site is gcc's -pg one: after the traced function's prologue
 * built its frame record ("stp x29, x30, [sp, #-N]!; mov x29, sp"),
 * "bl _mcount", an ordinary AAPCS64 call (x0-x18 are the callee's), which
 * ftrace_make_nop turned into a NOP at boot and ftrace_make_call into
 * "bl ftrace_caller" (rec->ip is the bl: ftrace_call_adjust returns the
 * address recordmcount found; MCOUNT_INSN_SIZE is AARCH64_INSN_SIZE).
 *
 * ftrace_caller:
 *   1. mcount_enter: push the frame record {x29, x30} (x30 = the bl + 4),
 *      x29 = sp: the unwinder sees this code, then the traced function;
 *   2. mcount_get_pc0: x0 = x30 - 4, the call site; mcount_get_lr: x1 =
 *      the traced function's saved lr, [[x29] + 8], its parent;
 *   3. ftrace_call: a NOP that ftrace_update_ftrace_func makes "bl
 *      <tracer>" (not validated: ftrace_modify_code(pc, 0, new, false));
 *      arm64 of this era has no ARCH_SUPPORTS_FTRACE_OPS, so the tracer
 *      gets (ip, parent_ip) only;
 *   4. ftrace_graph_call: a NOP that ftrace_enable_ftrace_graph_caller
 *      makes "b ftrace_graph_caller";
 *   5. mcount_exit: pop the record, ret.
 * ftrace_graph_caller (its own function, reached by the branch with
 * ftrace_caller's record still pushed):
 *   x0 = [x29 + 8] - 4 (mcount_get_pc), x1 = [x29] + 8, the address of
 *   the traced function's saved lr (mcount_get_lr_addr), x2 = [[x29]], the
 *   traced function's saved x29: its caller's frame pointer
 *   (mcount_get_parent_fp), which return_to_handler's x29 matches
 *   (HAVE_FUNCTION_GRAPH_FP_TEST); bl prepare_ftrace_return(self_addr,
 *   parent, frame_pointer), which stores return_to_handler there; the
 *   traced function's epilogue loads it into x30; mcount_exit.
 *
 * PREPARE_PARENT_FIRST builds v4.19's ftrace_graph_caller, which passes
 * the same three values as (&lr, pc, fp): arch/arm64/kernel/ftrace.c v4.19
 * void prepare_ftrace_return(unsigned long *parent, unsigned long
 * self_addr, unsigned long frame_pointer); v5.0 flipped the first two
 * ("arm64: ftrace: always pass instrumented pc in x0").
 *
 * Twins (registry): WRONG_PARENT passes x29 + 8, ftrace_caller's own saved
 * lr, as parent; WRONG_FP passes [x29], the traced function's own frame
 * pointer, as frame_pointer.
 */
	.macro mcount_enter
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
	.endm

	.macro mcount_exit
	ldp	x29, x30, [sp], #16
	ret
	.endm

	.text
SYM_CODE_START(_mcount)
	ret
SYM_CODE_END(_mcount)

SYM_CODE_START(ftrace_caller)
	mcount_enter
	sub	x0, x30, #AARCH64_INSN_SIZE	/* the call site */
	ldr	x1, [x29]			/* the traced function's record */
	ldr	x1, [x1, #8]			/* its lr: the parent */
SYM_INNER_LABEL(ftrace_call, SYM_L_GLOBAL)
	nop					/* bl <tracer> */
SYM_INNER_LABEL(ftrace_graph_call, SYM_L_GLOBAL)
	nop					/* b ftrace_graph_caller */
	mcount_exit
SYM_CODE_END(ftrace_caller)

SYM_CODE_START(ftrace_graph_caller)
#ifdef PREPARE_PARENT_FIRST
	/* v4.19: prepare_ftrace_return(&lr, pc, fp) ("mcount_get_lr_addr x0;
	   mcount_get_pc x1; mcount_get_parent_fp x2") */
	ldr	x0, [x29]
	add	x0, x0, #8			/* &the traced function's saved lr */
	ldr	x1, [x29, #8]
	sub	x1, x1, #AARCH64_INSN_SIZE	/* self_addr */
	ldr	x2, [x29]
	ldr	x2, [x2]			/* its caller's fp */
#else
	ldr	x0, [x29, #8]			/* the bl + 4 */
	sub	x0, x0, #AARCH64_INSN_SIZE	/* self_addr */
#ifdef TWIN_WRONG_PARENT
	add	x1, x29, #8			/* BUG: our own saved lr */
#else
	ldr	x1, [x29]
	add	x1, x1, #8			/* &the traced function's saved lr */
#endif
	ldr	x2, [x29]
#ifndef TWIN_WRONG_FP
	ldr	x2, [x2]			/* its caller's fp */
#endif
#endif
	bl	prepare_ftrace_return
	mcount_exit
SYM_CODE_END(ftrace_graph_caller)
