/*
 * riscv64 return_to_handler as v6.14 released it, after "function_graph:
 * Replace fgraph_ret_regs with ftrace_regs" (a3ed4157b7d8; the riscv hunk
 * of torvalds/linux@0410c6121529 arch/riscv/kernel/mcount.S), written for
 * trampemu from the step list of shared/reference/riscv64.md
 * "return_to_handler" C: an 80-byte block (ABI_SIZE_ON_STACK) whose slots
 * are pt_regs indices (ra at 1*SZREG, s0 at 8*SZREG, a0 at 10*SZREG, a1
 * at 11*SZREG), handed to ftrace_return_to_handler as a struct
 * ftrace_regs: a0 and a1 land at and above the entry sp, in the caller's
 * frame, and the FREGS_A0/FREGS_S0 slots the C side reads are never
 * written ("Bad frame pointer" with an fprobe %return). Fixed by
 * 67a5ba8f742f (rth_fixed.S).
 */
#define RTH_BLOCK	80		/* ABI_SIZE_ON_STACK */
	.text
SYM_FUNC_START(return_to_handler)
	addi	sp, sp, -RTH_BLOCK
	REG_S	ra, 1*SZREG(sp)
	REG_S	s0, 8*SZREG(sp)
	REG_S	a0, 10*SZREG(sp)
	REG_S	a1, 11*SZREG(sp)
	addi	s0, sp, RTH_BLOCK
	mv	a0, sp
	call	ftrace_return_to_handler
	mv	a2, a0
	REG_L	ra, 1*SZREG(sp)
	REG_L	s0, 8*SZREG(sp)
	REG_L	a0, 10*SZREG(sp)
	REG_L	a1, 11*SZREG(sp)
	addi	sp, sp, RTH_BLOCK
	jalr	a2
SYM_FUNC_END(return_to_handler)
