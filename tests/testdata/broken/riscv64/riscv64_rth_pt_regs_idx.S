/* BROKEN on purpose, the riscv64 return_to_handler of v6.14 (after
   a3ed4157b7d8 "fgraph: Replace fgraph_ret_regs with ftrace_regs", fixed
   by 67a5ba8f742f "riscv: fgraph: Fix stack layout to match
   __arch_ftrace_regs argument of ftrace_return_to_handler", Pu Lehui,
   2025-03, in 6.14-stable), written for trampemu: an 80-byte block whose
   slots are pt_regs indices (ra at 1*SZREG, s0 at 8*SZREG, a0 at
   10*SZREG, a1 at 11*SZREG), so a0 and a1 land at and above the entry
   sp, in the caller's frame, and the block is no struct ftrace_regs for
   ftrace_return_to_handler ("Bad frame pointer" with an fprobe %return).
   Must be caught as: stack (and wrong-value). Its fixed twin is
   riscv64_rth_fregs_ok.S. */
#define RTH_BLOCK	80

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
