/* emu test program, arm64: host calls, loops, hint instructions, traps and
 * deliberate faults. */
	.text
SYM_FUNC_START(guest_add)				/* x0 = host_add(x0, x1) + 1 */
	bti	c
	paciasp
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
	bl	host_add
	add	x0, x0, #1
	ldp	x29, x30, [sp], #16
	autiasp
	ret
SYM_FUNC_END(guest_add)

SYM_FUNC_START(guest_loop)				/* calls host_count(i) for i = x0..1 */
	stp	x29, x30, [sp, #-32]!
	mov	x29, sp
	str	x19, [sp, #16]
	mov	x19, x0
1:	mov	x0, x19
	bl	host_count
	subs	x19, x19, #1
	b.ne	1b
	ldr	x19, [sp, #16]
	ldp	x29, x30, [sp], #32
	ret
SYM_FUNC_END(guest_loop)

SYM_FUNC_START(guest_stores)				/* x0 = iterations: a store-heavy loop */
	mov	x1, sp
1:	str	x0, [x1, #-8]
	str	x0, [x1, #-16]
	str	x0, [x1, #-24]
	str	x0, [x1, #-32]
	subs	x0, x0, #1
	b.ne	1b
	ret
SYM_FUNC_END(guest_stores)

SYM_FUNC_START(bad_read)
	mov	x1, #0x1000
	ldr	x0, [x1]
	ret
SYM_FUNC_END(bad_read)

SYM_FUNC_START(bad_write)
	mov	x1, #0x1000
	str	x0, [x1]
	ret
SYM_FUNC_END(bad_write)

SYM_FUNC_START(text_write)				/* a store into the read+exec text */
	adr	x1, text_write
	str	x0, [x1]
	ret
SYM_FUNC_END(text_write)

SYM_FUNC_START(bad_fetch)				/* a branch outside guest memory */
	mov	x1, #0x1000
	br	x1
SYM_FUNC_END(bad_fetch)

SYM_FUNC_START(bad_insn)
	udf	#0
SYM_FUNC_END(bad_insn)

SYM_FUNC_START(trap)
	brk	#0x800
SYM_FUNC_END(trap)

SYM_FUNC_START(spin)
1:	b	1b
SYM_FUNC_END(spin)

SYM_FUNC_START(split_a)				/* a branch straight into split_b */
	b	split_b
SYM_FUNC_END(split_a)

SYM_FUNC_START(split_b)
	ret
SYM_FUNC_END(split_b)

SYM_CODE_START(done)
	nop
SYM_CODE_END(done)
