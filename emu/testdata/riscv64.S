/* emu test program, riscv64: host calls, loops, traps and deliberate
 * faults (S-mode, satp bare). */
	.text
SYM_FUNC_START(guest_add)				/* a0 = host_add(a0, a1) + 1 */
	addi	sp, sp, -16
	sd	ra, 8(sp)
	sd	s0, 0(sp)
	addi	s0, sp, 16
	call	host_add
	addi	a0, a0, 1
	ld	ra, 8(sp)
	ld	s0, 0(sp)
	addi	sp, sp, 16
	ret
SYM_FUNC_END(guest_add)

SYM_FUNC_START(guest_loop)				/* calls host_count(i) for i = a0..1 */
	addi	sp, sp, -32
	sd	ra, 24(sp)
	sd	s0, 16(sp)
	sd	s1, 8(sp)
	addi	s0, sp, 32
	mv	s1, a0
1:	mv	a0, s1
	call	host_count
	addi	s1, s1, -1
	bnez	s1, 1b
	ld	s1, 8(sp)
	ld	s0, 16(sp)
	ld	ra, 24(sp)
	addi	sp, sp, 32
	ret
SYM_FUNC_END(guest_loop)

SYM_FUNC_START(guest_stores)				/* a0 = iterations: a store-heavy loop */
	mv	a1, sp
1:	sd	a0, -8(a1)
	sd	a0, -16(a1)
	sd	a0, -24(a1)
	sd	a0, -32(a1)
	addi	a0, a0, -1
	bnez	a0, 1b
	ret
SYM_FUNC_END(guest_stores)

SYM_FUNC_START(bad_read)
	li	a1, 0x1000
	ld	a0, 0(a1)
	ret
SYM_FUNC_END(bad_read)

SYM_FUNC_START(bad_write)
	li	a1, 0x1000
	sd	a0, 0(a1)
	ret
SYM_FUNC_END(bad_write)

SYM_FUNC_START(text_write)				/* a store into the text */
	auipc	a1, 0
	sd	a0, 0(a1)
	ret
SYM_FUNC_END(text_write)

SYM_FUNC_START(bad_fetch)				/* a jump outside guest memory */
	li	a1, 0x1000
	jr	a1
SYM_FUNC_END(bad_fetch)

SYM_FUNC_START(bad_insn)
	unimp
SYM_FUNC_END(bad_insn)

SYM_FUNC_START(trap)
	ebreak
SYM_FUNC_END(trap)

SYM_FUNC_START(spin)
1:	j	1b
SYM_FUNC_END(spin)

SYM_FUNC_START(split_a)				/* a jump straight into split_b */
	j	split_b
SYM_FUNC_END(split_a)

SYM_FUNC_START(split_b)
	ret
SYM_FUNC_END(split_b)

SYM_CODE_START(done)
	nop
SYM_CODE_END(done)
