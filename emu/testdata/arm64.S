/* emu test program, arm64: host calls, loops, hint instructions, traps and
 * deliberate faults. Plain labels, so that GNU as alone builds it too. */
	.text
	.globl	guest_add
	.type	guest_add, %function
guest_add:				/* x0 = host_add(x0, x1) + 1 */
	bti	c
	paciasp
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
	bl	host_add
	add	x0, x0, #1
	ldp	x29, x30, [sp], #16
	autiasp
	ret
	.size	guest_add, . - guest_add

	.globl	guest_loop
	.type	guest_loop, %function
guest_loop:				/* calls host_count(i) for i = x0..1 */
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
	.size	guest_loop, . - guest_loop

	.globl	guest_stores
	.type	guest_stores, %function
guest_stores:				/* x0 = iterations: a store-heavy loop */
	mov	x1, sp
1:	str	x0, [x1, #-8]
	str	x0, [x1, #-16]
	str	x0, [x1, #-24]
	str	x0, [x1, #-32]
	subs	x0, x0, #1
	b.ne	1b
	ret
	.size	guest_stores, . - guest_stores

	.globl	bad_read
	.type	bad_read, %function
bad_read:
	mov	x1, #0x1000
	ldr	x0, [x1]
	ret
	.size	bad_read, . - bad_read

	.globl	bad_write
	.type	bad_write, %function
bad_write:
	mov	x1, #0x1000
	str	x0, [x1]
	ret
	.size	bad_write, . - bad_write

	.globl	text_write
	.type	text_write, %function
text_write:				/* a store into the read+exec text */
	adr	x1, text_write
	str	x0, [x1]
	ret
	.size	text_write, . - text_write

	.globl	bad_fetch
	.type	bad_fetch, %function
bad_fetch:				/* a branch outside guest memory */
	mov	x1, #0x1000
	br	x1
	.size	bad_fetch, . - bad_fetch

	.globl	bad_insn
	.type	bad_insn, %function
bad_insn:
	udf	#0
	.size	bad_insn, . - bad_insn

	.globl	trap
	.type	trap, %function
trap:
	brk	#0x800
	.size	trap, . - trap

	.globl	spin
	.type	spin, %function
spin:
1:	b	1b
	.size	spin, . - spin

	.globl	split_a
	.type	split_a, %function
split_a:				/* a branch straight into split_b */
	b	split_b
	.size	split_a, . - split_a

	.globl	split_b
	.type	split_b, %function
split_b:
	ret
	.size	split_b, . - split_b

	.globl	done
	.type	done, %function
done:
	nop
	.size	done, . - done
