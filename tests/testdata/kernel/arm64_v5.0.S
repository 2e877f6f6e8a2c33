/*
 * trampemu test file in the shape of a v5.0 arm64 entry-ftrace.S (written
 * for trampemu, the -pg/_mcount era, v5.0-v5.4): the mcount_* macros over
 * the frame record the -pg prologue built, the static _mcount under
 * #ifndef CONFIG_DYNAMIC_FTRACE and, in its #else, the "ret" _mcount and
 * an ftrace_caller whose NOPs at ftrace_call and ftrace_graph_call the
 * kernel patches; ftrace_graph_caller calls prepare_ftrace_return(pc,
 * &lr, fp); return_to_handler passes x29. Both roles, one file.
 */
#include <linux/linkage.h>
#include <asm/assembler.h>
#include <asm/ftrace.h>
#include <asm/insn.h>

	.macro mcount_enter
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
	.endm

	.macro mcount_exit
	ldp	x29, x30, [sp], #16
	ret
	.endm

	/* the traced function's record is at [x29]: {its caller's fp, its lr} */
	.macro mcount_pc reg, from
	sub	\reg, \from, #AARCH64_INSN_SIZE
	.endm

	.macro mcount_caller_fp reg
	ldr	\reg, [x29]
	ldr	\reg, [\reg]
	.endm

	.macro mcount_get_pc reg
	ldr	\reg, [x29, #8]
	mcount_pc \reg, \reg
	.endm

	.macro mcount_get_lr reg
	ldr	\reg, [x29]
	ldr	\reg, [\reg, #8]
	.endm

	.macro mcount_get_lr_addr reg
	ldr	\reg, [x29]
	add	\reg, \reg, #8
	.endm

#ifndef CONFIG_DYNAMIC_FTRACE
ENTRY(_mcount)
	mcount_enter
	ldr_l	x2, ftrace_trace_function
	adr	x0, ftrace_stub
	cmp	x0, x2
	b.eq	1f
	mcount_get_pc	x0
	mcount_get_lr	x1
	blr	x2
1:	mcount_exit
ENDPROC(_mcount)
#else
ENTRY(_mcount)
	ret
ENDPROC(_mcount)

ENTRY(ftrace_caller)
	mcount_enter
	mcount_pc	x0, x30
	mcount_get_lr	x1
GLOBAL(ftrace_call)
	nop
#ifdef CONFIG_FUNCTION_GRAPH_TRACER
GLOBAL(ftrace_graph_call)
	nop
#endif
	mcount_exit
ENDPROC(ftrace_caller)
#endif

ENTRY(ftrace_stub)
	ret
ENDPROC(ftrace_stub)

#ifdef CONFIG_FUNCTION_GRAPH_TRACER
ENTRY(ftrace_graph_caller)
	mcount_get_pc		x0
	mcount_get_lr_addr	x1
	mcount_caller_fp	x2
	bl	prepare_ftrace_return
	mcount_exit
ENDPROC(ftrace_graph_caller)

ENTRY(return_to_handler)
	sub	sp, sp, #64
	stp	x0, x1, [sp]
	stp	x2, x3, [sp, #16]
	stp	x4, x5, [sp, #32]
	stp	x6, x7, [sp, #48]
	mov	x0, x29
	bl	ftrace_return_to_handler
	mov	x30, x0
	ldp	x0, x1, [sp]
	ldp	x2, x3, [sp, #16]
	ldp	x4, x5, [sp, #32]
	ldp	x6, x7, [sp, #48]
	add	sp, sp, #64
	ret
END(return_to_handler)
#endif
