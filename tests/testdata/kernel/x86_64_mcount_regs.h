/*
 * trampemu test file: the save/restore macros every x86-64 era file of this
 * folder includes, in the shape arch/x86/kernel/ftrace_64.S gives them
 * (.macro save_mcount_regs added=, CONFIG_FRAME_POINTER fake frames).
 * Written for trampemu from the instruction lists in its reference notes.
 */
#ifdef CONFIG_FRAME_POINTER
# define MCOUNT_FRAME_SIZE	(8+16*2)
#else
# define MCOUNT_FRAME_SIZE	0
#endif
#define MCOUNT_REG_SIZE		(FRAME_SIZE + MCOUNT_FRAME_SIZE)

.macro save_mcount_regs added=0
#ifdef CONFIG_FRAME_POINTER
	pushq	%rbp
	pushq	\added+8*2(%rsp)
	pushq	%rbp
	movq	%rsp, %rbp
	pushq	\added+8*3(%rsp)
	pushq	%rbp
	movq	%rsp, %rbp
#endif
	subq	$(MCOUNT_REG_SIZE - MCOUNT_FRAME_SIZE), %rsp
	movq	%rax, RAX(%rsp)
	movq	%rcx, RCX(%rsp)
	movq	%rdx, RDX(%rsp)
	movq	%rsi, RSI(%rsp)
	movq	%rdi, RDI(%rsp)
	movq	%r8, R8(%rsp)
	movq	%r9, R9(%rsp)
	movq	$0, ORIG_RAX(%rsp)
#ifdef CONFIG_FRAME_POINTER
	movq	MCOUNT_REG_SIZE-8(%rsp), %rdx
#else
	movq	%rbp, %rdx
#endif
	movq	%rdx, RBP(%rsp)
	movq	MCOUNT_REG_SIZE+8+\added(%rsp), %rsi
	movq	MCOUNT_REG_SIZE+\added(%rsp), %rdi
	movq	%rdi, RIP(%rsp)
	subq	$MCOUNT_INSN_SIZE, %rdi
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
