/*
 * x86-64 ftrace_caller, DYNAMIC_FTRACE_WITH_ARGS (v5.11 .. v6.19),
 * arch/x86/kernel/ftrace_64.S. Partial regs: RSP is filled, CS = 0 tells
 * arch_ftrace_get_regs() that this is not a full pt_regs, and a callback may
 * redirect the return by writing RIP. Build with CONFIG_FRAME_POINTER for the
 * frame-pointer kernel.
 */
#include "mcount_regs.h"

SYM_FUNC_START(ftrace_caller)
	save_mcount_regs
	CALL_DEPTH_ACCOUNT
	leaq	MCOUNT_REG_SIZE+8(%rsp), %rcx	/* sp at the call site */
	movq	%rcx, RSP(%rsp)
SYM_INNER_LABEL(ftrace_caller_op_ptr, SYM_L_GLOBAL)
	ANNOTATE_NOENDBR
	movq	function_trace_op(%rip), %rdx	/* 3rd argument: ops */
	leaq	(%rsp), %rcx			/* 4th argument: fregs */
	movq	$0, CS(%rsp)			/* partial regs */
	CALL_DEPTH_ACCOUNT
SYM_INNER_LABEL(ftrace_call, SYM_L_GLOBAL)
	ANNOTATE_NOENDBR
	call	ftrace_stub			/* patched to the ops callback */
	movq	RIP(%rsp), %rax			/* a callback may change RIP */
	movq	%rax, MCOUNT_REG_SIZE(%rsp)
	restore_mcount_regs
SYM_INNER_LABEL(ftrace_caller_end, SYM_L_GLOBAL)
	ANNOTATE_NOENDBR
	RET
SYM_FUNC_END(ftrace_caller)
/* as arch/x86/kernel/ftrace_64.S v5.12+ (v6.1): objtool skips it under
   CONFIG_FRAME_POINTER (its frame is not a standard one) */
STACK_FRAME_NON_STANDARD_FP(ftrace_caller)
