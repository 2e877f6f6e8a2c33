/* The fix of riscv64_rth_pt_regs_idx.S as 67a5ba8f742f made it (Pu Lehui,
   2025-03), written for trampemu: the block is a struct
   __arch_ftrace_regs (FREGS_SIZE_ON_STACK), ra, s0, a0 and a1 at their
   FREGS_* slots, s0 pointed at its top; the original return address
   comes back in a0 and is jumped to through a2. The stack error is gone,
   but s0-16 and s0-8 are the block's unwritten a7 slot and padding: no
   frame record for a walk from ftrace_return_to_handler (the v6.5-v6.13
   block was one). Must be caught as: backchain. riscv64_rth_fregs_record_ok.S
   adds the record. */
SYM_FUNC_START(return_to_handler)
	addi	sp, sp, -FREGS_SIZE_ON_STACK
	REG_S	ra, FREGS_RA(sp)
	REG_S	s0, FREGS_S0(sp)
	REG_S	a0, FREGS_A0(sp)
	REG_S	a1, FREGS_A1(sp)
	addi	s0, sp, FREGS_SIZE_ON_STACK
	mv	a0, sp
	call	ftrace_return_to_handler
	mv	a2, a0
	REG_L	ra, FREGS_RA(sp)
	REG_L	s0, FREGS_S0(sp)
	REG_L	a0, FREGS_A0(sp)
	REG_L	a1, FREGS_A1(sp)
	addi	sp, sp, FREGS_SIZE_ON_STACK
	jalr	a2
SYM_FUNC_END(return_to_handler)
