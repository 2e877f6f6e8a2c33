/*
 * Input of asm/testdata/facts.txt (riscv64): one instruction for every
 * entry of asm's riscv64 facts table (riscv64_facts.go) and the forms the
 * ftrace trampolines use (REG_S/REG_L of SZREG words, the auipc/jalr call
 * site with t0 and with ra, la of a data word, jr t0, jalr a2, ret, the
 * CALL_OPS literal load at -16(t0)). go test ./asm -run TestFacts -update
 * assembles it with GNU as (-march=rv64ima_zicsr_zifencei -mabi=lp64
 * -mno-relax, as the kernel builds) and rewrites facts.txt;
 * TestDisassemblerMatchesObjdump checks its text.
 */
	.data
	.balign 8
facts_riscv64_data:
	.dword	0

	.text
SYM_CODE_START(facts_riscv64)
	nop
	auipc	t0, 0
	jalr	t0, 0(t0)
	auipc	ra, 0
	jalr	ra, 12(ra)
	call	ftrace_stub
	jal	ra, 1f
1:	jal	zero, 1f
1:	j	1f
1:	jr	t0
	jr	t1
	jalr	a2
	jalr	ra
	jalr	zero, 8(t0)
	beq	a0, a1, 1f
1:	bne	t1, zero, 1f
1:	bnez	t1, 1f
1:	beqz	a0, 1f
1:	blt	a0, a1, 1f
1:	bge	a0, a1, 1f
1:	bltu	a0, a1, 1f
1:	bgeu	a0, a1, 1f
1:	la	a1, facts_riscv64_data
	ld	a2, 0(a1)
	ld	t1, -16(t0)
	ld	ra, 0(a2)
	lw	a0, 4(sp)
	lwu	a0, 4(sp)
	lh	a0, 2(sp)
	lhu	a0, 2(sp)
	lb	a0, 1(sp)
	lbu	a0, 1(sp)
	REG_S	ra, 8(sp)
	REG_S	s0, 1*SZREG(sp)
	REG_L	s0, 0*SZREG(sp)
	sd	a0, -8(sp)
	sw	a0, 4(sp)
	sh	a0, 2(sp)
	sb	a0, 1(sp)
	addi	sp, sp, -112
	addi	sp, sp, 112
	addi	a0, t0, -8
	mv	a1, ra
	mv	t1, zero
	li	a0, 5
	li	t0, 0x12345
	lui	a0, 0x12345
	addiw	a0, a0, 1
	add	a0, a0, a1
	addw	a0, a0, a1
	sub	a0, a0, a1
	subw	a0, a0, a1
	andi	a0, a0, 7
	ori	a0, a0, 7
	xori	a0, a0, 7
	and	a0, a0, a1
	or	a0, a0, a1
	xor	a0, a0, a1
	slli	a0, a0, 3
	srli	a0, a0, 3
	srai	a0, a0, 3
	sll	a0, a0, a1
	srl	a0, a0, a1
	sra	a0, a0, a1
	slt	a0, a0, a1
	sltu	a0, a0, a1
	slti	a0, a0, 3
	sltiu	a0, a0, 3
	mul	a0, a0, a1
	divu	a0, a0, a1
	remu	a0, a0, a1
	csrr	a0, sstatus
	csrw	sepc, a0
	csrs	sstatus, a0
	csrc	sstatus, a0
	csrrwi	a0, sscratch, 1
	csrrsi	a0, sstatus, 2
	csrrci	a0, sstatus, 2
	fence
	fence.i
	ecall
	ebreak
	sret
	mret
	wfi
	ret
SYM_CODE_END(facts_riscv64)
