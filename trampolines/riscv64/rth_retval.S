/*
 * riscv64 return_to_handler with struct fgraph_ret_regs (v6.5-v6.13,
 * "riscv: ftrace: Enable HAVE_FUNCTION_GRAPH_RETVAL", b97aec082b51;
 * arch/riscv/kernel/mcount.S), written for trampemu from the step list of
 * shared/reference/riscv64.md "return_to_handler" B: a 32-byte
 * fgraph_ret_regs {a1, a0, s0, ra} that is also a frame record (s0 at
 * s0 - 16, ra at s0 - 8 with s0 = the block's top), its address the
 * argument of ftrace_return_to_handler; the original return address comes
 * back in a0 and is jumped to with "jalr a2" (which writes ra: nothing
 * needs it after a return).
 */
	.text
SYM_FUNC_START(return_to_handler)
	addi	sp, sp, -4*SZREG
	REG_S	a1, 0*SZREG(sp)
	REG_S	a0, 1*SZREG(sp)
	REG_S	s0, 2*SZREG(sp)			/* the caller's s0, for the FP test */
	REG_S	ra, 3*SZREG(sp)
	addi	s0, sp, 4*SZREG
	mv	a0, sp
	call	ftrace_return_to_handler
	mv	a2, a0				/* the original return address */
	REG_L	ra, 3*SZREG(sp)
	REG_L	s0, 2*SZREG(sp)
	REG_L	a0, 1*SZREG(sp)
	REG_L	a1, 0*SZREG(sp)
	addi	sp, sp, 4*SZREG
	jalr	a2
SYM_FUNC_END(return_to_handler)
