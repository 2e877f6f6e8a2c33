/*
 * trampemu test file mixing eras as a stable tree does (written for
 * trampemu): the v5.15-style entry of x86_64_v5.15.S (ftrace_graph_call
 * into ftrace_graph_caller, WITH_ARGS) with the v6.14-style
 * return_to_handler of x86_64_v6.14.S (struct ftrace_regs).
 */
#include <linux/linkage.h>
#include <asm/ptrace.h>
#include <asm/ftrace.h>
#include <asm/export.h>
#include <asm/nospec-branch.h>
#include <asm/unwind_hints.h>
#include <asm/frame.h>
#include "x86_64_mcount_regs.h"

	.code64
	.section .entry.text, "ax"

#ifdef CONFIG_DYNAMIC_FTRACE

SYM_FUNC_START(__fentry__)
	retq
SYM_FUNC_END(__fentry__)
EXPORT_SYMBOL(__fentry__)

SYM_FUNC_START(ftrace_caller)
	save_mcount_regs
	leaq	MCOUNT_REG_SIZE+8(%rsp), %rcx
	movq	%rcx, RSP(%rsp)
SYM_INNER_LABEL(ftrace_caller_op_ptr, SYM_L_GLOBAL)
	movq	function_trace_op(%rip), %rdx
	leaq	(%rsp), %rcx
	movq	$0, CS(%rsp)
SYM_INNER_LABEL(ftrace_call, SYM_L_GLOBAL)
	call	ftrace_stub
	movq	RIP(%rsp), %rax
	movq	%rax, MCOUNT_REG_SIZE(%rsp)
	restore_mcount_regs
SYM_INNER_LABEL(ftrace_caller_end, SYM_L_GLOBAL)
	jmp	ftrace_epilogue
SYM_FUNC_END(ftrace_caller);

SYM_FUNC_START(ftrace_epilogue)
#ifdef CONFIG_FUNCTION_GRAPH_TRACER
SYM_INNER_LABEL(ftrace_graph_call, SYM_L_GLOBAL)
	jmp	ftrace_stub
#endif
SYM_INNER_LABEL_ALIGN(ftrace_stub, SYM_L_WEAK)
	retq
SYM_FUNC_END(ftrace_epilogue)

SYM_FUNC_START(ftrace_regs_caller)
	pushfq
	save_mcount_regs 8
SYM_INNER_LABEL(ftrace_regs_caller_op_ptr, SYM_L_GLOBAL)
	movq	function_trace_op(%rip), %rdx
	movq	%r15, R15(%rsp)
	movq	%r14, R14(%rsp)
	movq	%r13, R13(%rsp)
	movq	%r12, R12(%rsp)
	movq	%r11, R11(%rsp)
	movq	%r10, R10(%rsp)
	movq	%rbx, RBX(%rsp)
	movq	MCOUNT_REG_SIZE(%rsp), %rcx
	movq	%rcx, EFLAGS(%rsp)
	movq	$__KERNEL_DS, %rcx
	movq	%rcx, SS(%rsp)
	movq	$__KERNEL_CS, %rcx
	movq	%rcx, CS(%rsp)
	leaq	MCOUNT_REG_SIZE+8*2(%rsp), %rcx
	movq	%rcx, RSP(%rsp)
	ENCODE_FRAME_POINTER
	leaq	(%rsp), %rcx
SYM_INNER_LABEL(ftrace_regs_call, SYM_L_GLOBAL)
	call	ftrace_stub
	movq	EFLAGS(%rsp), %rax
	movq	%rax, MCOUNT_REG_SIZE(%rsp)
	movq	RIP(%rsp), %rax
	movq	%rax, MCOUNT_REG_SIZE+8(%rsp)
	movq	R15(%rsp), %r15
	movq	R14(%rsp), %r14
	movq	R13(%rsp), %r13
	movq	R12(%rsp), %r12
	movq	R10(%rsp), %r10
	movq	RBX(%rsp), %rbx
	movq	ORIG_RAX(%rsp), %rax
	movq	%rax, MCOUNT_REG_SIZE-8(%rsp)
	movq	ORIG_RAX(%rsp), %rax
	cmpq	$0, %rax
	je	1f
	movq	MCOUNT_REG_SIZE(%rsp), %rdi
	movq	%rdi, MCOUNT_REG_SIZE-8(%rsp)
	movq	%rax, MCOUNT_REG_SIZE(%rsp)
	restore_mcount_regs 8
	popfq
SYM_INNER_LABEL(ftrace_regs_caller_ret, SYM_L_GLOBAL);
	UNWIND_HINT_RET_OFFSET
	jmp	ftrace_epilogue
1:	restore_mcount_regs
	popfq
SYM_INNER_LABEL(ftrace_regs_caller_end, SYM_L_GLOBAL)
	jmp	ftrace_epilogue
SYM_FUNC_END(ftrace_regs_caller)

#else /* !CONFIG_DYNAMIC_FTRACE */

SYM_FUNC_START(__fentry__)
	cmpq	$ftrace_stub, ftrace_trace_function
	jnz	trace
SYM_INNER_LABEL(ftrace_stub, SYM_L_GLOBAL)
	retq
trace:
	save_mcount_regs
	movq	ftrace_trace_function, %r8
	CALL_NOSPEC r8
	restore_mcount_regs
	retq
SYM_FUNC_END(__fentry__)
EXPORT_SYMBOL(__fentry__)
#endif /* CONFIG_DYNAMIC_FTRACE */

#ifdef CONFIG_FUNCTION_GRAPH_TRACER
SYM_FUNC_START(ftrace_graph_caller)
	save_mcount_regs
	leaq	MCOUNT_REG_SIZE+8(%rsp), %rsi
	movq	$0, %rdx
	call	prepare_ftrace_return
	restore_mcount_regs
	retq
SYM_FUNC_END(ftrace_graph_caller)

SYM_CODE_START(return_to_handler)
	UNWIND_HINT_UNDEFINED
	ANNOTATE_NOENDBR
	subq	$(FRAME_SIZE), %rsp
	movq	%rax, RAX(%rsp)
	movq	%rdx, RDX(%rsp)
	movq	%rbp, RBP(%rsp)
	movq	%rsp, %rdi
	call	ftrace_return_to_handler
	movq	%rax, %rdi
	movq	RDX(%rsp), %rdx
	movq	RAX(%rsp), %rax
	addq	$(FRAME_SIZE), %rsp
	ANNOTATE_INTRA_FUNCTION_CALL
	call	.Ldo_rop
	int3
.Ldo_rop:
	mov	%rdi, (%rsp)
	ALTERNATIVE __stringify(RET), __stringify(ANNOTATE_UNRET_SAFE; ret; int3), X86_FEATURE_CALL_DEPTH
SYM_CODE_END(return_to_handler)
#endif
