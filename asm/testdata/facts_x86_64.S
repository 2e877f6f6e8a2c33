/*
 * Input of asm/testdata/facts.txt (x86-64): one instruction for every
 * entry of asm's x86-64 facts table (x86_64_facts.go), with a memory
 * operand wherever the mnemonic has one, plus the operand forms the
 * trampolines use. go test ./asm -run TestFacts -update assembles it with GNU
 * as and rewrites facts.txt; TestDisassemblerMatchesObjdump checks its text.
 */
	.data
	.balign 8
facts_x86_data:
	.quad	0

	.text
SYM_FUNC_START(facts_x86)
	endbr64
	call	ftrace_stub
	call	*%rax
	call	*0x10(%rdi)
	ret
	jmp	1f
1:	jmp	*%rax
	jmp	*0x8(%rsp)
	ja	1f
	jae	1f
	jb	1f
	jbe	1f
	je	1f
	jg	1f
	jge	1f
	jl	1f
	jle	1f
	jne	1f
	jno	1f
	jnp	1f
	jns	1f
	jo	1f
	jp	1f
	js	1f
	jrcxz	1f
	jecxz	1f
1:	push	%rbp
	push	0x80(%rsp)
	push	$0x1
	pop	%rbp
	pop	0x78(%rsp)
	pushf
	pushfw
	popf
	popfw
	leave
	int3
	int	$0x80
	ud2
	hlt
	ud1	%eax, %eax
	ud1	0x10(%rax), %eax
	ud0	%eax, %eax
	lea	0x8(%rsp), %rax
	lea	(%rdi,%rsi,8), %rax
	nop
	nopl	0x0(%rax,%rax,1)
	mov	%rax, 0x50(%rsp)
	mov	0x50(%rsp), %rax
	mov	facts_x86_data(%rip), %rdx
	mov	%rsp, %rcx
	movq	$0, 0x78(%rsp)
	movl	$0x10, 0x88(%rsp)
	movb	%al, (%rdi)
	movzbl	(%rdi), %eax
	movsbq	0x1(%rdi), %rax
	movslq	0x4(%rdi), %rax
	movslq	%edi, %rax
	movq	%rax, %xmm0
	movq	0x8(%rsp), %xmm1
	movd	(%rdi), %xmm2
	movaps	%xmm0, (%rsp)
	movups	0x10(%rsp), %xmm1
	movdqa	%xmm2, 0x20(%rsp)
	movdqu	0x30(%rsp), %xmm3
	movbe	(%rdi), %rax
	cmova	(%rdi), %rax
	cmovae	(%rdi), %rax
	cmovb	(%rdi), %rax
	cmovbe	(%rdi), %rax
	cmove	(%rdi), %rax
	cmovg	(%rdi), %rax
	cmovge	(%rdi), %rax
	cmovl	(%rdi), %rax
	cmovle	(%rdi), %rax
	cmovne	(%rdi), %rax
	cmovno	(%rdi), %rax
	cmovnp	(%rdi), %rax
	cmovns	(%rdi), %rax
	cmovo	(%rdi), %rax
	cmovp	(%rdi), %rax
	cmovs	(%rdi), %rax
	cmove	%rdx, %rax
	sete	(%rdi)
	setne	%al
	cmp	%rax, 0x8(%rsp)
	cmpq	$0, facts_x86_data(%rip)
	test	%rax, %rax
	testb	$0x1, 0x4(%rdi)
	btq	$0x3, (%rdi)
	mulq	(%rdi)
	imul	0x8(%rdi), %rax
	imul	$0x10, %rax, %rdx
	divq	(%rdi)
	div	%rcx
	idivq	0x8(%rdi)
	add	%rax, 0x8(%rdi)
	add	0x8(%rdi), %rax
	addq	$0x10, %rsp
	sub	$0xa8, %rsp
	subq	$1, (%rdi)
	and	%eax, (%rdi)
	or	(%rdi), %rax
	xor	%eax, %eax
	xorq	$0x1, (%rdi)
	adc	%rax, (%rdi)
	sbb	(%rdi), %rax
	incq	(%rdi)
	inc	%eax
	decl	0x10(%rdi)
	dec	%rcx
	negq	(%rdi)
	notq	(%rdi)
	shlq	$0x2, (%rdi)
	shr	$0x3, %rax
	sarq	(%rdi)
	rolq	$0x4, (%rdi)
	rorq	$0x4, (%rdi)
	xadd	%rax, (%rdi)
	lock cmpxchg %rdx, (%rdi)
	btsq	$0x1, (%rdi)
	btrq	$0x1, (%rdi)
	btcq	$0x1, (%rdi)
	xchg	%rax, (%rdi)
	xchg	%rdx, %rax
	cli
	sti
	cld
	cltq
	cqto
	cltd
	cwtl
	bswap	%rax
	rep movsb
	mov	(%eax), %eax
SYM_FUNC_END(facts_x86)
