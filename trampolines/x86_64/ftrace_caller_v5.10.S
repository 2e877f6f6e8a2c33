/*
 * x86-64 ftrace_caller as of v5.10 (before DYNAMIC_FTRACE_WITH_ARGS),
 * arch/x86/kernel/ftrace_64.S: callbacks get regs = NULL, nothing is written
 * back, and graph tracing goes through the patched jump at ftrace_graph_call
 * into ftrace_graph_caller, which calls prepare_ftrace_return(ip, &parent,
 * frame pointer) (the old graph path, until v5.15).
 */
#include "mcount_regs.h"

SYM_FUNC_START(ftrace_caller)
	save_mcount_regs
SYM_INNER_LABEL(ftrace_caller_op_ptr, SYM_L_GLOBAL)
	movq	function_trace_op(%rip), %rdx	/* 3rd argument: ops */
	movq	$0, %rcx			/* 4th argument: regs = NULL */
SYM_INNER_LABEL(ftrace_call, SYM_L_GLOBAL)
	call	ftrace_stub
	restore_mcount_regs
SYM_INNER_LABEL(ftrace_caller_end, SYM_L_GLOBAL)
	jmp	ftrace_epilogue
SYM_FUNC_END(ftrace_caller)

SYM_FUNC_START(ftrace_epilogue)
SYM_INNER_LABEL(ftrace_graph_call, SYM_L_GLOBAL)
	/* a 5-byte jmp (gas would relax a jmp to the next instruction to 2
	   bytes), patched to jmp ftrace_graph_caller when graph tracing is on */
	.byte	0xe9
	.long	ftrace_epilogue_ret - (. + 4)
SYM_INNER_LABEL(ftrace_epilogue_ret, SYM_L_GLOBAL)
	RET
SYM_FUNC_END(ftrace_epilogue)

SYM_FUNC_START(ftrace_graph_caller)
	save_mcount_regs
	leaq	MCOUNT_REG_SIZE+8(%rsp), %rsi	/* &parent: the return-address slot */
	movq	$0, %rdx			/* no frame-pointer test */
	call	prepare_ftrace_return
	restore_mcount_regs
	RET
SYM_FUNC_END(ftrace_graph_caller)
