/*
 * The argument registers of the riscv64 WITH_ARGS entry (v6.11-v6.15,
 * arch/riscv/kernel/mcount-dyn.S SAVE_ABI_REGS / RESTORE_ABI_REGS; steps
 * from shared/reference/riscv64.md "E4 entry"), written for trampemu:
 * a0-a7 into and out of struct __arch_ftrace_regs's args[] (FREGS_A0..
 * FREGS_A7) at sp, which the caller has already moved down by
 * FREGS_SIZE_ON_STACK.
 */
	.macro	fregs_save_args
	REG_S	a0, FREGS_A0(sp)
	REG_S	a1, FREGS_A1(sp)
	REG_S	a2, FREGS_A2(sp)
	REG_S	a3, FREGS_A3(sp)
	REG_S	a4, FREGS_A4(sp)
	REG_S	a5, FREGS_A5(sp)
	REG_S	a6, FREGS_A6(sp)
	REG_S	a7, FREGS_A7(sp)
	.endm

	.macro	fregs_restore_args
	REG_L	a0, FREGS_A0(sp)
	REG_L	a1, FREGS_A1(sp)
	REG_L	a2, FREGS_A2(sp)
	REG_L	a3, FREGS_A3(sp)
	REG_L	a4, FREGS_A4(sp)
	REG_L	a5, FREGS_A5(sp)
	REG_L	a6, FREGS_A6(sp)
	REG_L	a7, FREGS_A7(sp)
	.endm
