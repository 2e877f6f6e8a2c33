/*
 * Input of asm/testdata/facts.txt (arm64): one instruction for every entry
 * of asm's arm64 facts table (arm64_facts.go) and the forms the ftrace
 * trampolines use (stp/ldp with and without writeback, ldr_l, the CALL_OPS
 * literal load, ret x9, bti c, paciasp). go test ./asm -run TestFacts
 * -update assembles it with GNU as and rewrites facts.txt;
 * TestDisassemblerMatchesObjdump checks its text.
 */
	.data
	.balign 8
facts_arm64_data:
	.quad	0

	.text
SYM_CODE_START(facts_arm64)
	bti	c
	paciasp
	autiasp
	nop
	hint	#0x7f
	mov	x9, x30
	bl	ftrace_stub
	blr	x4
	b	1f
1:	b.ne	1f
	b.eq	1f
	cbz	x1, 1f
	cbnz	w17, 1f
	tbz	x2, #3, 1f
	tbnz	w2, #31, 1f
1:	br	x17
	ret
	ret	x9
	brk	#0x800
	hlt	#0x1
	udf	#0
	eret
	ldr	x0, [sp]
	ldr	x1, [sp, #16]
	ldr	w1, [x2, #4]
	ldr	x11, [x11, #-16]
	ldr	x2, [x0, #8]!
	ldr	x3, [x0], #8
	ldr	x4, [x0, x1]
	ldr	x4, [x0, x1, lsl #3]
	ldr	w4, [x0, w1, uxtw #2]
	ldr	q0, [sp, #32]
	ldr	d1, [x2]
	ldr	x5, 1f
	ldr_l	x2, facts_arm64_data
	ldur	x1, [x29, #-8]
	ldrb	w1, [x0, #1]
	ldurb	w1, [x0, #-1]
	ldrh	w1, [x0, #2]
	ldurh	w1, [x0, #-2]
	ldrsb	x1, [x0]
	ldrsh	x1, [x0]
	ldrsw	x1, [x0, #4]
	ldar	x1, [x0]
	ldxr	x15, [x14]
	ldaxr	w15, [x14]
	str	x0, [sp]
	str	xzr, [sp, #72]
	str	w1, [x2, #4]
	str	x30, [sp, #-16]!
	str	x30, [sp], #16
	str_l	x1, facts_arm64_data, x2
	stur	x1, [x29, #-8]
	strb	w1, [x0, #1]
	sturb	w1, [x0, #-1]
	strh	w1, [x0, #2]
	sturh	w1, [x0, #-2]
	stlr	x1, [x0]
	stxr	w16, x15, [x14]
	stlxr	w16, w15, [x14]
	stp	x0, x1, [sp]
	stp	x29, x30, [sp, #-16]!
	stp	x29, x9, [sp, #128]
	stp	w0, w1, [x2, #8]
	stp	q0, q1, [sp, #-32]!
	ldp	x0, x1, [sp]
	ldp	x29, x30, [sp], #16
	ldp	x2, x3, [sp, #16]
	prfm	pldl1keep, [x0]
	mov	x29, sp
	mov	x10, sp
	mov	x0, #0x1
	movz	x0, #0x1, lsl #16
	movz	x0, #0x0, lsl #16
	movk	x0, #0x1, lsl #32
	movn	x0, #0x1, lsl #16
	movn	x0, #0x0, lsl #16
	add	x29, sp, #0x80
	adds	x0, x1, x2
	sub	sp, sp, #0x90
	sub	x0, x30, #0x4
	subs	w13, w13, #0x1
	cmp	x0, x1
	cmn	x0, #0x1
	tst	x0, #0x7
	neg	x0, x1
	and	x0, x1, #0xff
	ands	x0, x1, x2
	orr	x0, x1, x2
	eor	x0, x1, x2
	bic	x11, x30, #0x7
	bic	x0, x1, x2
	mvn	x0, x1
	lsl	x0, x1, #3
	lsr	x0, x1, #3
	asr	x0, x1, #3
	ubfx	x0, x1, #4, #8
	sbfx	x0, x1, #4, #8
	ubfiz	x0, x1, #4, #8
	mul	x0, x1, x2
	madd	x0, x1, x2, x3
	udiv	x0, x1, x2
	sdiv	x0, x1, x2
	csel	x0, x1, x2, eq
	cset	x0, ne
	csinc	x0, x1, x2, lt
	adr	x0, 1f
	adrp	x0, facts_arm64_data
	mrs	x12, sp_el0
	mrs	x14, tpidr_el1
	msr	daifset, #0x2
	dmb	ish
	dsb	sy
	isb
	ldpsw	x0, x1, [x2]
1:	.quad	0
SYM_CODE_END(facts_arm64)
