/*
 * arm64 ftrace_caller and ftrace_regs_caller, DYNAMIC_FTRACE_WITH_REGS as
 * in v5.10 (arch/arm64/kernel/entry-ftrace.S, Rtoax/linux-5.10.13@0b82e3ea9acc;
 * steps from shared/reference/arm64.md "WITH_REGS entry"), written for
 * trampemu. Both fill a pt_regs (pt_regs_entry.h) and go on in
 * ftrace_common, which calls the ops callback at ftrace_call with
 * (ip = the BL, parent = x9, op = function_trace_op, regs = sp). No
 * "bti c" yet (v5.10 opened with BTI_C only under #ifdef BTI_C, and the
 * kernel did not define it for this code).
 *
 * Graph tracing goes through the NOP at ftrace_graph_call, which
 * ftrace_enable_ftrace_graph_caller patches to "b ftrace_graph_caller"
 * (arch/arm64/kernel/ftrace.c, v5.10): prepare_ftrace_return(pc - 4,
 * &regs->regs[30], the callsite's fp).
 */
#include "pt_regs_entry.h"

	.text
SYM_CODE_START(ftrace_regs_caller)
	pt_regs_entry	1
	b	ftrace_common
SYM_CODE_END(ftrace_regs_caller)

SYM_CODE_START(ftrace_caller)
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
SYM_INNER_LABEL(ftrace_graph_call, SYM_L_GLOBAL)
	nop					/* b ftrace_graph_caller when a graph user is on */
.Lftrace_common_return:
	pt_regs_return
SYM_CODE_END(ftrace_common)

SYM_CODE_START(ftrace_graph_caller)
	ldr	x0, [sp, #S_PC]
	sub	x0, x0, #AARCH64_INSN_SIZE	/* ip */
	add	x1, sp, #S_LR			/* where the parent is kept */
	ldr	x2, [sp, #PT_REGS_SIZE]		/* the callsite's fp, from its frame record */
	bl	prepare_ftrace_return
	b	.Lftrace_common_return
SYM_CODE_END(ftrace_graph_caller)
