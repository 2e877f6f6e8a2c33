/*
 * x86-64 workloads: traced functions with a real fentry call site. At rest
 * the site is the 5-byte NOP the kernel writes over "call __fentry__"
 * (nopl 0x0(%rax,%rax,1)); tracing patches it to "call ftrace_caller" (or
 * ftrace_regs_caller). Every site is listed in __mcount_loc, as the kernel
 * build does (scripts/recordmcount / objtool --mcount).
 */
.macro FENTRY
999:	.byte	0x0f, 0x1f, 0x44, 0x00, 0x00
	.pushsection __mcount_loc, "a"
	.quad	999b
	.popsection
.endm

/* long add(long a, long b) */
SYM_FUNC_START(add)
	FENTRY
	leaq	(%rdi,%rsi), %rax
	RET
SYM_FUNC_END(add)

/* add behind an endbr64 (CONFIG_X86_KERNEL_IBT): the site is at +4 */
SYM_FUNC_START(add_ibt)
	endbr64
	FENTRY
	leaq	(%rdi,%rsi), %rax
	RET
SYM_FUNC_END(add_ibt)

/* long six(long a, long b, long c, long d, long e, long f): every argument register */
SYM_FUNC_START(six)
	FENTRY
	leaq	(%rdi,%rsi), %rax
	addq	%rdx, %rax
	addq	%rcx, %rax
	addq	%r8, %rax
	addq	%r9, %rax
	RET
SYM_FUNC_END(six)

/* __int128 ret128(long a, long b): rax = a + b, rdx = a ^ b */
SYM_FUNC_START(ret128)
	FENTRY
	leaq	(%rdi,%rsi), %rax
	movq	%rdi, %rdx
	xorq	%rsi, %rdx
	RET
SYM_FUNC_END(ret128)

/* long callee_saved(long x) = 15 * x, computed in rbx and r12-r15 */
SYM_FUNC_START(callee_saved)
	FENTRY
	pushq	%rbx
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	movq	%rdi, %rbx
	leaq	(%rbx,%rdi), %r12
	leaq	(%r12,%rdi), %r13
	leaq	(%r13,%rdi), %r14
	leaq	(%r14,%rdi), %r15
	leaq	(%rbx,%r12), %rax
	addq	%r13, %rax
	addq	%r14, %rax
	addq	%r15, %rax
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	RET
SYM_FUNC_END(callee_saved)

/* unsigned long fib(unsigned long n): recursion, every level traced */
SYM_FUNC_START(fib)
	FENTRY
	cmpq	$2, %rdi
	jb	1f
	pushq	%rbx
	pushq	%rdi
	decq	%rdi
	call	fib
	movq	%rax, %rbx
	popq	%rdi
	subq	$2, %rdi
	call	fib
	addq	%rbx, %rax
	popq	%rbx
	RET
1:	movq	%rdi, %rax
	RET
SYM_FUNC_END(fib)

/* long tail(long a, long b) = add(a + 1, b), a tail call into a traced function */
SYM_FUNC_START(tail)
	FENTRY
	incq	%rdi
	jmp	add
SYM_FUNC_END(tail)

/* unsigned long chain(unsigned long n) = n, n nested traced calls deep */
SYM_FUNC_START(chain)
	FENTRY
	testq	%rdi, %rdi
	jz	1f
	decq	%rdi
	call	chain
	incq	%rax
	RET
1:	xorl	%eax, %eax
	RET
SYM_FUNC_END(chain)

/*
 * u32 fprobe_selftest_target(u32 value) = value / 3, and
 * fprobe_selftest_target2(value) = value / 3 + 1: the targets of the
 * kernel's fprobe KUnit test (lib/test_fprobe.c, div_factor = 3), here on
 * unsigned longs. div clobbers rdx, which is volatile in a callee.
 */
SYM_FUNC_START(fprobe_selftest_target)
	FENTRY
	movq	%rdi, %rax
	xorl	%edx, %edx
	movl	$3, %ecx
	divq	%rcx
	RET
SYM_FUNC_END(fprobe_selftest_target)

SYM_FUNC_START(fprobe_selftest_target2)
	FENTRY
	movq	%rdi, %rax
	xorl	%edx, %edx
	movl	$3, %ecx
	divq	%rcx
	incq	%rax
	RET
SYM_FUNC_END(fprobe_selftest_target2)

/*
 * long klp_target(long a, long b) = a + b, and its live-patch replacement
 * klp_target_new(a, b) = a + b + 0x6b6c70 ("klp"): a callback in the
 * manner of klp_ftrace_handler (kernel/livepatch/patch.c, v5.11+) sets the
 * instruction pointer in ftrace_regs to klp_target_new, and the entry
 * trampoline must return there instead of into klp_target's body. The
 * replacement is not traced (no call site), like a patch module's function
 * reached through the redirect.
 */
SYM_FUNC_START(klp_target)
	FENTRY
	leaq	(%rdi,%rsi), %rax
	RET
SYM_FUNC_END(klp_target)

SYM_FUNC_START(klp_target_new)
	leaq	0x6b6c70(%rdi,%rsi), %rax
	RET
SYM_FUNC_END(klp_target_new)

/*
 * long fei_target(long a, long b) = a + b: the target of an error-injection
 * kprobe on ftrace (kernel/fail_function.c fei_kprobe_handler: set the
 * return value, override_function_with_return). just_return_func is the
 * x86-64 landing pad override_function_with_return points regs->ip at
 * (arch/x86/lib/error-inject.c): a bare return.
 */
SYM_FUNC_START(fei_target)
	FENTRY
	leaq	(%rdi,%rsi), %rax
	RET
SYM_FUNC_END(fei_target)

SYM_FUNC_START(just_return_func)
	RET
SYM_FUNC_END(just_return_func)
