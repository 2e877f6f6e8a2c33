/*
 * trampemu's native x86-64 runtime: linked with an entry and an exit
 * trampoline and the workloads, and run on the host CPU (package native)
 * to time the trampolines for real. The kernel functions the trampolines
 * call are minimal stand-ins in assembly, the same for every variant, so
 * differences between variants are the trampolines' own:
 *  - ftrace_ops_list_func(ip, parent_ip, op, fregs): returns, or, with
 *    native_graph_ops set (graph tracing through the ops list, v5.11+),
 *    does what ftrace_graph_func does for one graph user
 *    (arch/x86/kernel/ftrace.c, v6.14: parent = fregs->regs.sp; the
 *    return address there is swapped for return_to_handler);
 *  - prepare_ftrace_return(ip, parent, frame_pointer): the swap itself,
 *    also called from the v5.10 ftrace_graph_caller: the return address
 *    at parent is pushed onto the shadow array and replaced with
 *    native_return_hook (return_to_handler; arch_rethook_trampoline when
 *    the pairing's return path is rethook, package native's plan);
 *  - ftrace_return_to_handler(...): counts the return (native_returns)
 *    and pops the original return address from the shadow array into
 *    rax, whatever the exit ABI passes (fp, fgraph_ret_regs or fregs);
 *  - arch_rethook_trampoline_callback(regs): the same count and the same
 *    pop, then the two stores the x86-64 trampoline relies on
 *    (arch/x86/kernel/rethook.c, v5.18-v6.13): the popped address over
 *    the fake return address just above pt_regs
 *    (arch_rethook_fixup_return) and regs->flags into the ss slot, which
 *    the trampoline's popf loads. No rethook node, list or handler.
 * The shadow stack is a plain array of return addresses, with no meta words
 * or callbacks: the real function_graph_enter_regs (and
 * rethook_trampoline_handler) costs more.
 */
	.data
	.balign 8
SYM_DATA_START(function_trace_op)
	.quad	0
SYM_DATA_END(function_trace_op)
SYM_DATA_START(native_graph_ops)
	.quad	0
SYM_DATA_END(native_graph_ops)
SYM_DATA_START(native_result)
	.quad	0
SYM_DATA_END(native_result)
SYM_DATA_START(native_returns)		/* ftrace_return_to_handler calls */
	.quad	0
SYM_DATA_END(native_returns)
SYM_DATA_START(native_return_hook)	/* written by package native's plan */
	.quad	0
SYM_DATA_END(native_return_hook)
SYM_DATA_START(native_shadow_top)
	.quad	native_shadow
SYM_DATA_END(native_shadow_top)
SYM_DATA_START(native_shadow)
	.skip	8 * 1024
SYM_DATA_END(native_shadow)

	/* Page-aligned, so that this code and the workloads linked after it
	   sit at the same addresses whatever the trampolines' sizes: with
	   tracing off every pairing then runs identical code at identical
	   addresses, and a difference between pairings is not a layout
	   effect (package native's off-mode comparisons show it). */
	.text
	.balign	4096
SYM_FUNC_START_WEAK(ftrace_stub)
	RET
SYM_FUNC_END(ftrace_stub)

SYM_FUNC_START(ftrace_ops_list_func)
	cmpq	$0, native_graph_ops(%rip)
	jne	1f
	RET
1:	movq	RSP(%rcx), %rsi		/* parent: the return address slot */
	jmp	prepare_ftrace_return
SYM_FUNC_END(ftrace_ops_list_func)

SYM_FUNC_START(prepare_ftrace_return)
	movq	native_shadow_top(%rip), %rax
	movq	(%rsi), %rdx
	movq	%rdx, (%rax)
	addq	$8, %rax
	movq	%rax, native_shadow_top(%rip)
	movq	native_return_hook(%rip), %rdx
	movq	%rdx, (%rsi)
	RET
SYM_FUNC_END(prepare_ftrace_return)

SYM_FUNC_START(ftrace_return_to_handler)
	incq	native_returns(%rip)
	movq	native_shadow_top(%rip), %rax
	subq	$8, %rax
	movq	%rax, native_shadow_top(%rip)
	movq	(%rax), %rax
	RET
SYM_FUNC_END(ftrace_return_to_handler)

/* The first five instructions are ftrace_return_to_handler's, on purpose:
   the same work for both return paths (no call, which would add some). */
SYM_FUNC_START(arch_rethook_trampoline_callback)
	incq	native_returns(%rip)
	movq	native_shadow_top(%rip), %rax
	subq	$8, %rax
	movq	%rax, native_shadow_top(%rip)
	movq	(%rax), %rax
	movq	%rax, FRAME_SIZE(%rdi)	/* the real return address over the fake one */
	movq	EFLAGS(%rdi), %rdx
	movq	%rdx, SS(%rdi)		/* flags where the trampoline's popf finds them */
	RET
SYM_FUNC_END(arch_rethook_trampoline_callback)

/* native_loop(count, fn): fn(1, 2) count times; the last result is kept in
   native_result. Called from Go on the native stack (package native). */
SYM_FUNC_START(native_loop)
	pushq	%rbx
	pushq	%r12
	pushq	%rbp
	movq	%rdi, %rbx
	movq	%rsi, %r12
1:	movl	$1, %edi
	movl	$2, %esi
	call	*%r12
	decq	%rbx
	jnz	1b
	movq	%rax, native_result(%rip)
	popq	%rbp
	popq	%r12
	popq	%rbx
	RET
SYM_FUNC_END(native_loop)

/* native_callgrind(request): a valgrind client request with no arguments
   (valgrind.h, amd64-linux: the "special instruction preamble" of four
   rotations of %rdi, then xchgq %rbx,%rbx with %rax pointing at the six
   request words; the result would come back in %rdx). Package native asks
   callgrind (callgrind.h) to start instrumenting and to dump its counts
   after each pairing. On the bare CPU it does nothing: the rotations add
   up to 128 bits, and xchg of a register with itself changes nothing. */
SYM_FUNC_START(native_callgrind)
	subq	$56, %rsp
	movq	%rdi, (%rsp)
	movq	$0, 8(%rsp)
	movq	$0, 16(%rsp)
	movq	$0, 24(%rsp)
	movq	$0, 32(%rsp)
	movq	$0, 40(%rsp)
	movq	%rsp, %rax
	xorl	%edx, %edx
	rolq	$3, %rdi
	rolq	$13, %rdi
	rolq	$61, %rdi
	rolq	$51, %rdi
	xchgq	%rbx, %rbx
	addq	$56, %rsp
	RET
SYM_FUNC_END(native_callgrind)
