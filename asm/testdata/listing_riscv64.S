/*
 * Golden-listing input for package asm (riscv64): a small ftrace_caller-like
 * trampoline in kernel style. It uses the prelude's linkage macros and
 * REG_S/REG_L, the asm-offsets names of struct __arch_ftrace_regs, la of
 * a data word, a call to a host function (ftrace_stub) and jr t0.
 */
	.data
	.balign 8
SYM_DATA_START(listing_op)
	.dword	0x1122334455667788
SYM_DATA_END(listing_op)

	.text
SYM_FUNC_START(listing_caller)
	mv	t4, sp
	addi	sp, sp, -FREGS_SIZE_ON_STACK
	REG_S	t0, FREGS_EPC(sp)
	REG_S	ra, FREGS_RA(sp)
	REG_S	t4, FREGS_SP(sp)
	REG_S	a0, FREGS_A0(sp)
	REG_S	a1, FREGS_A1(sp)
	addi	a0, t0, -MCOUNT_INSN_SIZE
	la	a1, listing_op
	REG_L	a2, 0(a1)
	mv	a1, ra
	mv	a3, sp
SYM_INNER_LABEL(listing_call, SYM_L_GLOBAL)
	call	ftrace_stub
	beqz	a0, 1f
	REG_L	t1, -16(t0)
	jalr	t1
1:	REG_L	t0, FREGS_EPC(sp)
	REG_L	ra, FREGS_RA(sp)
	REG_L	a0, FREGS_A0(sp)
	REG_L	a1, FREGS_A1(sp)
	addi	sp, sp, FREGS_SIZE_ON_STACK
	jr	t0
SYM_FUNC_END(listing_caller)
