/* A correct riscv64 return_to_handler written from scratch (the
   v6.5-v6.13 shape: a struct fgraph_ret_regs {a1, a0, s0, ra} that is
   also the frame record {s0, ra} below the new s0, its address to
   ftrace_return_to_handler, on to the address it returns): must pass
   with no error finding. */
SYM_CODE_START(return_to_handler)
	addi	sp, sp, -4*SZREG
	REG_S	ra, 3*SZREG(sp)
	REG_S	s0, 2*SZREG(sp)
	REG_S	a0, 1*SZREG(sp)
	REG_S	a1, 0*SZREG(sp)
	addi	s0, sp, 4*SZREG
	mv	a0, sp
	call	ftrace_return_to_handler
	mv	t1, a0
	REG_L	a1, 0*SZREG(sp)
	REG_L	a0, 1*SZREG(sp)
	REG_L	s0, 2*SZREG(sp)
	REG_L	ra, 3*SZREG(sp)
	addi	sp, sp, 4*SZREG
	jr	t1
SYM_CODE_END(return_to_handler)
