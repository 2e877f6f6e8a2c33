/* A return_to_handler in the manner of arch/riscv/kernel/mcount.S
   (v6.1), written for trampemu's wrong-arch test (riscv64 is modelled
   once branch riscv lands). */
SYM_FUNC_START(return_to_handler)
	addi	sp, sp, -32
	REG_S	s0, 0(sp)
	REG_S	ra, 8(sp)
	REG_S	a0, 16(sp)
	REG_S	a1, 24(sp)
	addi	s0, sp, 32
	mv	a0, s0
	call	ftrace_return_to_handler
	mv	a2, a0
	REG_L	a0, 16(sp)
	REG_L	a1, 24(sp)
	addi	sp, sp, 32
	jalr	a2
SYM_FUNC_END(return_to_handler)
