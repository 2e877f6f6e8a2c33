/*
 * trampemu test file in the shape of a v6.14+ arm64 entry-ftrace.S
 * (written for trampemu): under CONFIG_DYNAMIC_FTRACE_WITH_ARGS one
 * ftrace_caller that fills a struct ftrace_regs (FREGS_*), takes its ops
 * from the call site's literal under CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS
 * and leaves through x17 for a direct call; the -pg code in the #else
 * branch. return_to_handler passes a struct ftrace_regs (x0-x7, fp).
 * Both roles, one file.
 */
#include <linux/linkage.h>
#include <linux/cfi_types.h>
#include <asm/asm-offsets.h>
#include <asm/assembler.h>
#include <asm/ftrace.h>
#include <asm/insn.h>

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_ARGS
SYM_CODE_START(ftrace_caller)
	bti	c
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS
	bic	x11, x30, 0x7			// the literal is 16 below, 8-aligned
	ldr	x11, [x11, #-(4 * AARCH64_INSN_SIZE)]
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
	ldr	x17, [x11, #FTRACE_OPS_DIRECT_CALL]
	cbnz	x17, ftrace_caller_direct
#endif
#endif
	mov	x10, sp
	sub	sp, sp, #(FREGS_SIZE + 32)
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
	stp	x29, x9, [sp, #FREGS_SIZE + 16]
	add	x29, sp, #FREGS_SIZE + 16
	stp	x29, x30, [sp, #FREGS_SIZE]
	add	x29, sp, #FREGS_SIZE
	sub	x0, x30, #AARCH64_INSN_SIZE
	mov	x1, x9
	mov	x3, sp
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS
	mov	x2, x11
	ldr	x4, [x2, #FTRACE_OPS_FUNC]
	blr	x4
#else
	ldr_l	x2, function_trace_op
SYM_INNER_LABEL(ftrace_call, SYM_L_GLOBAL)
	bl	ftrace_stub
#endif
	ldp	x0, x1, [sp, #FREGS_X0]
	ldp	x2, x3, [sp, #FREGS_X2]
	ldp	x4, x5, [sp, #FREGS_X4]
	ldp	x6, x7, [sp, #FREGS_X6]
	ldr	x8, [sp, #FREGS_X8]
	ldr	x29, [sp, #FREGS_FP]
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
	ldr	x17, [sp, #FREGS_DIRECT_TRAMP]
	cbnz	x17, ftrace_caller_direct_late
#endif
	ldr	x30, [sp, #FREGS_LR]
	ldr	x9, [sp, #FREGS_PC]
	add	sp, sp, #FREGS_SIZE + 32
	ret	x9

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
SYM_INNER_LABEL(ftrace_caller_direct_late, SYM_L_LOCAL)
	ldr	x9, [sp, #FREGS_LR]		// the trampoline's convention
	ldr	x30, [sp, #FREGS_PC]
	add	sp, sp, #FREGS_SIZE + 32
SYM_INNER_LABEL(ftrace_caller_direct, SYM_L_LOCAL)
	br	x17
#endif
SYM_CODE_END(ftrace_caller)

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
SYM_CODE_START(ftrace_stub_direct_tramp)
	bti	c
	mov	x10, x30
	mov	x30, x9
	ret	x10
SYM_CODE_END(ftrace_stub_direct_tramp)
#endif

#else /* !CONFIG_DYNAMIC_FTRACE_WITH_ARGS: the -pg build */

SYM_FUNC_START(_mcount)
	ret
SYM_FUNC_END(_mcount)

SYM_FUNC_START(ftrace_caller)
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
	sub	x0, x30, #AARCH64_INSN_SIZE
	ldr	x1, [x29]
	ldr	x1, [x1, #8]
SYM_INNER_LABEL(ftrace_call, SYM_L_GLOBAL)
	nop
#ifdef CONFIG_FUNCTION_GRAPH_TRACER
SYM_INNER_LABEL(ftrace_graph_call, SYM_L_GLOBAL)
	nop
#endif
	ldp	x29, x30, [sp], #16
	ret
SYM_FUNC_END(ftrace_caller)

#endif /* CONFIG_DYNAMIC_FTRACE_WITH_ARGS */

SYM_TYPED_FUNC_START(ftrace_stub)
	ret
SYM_FUNC_END(ftrace_stub)

#ifdef CONFIG_FUNCTION_GRAPH_TRACER
SYM_TYPED_FUNC_START(ftrace_stub_graph)
	ret
SYM_FUNC_END(ftrace_stub_graph)

SYM_CODE_START(return_to_handler)
	sub	sp, sp, #FREGS_SIZE
	stp	x0, x1, [sp, #FREGS_X0]
	stp	x2, x3, [sp, #FREGS_X2]
	stp	x4, x5, [sp, #FREGS_X4]
	stp	x6, x7, [sp, #FREGS_X6]
	str	x29, [sp, #FREGS_FP]
	mov	x0, sp
	bl	ftrace_return_to_handler
	mov	x30, x0
	ldp	x0, x1, [sp, #FREGS_X0]
	ldp	x2, x3, [sp, #FREGS_X2]
	ldp	x4, x5, [sp, #FREGS_X4]
	ldp	x6, x7, [sp, #FREGS_X6]
	add	sp, sp, #FREGS_SIZE
	ret
SYM_CODE_END(return_to_handler)
#endif
