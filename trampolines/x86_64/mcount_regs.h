/*
 * save_mcount_regs / restore_mcount_regs as arch/x86/kernel/ftrace_64.S has
 * them (v5.10..v6.19; the instruction list is in trampemu's reference
 * x86_64.md). Included by the entry variants of this folder.
 *
 * save: reserve pt_regs (plus two fake frames with CONFIG_FRAME_POINTER),
 * store the argument registers and rax, ORIG_RAX = 0, RBP, RIP = ip+5;
 * leaves rdi = ip (the call site) and rsi = parent for the callback.
 * restore: reload what save stored (callbacks may have edited it).
 */
.macro save_mcount_regs added=0
#ifdef CONFIG_FRAME_POINTER
	pushq	%rbp				/* the traced function's rbp */
	pushq	\added+8*2(%rsp)		/* fake frame: parent */
	pushq	%rbp
	movq	%rsp, %rbp
	pushq	\added+8*3(%rsp)		/* fake frame: ip+5 */
	pushq	%rbp
	movq	%rsp, %rbp
#endif
	subq	$(FRAME_SIZE), %rsp
	movq	%rax, RAX(%rsp)
	movq	%rcx, RCX(%rsp)
	movq	%rdx, RDX(%rsp)
	movq	%rsi, RSI(%rsp)
	movq	%rdi, RDI(%rsp)
	movq	%r8, R8(%rsp)
	movq	%r9, R9(%rsp)
	movq	$0, ORIG_RAX(%rsp)
#ifdef CONFIG_FRAME_POINTER
	movq	MCOUNT_REG_SIZE-8(%rsp), %rdx	/* the rbp pushed first */
#else
	movq	%rbp, %rdx
#endif
	movq	%rdx, RBP(%rsp)
	movq	MCOUNT_REG_SIZE+8+\added(%rsp), %rsi	/* parent */
	movq	MCOUNT_REG_SIZE+\added(%rsp), %rdi	/* ip + MCOUNT_INSN_SIZE */
	movq	%rdi, RIP(%rsp)
	subq	$MCOUNT_INSN_SIZE, %rdi			/* ip: the call site */
.endm

.macro restore_mcount_regs save=0
	movq	RBP(%rsp), %rbp
	movq	R9(%rsp), %r9
	movq	R8(%rsp), %r8
	movq	RDI(%rsp), %rdi
	movq	RSI(%rsp), %rsi
	movq	RDX(%rsp), %rdx
	movq	RCX(%rsp), %rcx
	movq	RAX(%rsp), %rax
	addq	$MCOUNT_REG_SIZE-\save, %rsp
.endm
