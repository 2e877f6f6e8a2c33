/*
 * trampemu test file mixing eras as a stable tree does (written for
 * trampemu): the v5.10-style entries of arm64_v5.10.S (pt_regs, the NOP at
 * ftrace_graph_call branching to ftrace_graph_caller) with the
 * v6.14-style return_to_handler of arm64_v6.14.S (struct ftrace_regs).
 */
#include <linux/linkage.h>
#include <asm/asm-offsets.h>
#include <asm/assembler.h>
#include <asm/ftrace.h>
#include <asm/insn.h>

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_REGS
	.macro	save_site_regs, everything=0
	sub	sp, sp, #(S_FRAME_SIZE + 16)
	stp	x0, x1, [sp, #S_X0]
	stp	x2, x3, [sp, #S_X2]
	stp	x4, x5, [sp, #S_X4]
	stp	x6, x7, [sp, #S_X6]
	stp	x8, x9, [sp, #S_X8]
	.if \everything == 1
	stp	x10, x11, [sp, #S_X10]
	stp	x12, x13, [sp, #S_X12]
	stp	x14, x15, [sp, #S_X14]
	stp	x16, x17, [sp, #S_X16]
	stp	x18, x19, [sp, #S_X18]
	stp	x20, x21, [sp, #S_X20]
	stp	x22, x23, [sp, #S_X22]
	stp	x24, x25, [sp, #S_X24]
	stp	x26, x27, [sp, #S_X26]
	stp	x28, x29, [sp, #S_X28]
	.else
	str	x29, [sp, #S_FP]
	.endif
	add	x10, sp, #(S_FRAME_SIZE + 16)	// sp at the call site
	stp	x9, x10, [sp, #S_LR]		// lr = the parent, then sp
	str	x30, [sp, #S_PC]
	stp	x29, x9, [sp, #S_FRAME_SIZE]	// the traced function's record
	add	x29, sp, #S_FRAME_SIZE
	stp	x29, x30, [sp, #S_STACKFRAME]	// and ours
	add	x29, sp, #S_STACKFRAME
	.endm

SYM_CODE_START(ftrace_regs_caller)
#ifdef BTI_C
	BTI_C
#endif
	save_site_regs	1
	b	ftrace_common
SYM_CODE_END(ftrace_regs_caller)

SYM_CODE_START(ftrace_caller)
#ifdef BTI_C
	BTI_C
#endif
	save_site_regs	0
	b	ftrace_common
SYM_CODE_END(ftrace_caller)

SYM_CODE_START(ftrace_common)
	sub	x0, x30, #AARCH64_INSN_SIZE
	mov	x1, x9
	ldr_l	x2, function_trace_op
	mov	x3, sp
SYM_INNER_LABEL(ftrace_call, SYM_L_GLOBAL)
	bl	ftrace_stub
#ifdef CONFIG_FUNCTION_GRAPH_TRACER
SYM_INNER_LABEL(ftrace_graph_call, SYM_L_GLOBAL)
	nop					// b ftrace_graph_caller when on
#endif
ftrace_common_return:
	ldp	x0, x1, [sp, #S_X0]
	ldp	x2, x3, [sp, #S_X2]
	ldp	x4, x5, [sp, #S_X4]
	ldp	x6, x7, [sp, #S_X6]
	ldr	x8, [sp, #S_X8]
	ldr	x29, [sp, #S_FP]
	ldr	x30, [sp, #S_LR]
	ldr	x9, [sp, #S_PC]
	add	sp, sp, #(S_FRAME_SIZE + 16)
	ret	x9
SYM_CODE_END(ftrace_common)

#ifdef CONFIG_FUNCTION_GRAPH_TRACER
SYM_CODE_START(ftrace_graph_caller)
	ldr	x0, [sp, #S_PC]
	sub	x0, x0, #AARCH64_INSN_SIZE
	add	x1, sp, #S_LR
	ldr	x2, [sp, #S_FRAME_SIZE]
	bl	prepare_ftrace_return
	b	ftrace_common_return
SYM_CODE_END(ftrace_graph_caller)
#endif

#else /* !CONFIG_DYNAMIC_FTRACE_WITH_REGS: the -pg build */

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

#endif /* CONFIG_DYNAMIC_FTRACE_WITH_REGS */

SYM_FUNC_START(ftrace_stub)
	ret
SYM_FUNC_END(ftrace_stub)

#ifdef CONFIG_FUNCTION_GRAPH_TRACER
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
