/*
 * arm64 ftrace_caller, DYNAMIC_FTRACE_WITH_ARGS (v6.2+,
 * arch/arm64/kernel/entry-ftrace.S; steps from shared/reference/arm64.md
 * "WITH_ARGS entry", sources P62 (v6.2), P63 (v6.3, CALL_OPS), E65 and
 * E614 (v6.5-v6.19, with DIRECT_CALLS)), written for trampemu. One entry
 * for every user: the callbacks get a struct ftrace_regs (x0-x8, fp, lr,
 * sp, pc), never a pt_regs (arch_ftrace_get_regs is NULL on arm64).
 *
 * Built three ways (the registry's variants):
 *  - plain (v6.2): op = function_trace_op, the callback a patched "bl" at
 *    ftrace_call;
 *  - CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS (v6.3): the ops comes from the
 *    8-byte literal the kernel keeps before each traced function
 *    (ftrace_rec_update_ops, arch/arm64/kernel/ftrace.c), 16 bytes below
 *    the call site's return address rounded down to 8, and the entry calls
 *    op->func (FTRACE_OPS_FUNC) itself; v6.3 loaded it into x2, v6.4+ into
 *    x11 as here;
 *  - + CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS (v6.4+): an ops with a
 *    direct_call (FTRACE_OPS_DIRECT_CALL) is branched to at once with
 *    "br x17", and a callback that set fregs->direct_tramp
 *    (arch_ftrace_set_direct_caller) sends the exit there after the other
 *    users ran. A direct trampoline is entered with x9 = the parent and
 *    x30 = where the traced function continues (ftrace_stub_direct_tramp).
 *
 * At entry x0-x8 and x18-x30 are live, x9-x17 free (AAPCS64; x18 is the
 * shadow call stack).
 */
	.text
SYM_CODE_START(ftrace_caller)
	bti	c
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS
	bic	x11, x30, #7			/* BL + 4 (+ 4 with BTI), rounded down */
	ldr	x11, [x11, #-(4 * AARCH64_INSN_SIZE)]	/* the site's ops */
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
	ldr	x17, [x11, #FTRACE_OPS_DIRECT_CALL]
	cbnz	x17, .Ldirect			/* a single direct user: nothing to save */
#endif
#endif
	mov	x10, sp				/* the callsite's sp */
	sub	sp, sp, #(FREGS_SIZE + 32)	/* ftrace_regs, two frame records */

	stp	x0, x1, [sp, #FREGS_X0]
	stp	x2, x3, [sp, #FREGS_X2]
	stp	x4, x5, [sp, #FREGS_X4]
	stp	x6, x7, [sp, #FREGS_X6]
	str	x8, [sp, #FREGS_X8]
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
	str	xzr, [sp, #FREGS_DIRECT_TRAMP]
#endif
	str	x29, [sp, #FREGS_FP]
	str	x9, [sp, #FREGS_LR]
	str	x10, [sp, #FREGS_SP]
	str	x30, [sp, #FREGS_PC]

	/* the traced function's frame record, then ours below it */
	stp	x29, x9, [sp, #(FREGS_SIZE + 16)]
	add	x29, sp, #(FREGS_SIZE + 16)
	stp	x29, x30, [sp, #FREGS_SIZE]
	add	x29, sp, #FREGS_SIZE

	sub	x0, x30, #AARCH64_INSN_SIZE	/* ip: the callsite's BL */
	mov	x1, x9				/* parent_ip */
	mov	x3, sp				/* fregs */
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS
	mov	x2, x11				/* op */
	ldr	x4, [x2, #FTRACE_OPS_FUNC]
	blr	x4				/* op->func(ip, parent_ip, op, fregs) */
#else
	adrp	x2, function_trace_op		/* op (ldr_l in the kernel) */
	ldr	x2, [x2, #:lo12:function_trace_op]
SYM_INNER_LABEL(ftrace_call, SYM_L_GLOBAL)
	bl	ftrace_stub			/* patched to the ops callback */
#endif

	/* C kept x19-x28; the arguments and the callsite's fp come back */
	ldp	x0, x1, [sp, #FREGS_X0]
	ldp	x2, x3, [sp, #FREGS_X2]
	ldp	x4, x5, [sp, #FREGS_X4]
	ldp	x6, x7, [sp, #FREGS_X6]
	ldr	x8, [sp, #FREGS_X8]
	ldr	x29, [sp, #FREGS_FP]
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
	ldr	x17, [sp, #FREGS_DIRECT_TRAMP]
	cbnz	x17, .Ldirect_late
#endif
	ldr	x30, [sp, #FREGS_LR]		/* a graph user may have hooked it */
	ldr	x9, [sp, #FREGS_PC]		/* a live patch may have moved it */
	add	sp, sp, #(FREGS_SIZE + 32)
	ret	x9

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
.Ldirect_late:
	/* the direct trampoline's convention: x9 = lr, x30 = pc */
	ldr	x9, [sp, #FREGS_LR]
	ldr	x30, [sp, #FREGS_PC]
	add	sp, sp, #(FREGS_SIZE + 32)
.Ldirect:
	br	x17				/* lands on a "bti c", keeps the return stack */
#endif
SYM_CODE_END(ftrace_caller)

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
/* the direct trampoline that does nothing: back into the traced function */
SYM_CODE_START(ftrace_stub_direct_tramp)
	bti	c
	mov	x10, x30
	mov	x30, x9
	ret	x10
SYM_CODE_END(ftrace_stub_direct_tramp)
#endif
