/*
 * x86-64 ftrace_regs_caller (v5.11 .. v6.19), arch/x86/kernel/ftrace_64.S:
 * a full pt_regs (flags, segments, callee-saved registers), CS =
 * __KERNEL_CS so arch_ftrace_get_regs() returns it, and the direct-call
 * path: a non-zero ORIG_RAX (arch_ftrace_set_direct_caller) makes the
 * trampoline return into that address instead of the traced function.
 */
#include "mcount_regs.h"

SYM_FUNC_START(ftrace_regs_caller)
	pushfq					/* flags, before anything changes them */
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
	movq	MCOUNT_REG_SIZE(%rsp), %rcx	/* the pushed flags */
	movq	%rcx, EFLAGS(%rsp)
	movq	$__KERNEL_DS, %rcx
	movq	%rcx, SS(%rsp)
	movq	$__KERNEL_CS, %rcx
	movq	%rcx, CS(%rsp)
	leaq	MCOUNT_REG_SIZE+8*2(%rsp), %rcx	/* sp at the call site */
	movq	%rcx, RSP(%rsp)
	leaq	(%rsp), %rcx
	CALL_DEPTH_ACCOUNT
SYM_INNER_LABEL(ftrace_regs_call, SYM_L_GLOBAL)
	ANNOTATE_NOENDBR
	call	ftrace_stub
	movq	EFLAGS(%rsp), %rax		/* flags back over the pushed ones */
	movq	%rax, MCOUNT_REG_SIZE(%rsp)
	movq	RIP(%rsp), %rax			/* a callback may change RIP */
	movq	%rax, MCOUNT_REG_SIZE+8(%rsp)
	movq	R15(%rsp), %r15
	movq	R14(%rsp), %r14
	movq	R13(%rsp), %r13
	movq	R12(%rsp), %r12
	movq	R10(%rsp), %r10			/* r11 is not reloaded */
	movq	RBX(%rsp), %rbx
	movq	ORIG_RAX(%rsp), %rax
	movq	%rax, MCOUNT_REG_SIZE-8(%rsp)
	testq	%rax, %rax			/* direct caller set? */
SYM_INNER_LABEL(ftrace_regs_caller_jmp, SYM_L_GLOBAL)
	ANNOTATE_NOENDBR
	jnz	1f
	restore_mcount_regs
	popfq
SYM_INNER_LABEL(ftrace_regs_caller_end, SYM_L_GLOBAL)
	ANNOTATE_NOENDBR
	RET
1:	movq	MCOUNT_REG_SIZE(%rsp), %rdi	/* swap flags and the direct address */
	movq	%rdi, MCOUNT_REG_SIZE-8(%rsp)
	movq	%rax, MCOUNT_REG_SIZE(%rsp)
	restore_mcount_regs 8
	popfq
	UNWIND_HINT_FUNC
	RET					/* into the direct trampoline */
SYM_FUNC_END(ftrace_regs_caller)
/* as arch/x86/kernel/ftrace_64.S v5.12+ (v6.1): objtool skips it under
   CONFIG_FRAME_POINTER (its frame is not a standard one) */
STACK_FRAME_NON_STANDARD_FP(ftrace_regs_caller)
