/*
 * x86-64 arch_rethook_trampoline (arch/x86/kernel/rethook.c v5.18-v6.13,
 * the asm block, in the form after "x86,rethook: Fix
 * arch_rethook_trampoline() to generate a complete pt_regs", Mar 2022;
 * SAVE_REGS_STRING / RESTORE_REGS_STRING of arch/x86/kernel/kprobes/
 * common.h), written for trampemu from its steps: the traced function has
 * returned here (rsp = R, the sp after its ret).
 *   - a fake return address (the trampoline itself) at R-8, so an unwinder
 *     knows this is a rethook frame; the C callback later writes the real
 *     return address over it (arch_rethook_fixup_return);
 *   - a whole pt_regs below it: ss, sp (fixed up in C), flags, three
 *     unwritten words (cs, ip, orig_ax: filled in C) and the 15 registers;
 *   - arch_rethook_trampoline_callback(regs), which copies flags into the
 *     ss slot, so that popf can be the last instruction before ret
 *     (any add after popf would change the flags).
 * Twins (Variant.Bug): RETHOOK_DROP_RBX never saves or reloads rbx (the
 * C side may clobber it), RETHOOK_SKIP_CALLBACK never calls the callback,
 * RETHOOK_UNBALANCED releases one word too few.
 */
SYM_CODE_START(arch_rethook_trampoline)
	ANNOTATE_NOENDBR
	/*
	 * The kernel's block declares the symbol a function (.type @function),
	 * which objtool enters with a function's initial state; a code symbol
	 * says so with a hint of its own.
	 */
	UNWIND_HINT_FUNC
	pushq	$arch_rethook_trampoline	/* fake return address */
	UNWIND_HINT_FUNC
	pushq	$__KERNEL_DS			/* ss */
	pushq	%rsp				/* sp, fixed in C */
	pushfq
	subq	$24, %rsp			/* orig_ax, ip, cs: written in C */
	pushq	%rdi
	pushq	%rsi
	pushq	%rdx
	pushq	%rcx
	pushq	%rax
	pushq	%r8
	pushq	%r9
	pushq	%r10
	pushq	%r11
#ifndef RETHOOK_DROP_RBX
	pushq	%rbx
#else
	subq	$8, %rsp
#endif
	pushq	%rbp
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	movq	%rsp, %rdi
#ifndef RETHOOK_SKIP_CALLBACK
	call	arch_rethook_trampoline_callback
#endif
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbp
#ifndef RETHOOK_DROP_RBX
	popq	%rbx
#else
	addq	$8, %rsp
#endif
	popq	%r11
	popq	%r10
	popq	%r9
	popq	%r8
	popq	%rax
	popq	%rcx
	popq	%rdx
	popq	%rsi
	popq	%rdi
	addq	$24, %rsp			/* orig_ax, ip, cs */
#ifndef RETHOOK_UNBALANCED
	addq	$16, %rsp			/* flags, sp: to the ss slot, which holds the flags */
#else
	addq	$8, %rsp
#endif
	popfq
	RET					/* to the real return address over the fake one */
SYM_CODE_END(arch_rethook_trampoline)
