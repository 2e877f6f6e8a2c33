/*
 * trampemu test file mixing eras (written for trampemu): the v6.14-style
 * entry of x86_64_v6.14.S (graph through ftrace_graph_func) with the
 * v5.15-style return_to_handler of x86_64_v5.15.S (the frame pointer):
 * on x86-64 that combination is an era of its own, v5.16-v6.4.
 */
#include <linux/export.h>
#include <linux/cfi_types.h>
#include <linux/linkage.h>
#include <asm/asm-offsets.h>
#include <asm/ptrace.h>
#include <asm/ftrace.h>
#include <asm/nospec-branch.h>
#include <asm/unwind_hints.h>
#include <asm/frame.h>
#include "x86_64_mcount_regs.h"

	.code64
	.section .text, "ax"

#ifdef CONFIG_DYNAMIC_FTRACE

SYM_FUNC_START(__fentry__)
	CALL_DEPTH_ACCOUNT
	RET
SYM_FUNC_END(__fentry__)
EXPORT_SYMBOL(__fentry__)

SYM_FUNC_START(ftrace_caller)
	save_mcount_regs
	CALL_DEPTH_ACCOUNT
	leaq	MCOUNT_REG_SIZE+8(%rsp), %rcx
	movq	%rcx, RSP(%rsp)
SYM_INNER_LABEL(ftrace_caller_op_ptr, SYM_L_GLOBAL)
	ANNOTATE_NOENDBR
	movq	function_trace_op(%rip), %rdx
	leaq	(%rsp), %rcx
	movq	$0, CS(%rsp)
	CALL_DEPTH_ACCOUNT
SYM_INNER_LABEL(ftrace_call, SYM_L_GLOBAL)
	ANNOTATE_NOENDBR
	call	ftrace_stub
	movq	RIP(%rsp), %rax
	movq	%rax, MCOUNT_REG_SIZE(%rsp)
	restore_mcount_regs
SYM_INNER_LABEL(ftrace_caller_end, SYM_L_GLOBAL)
	ANNOTATE_NOENDBR
	RET
SYM_FUNC_END(ftrace_caller);
STACK_FRAME_NON_STANDARD_FP(ftrace_caller)

SYM_FUNC_START(ftrace_regs_caller)
	pushfq
	save_mcount_regs 8
	CALL_DEPTH_ACCOUNT
SYM_INNER_LABEL(ftrace_regs_caller_op_ptr, SYM_L_GLOBAL)
	ANNOTATE_NOENDBR
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
	CALL_DEPTH_ACCOUNT
SYM_INNER_LABEL(ftrace_regs_call, SYM_L_GLOBAL)
	ANNOTATE_NOENDBR
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
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
	testq	%rax, %rax
SYM_INNER_LABEL(ftrace_regs_caller_jmp, SYM_L_GLOBAL)
	ANNOTATE_NOENDBR
	jnz	1f
#endif
	restore_mcount_regs
	popfq
SYM_INNER_LABEL(ftrace_regs_caller_end, SYM_L_GLOBAL)
	ANNOTATE_NOENDBR
	RET
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
1:	movq	MCOUNT_REG_SIZE(%rsp), %rdi
	movq	%rdi, MCOUNT_REG_SIZE-8(%rsp)
	movq	%rax, MCOUNT_REG_SIZE(%rsp)
	restore_mcount_regs 8
	popfq
	UNWIND_HINT_FUNC
	ALTERNATIVE __stringify(RET), __stringify(ANNOTATE_UNRET_SAFE; ret; int3), X86_FEATURE_CALL_DEPTH
#endif
SYM_FUNC_END(ftrace_regs_caller)
STACK_FRAME_NON_STANDARD_FP(ftrace_regs_caller)

SYM_FUNC_START(ftrace_stub_direct_tramp)
	CALL_DEPTH_ACCOUNT
	RET
SYM_FUNC_END(ftrace_stub_direct_tramp)

#else /* !CONFIG_DYNAMIC_FTRACE */

SYM_FUNC_START(__fentry__)
	CALL_DEPTH_ACCOUNT
	cmpq	$ftrace_stub, ftrace_trace_function
	jnz	trace
	RET
trace:
	save_mcount_regs
	movq	ftrace_trace_function, %r8
	CALL_NOSPEC r8
	restore_mcount_regs
	jmp	ftrace_stub
SYM_FUNC_END(__fentry__)
EXPORT_SYMBOL(__fentry__)
#endif /* CONFIG_DYNAMIC_FTRACE */

SYM_FUNC_START(ftrace_stub)
	RET
SYM_FUNC_END(ftrace_stub)

#ifdef CONFIG_FUNCTION_GRAPH_TRACER
SYM_CODE_START(return_to_handler)
	UNWIND_HINT_EMPTY
	subq	$24, %rsp
	movq	%rax, (%rsp)
	movq	%rdx, 8(%rsp)
	movq	%rbp, %rdi
	call	ftrace_return_to_handler
	movq	%rax, %rdi
	movq	8(%rsp), %rdx
	movq	(%rsp), %rax
	addq	$24, %rsp
	JMP_NOSPEC rdi
SYM_CODE_END(return_to_handler)
#endif
