/*
 * trampemu test file mixing eras (written for trampemu): the v6.2-style
 * entry of arm64_v6.2.S (struct ftrace_regs, no CALL_OPS) with the
 * v6.13-style return_to_handler of arm64_v6.13.S (struct fgraph_ret_regs).
 */
#include <asm/assembler.h>
#include <asm/ftrace.h>
#include <asm/insn.h>

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_ARGS
SYM_CODE_START(ftrace_caller)
	bti	c
	mov	x10, sp
	sub	sp, sp, #(FREGS_SIZE + 32)
	stp	x0, x1, [sp, #FREGS_X0]
	stp	x2, x3, [sp, #FREGS_X2]
	stp	x4, x5, [sp, #FREGS_X4]
	stp	x6, x7, [sp, #FREGS_X6]
	str	x8, [sp, #FREGS_X8]
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
	ldr_l	x2, function_trace_op
SYM_INNER_LABEL(ftrace_call, SYM_L_GLOBAL)
	bl	ftrace_stub
	ldp	x0, x1, [sp, #FREGS_X0]
	ldp	x2, x3, [sp, #FREGS_X2]
	ldp	x4, x5, [sp, #FREGS_X4]
	ldp	x6, x7, [sp, #FREGS_X6]
	ldr	x8, [sp, #FREGS_X8]
	ldr	x29, [sp, #FREGS_FP]
	ldr	x30, [sp, #FREGS_LR]
	ldr	x9, [sp, #FREGS_PC]
	add	sp, sp, #FREGS_SIZE + 32
	ret	x9
SYM_CODE_END(ftrace_caller)

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

SYM_FUNC_START(ftrace_stub)
	ret
SYM_FUNC_END(ftrace_stub)

#ifdef CONFIG_FUNCTION_GRAPH_TRACER
SYM_CODE_START(return_to_handler)
	sub	sp, sp, #FGRET_REGS_SIZE
	stp	x0, x1, [sp, #FGRET_REGS_X0]
	stp	x2, x3, [sp, #FGRET_REGS_X2]
	stp	x4, x5, [sp, #FGRET_REGS_X4]
	stp	x6, x7, [sp, #FGRET_REGS_X6]
	str	x29, [sp, #FGRET_REGS_FP]
	mov	x0, sp
	bl	ftrace_return_to_handler
	mov	x30, x0
	ldp	x0, x1, [sp, #FGRET_REGS_X0]
	ldp	x2, x3, [sp, #FGRET_REGS_X2]
	ldp	x4, x5, [sp, #FGRET_REGS_X4]
	ldp	x6, x7, [sp, #FGRET_REGS_X6]
	add	sp, sp, #FGRET_REGS_SIZE
	ret
SYM_CODE_END(return_to_handler)
#endif
