/*
 * arm64 ftrace_caller and ftrace_regs_caller, DYNAMIC_FTRACE_WITH_REGS as
 * in v5.18-v6.1 (arch/arm64/kernel/entry-ftrace.S, torvalds/linux@45aaee55afff,
 * and @1136fa0c07de for "bti c"; steps from shared/reference/arm64.md "WITH_REGS
 * entry"), written for trampemu: the v5.10 frame (pt_regs_entry.h) behind
 * "bti c", and no ftrace_graph_call any more: graph tracing is the
 * ftrace_graph_func ops (arch/arm64/kernel/ftrace.c after "arm64/ftrace:
 * Make function graph use ftrace directly", Chengming Zhou, Feb 2022),
 * which hooks regs->regs[30] through the pt_regs it is handed.
 */
#include "pt_regs_entry.h"

	.text
SYM_CODE_START(ftrace_regs_caller)
	bti	c
	pt_regs_entry	1
	b	ftrace_common
SYM_CODE_END(ftrace_regs_caller)

SYM_CODE_START(ftrace_caller)
	bti	c
	pt_regs_entry	0
	b	ftrace_common
SYM_CODE_END(ftrace_caller)

SYM_CODE_START(ftrace_common)
	sub	x0, x30, #AARCH64_INSN_SIZE	/* ip: the callsite's BL */
	mov	x1, x9				/* parent_ip */
	adrp	x2, function_trace_op		/* op (ldr_l in the kernel) */
	ldr	x2, [x2, #:lo12:function_trace_op]
	mov	x3, sp				/* regs */
SYM_INNER_LABEL(ftrace_call, SYM_L_GLOBAL)
	bl	ftrace_stub			/* patched to the ops callback */
	pt_regs_return
SYM_CODE_END(ftrace_common)
