/*
 * riscv64 return_to_handler after "riscv: fgraph: Fix stack layout to
 * match __arch_ftrace_regs argument of ftrace_return_to_handler"
 * (67a5ba8f742f, Pu Lehui, 2025-03, Fixes a3ed4157b7d8, in 6.14-stable;
 * arch/riscv/kernel/mcount.S of linux-riscv/linux@0481092a5bec), written
 * for trampemu from the step list of shared/reference/riscv64.md
 * "return_to_handler" D: a struct __arch_ftrace_regs block
 * (FREGS_SIZE_ON_STACK) with ra, s0, a0 and a1 at their FREGS_* slots,
 * s0 = the block's top, its address the argument of
 * ftrace_return_to_handler.
 */
	.text
SYM_FUNC_START(return_to_handler)
	addi	sp, sp, -FREGS_SIZE_ON_STACK
	REG_S	ra, FREGS_RA(sp)
	REG_S	s0, FREGS_S0(sp)		/* the caller's s0, for the FP test */
	REG_S	a0, FREGS_A0(sp)
	REG_S	a1, FREGS_A1(sp)
	addi	s0, sp, FREGS_SIZE_ON_STACK
	mv	a0, sp
	call	ftrace_return_to_handler
	mv	a2, a0				/* the original return address */
	REG_L	ra, FREGS_RA(sp)
	REG_L	s0, FREGS_S0(sp)
	REG_L	a0, FREGS_A0(sp)
	REG_L	a1, FREGS_A1(sp)
	addi	sp, sp, FREGS_SIZE_ON_STACK
	jalr	a2
SYM_FUNC_END(return_to_handler)
