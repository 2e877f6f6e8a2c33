/* riscv64_rth_fregs_fix.S with a frame record (written for trampemu):
   the struct __arch_ftrace_regs block as 67a5ba8f742f fills it, and above
   it the record {s0, ra} that s0 points past, as the v6.5-v6.13 block had
   at s0-16 and s0-8. It must pass with no error finding. */
#define RTH_FRAME	(FREGS_SIZE_ON_STACK + 16)

SYM_FUNC_START(return_to_handler)
	addi	sp, sp, -RTH_FRAME
	REG_S	ra, FREGS_RA(sp)
	REG_S	s0, FREGS_S0(sp)
	REG_S	a0, FREGS_A0(sp)
	REG_S	a1, FREGS_A1(sp)
	REG_S	s0, FREGS_SIZE_ON_STACK(sp)		/* the record's fp */
	REG_S	ra, (FREGS_SIZE_ON_STACK + 8)(sp)	/* and ra */
	addi	s0, sp, RTH_FRAME
	mv	a0, sp
	call	ftrace_return_to_handler
	mv	a2, a0
	REG_L	ra, FREGS_RA(sp)
	REG_L	s0, FREGS_S0(sp)
	REG_L	a0, FREGS_A0(sp)
	REG_L	a1, FREGS_A1(sp)
	addi	sp, sp, RTH_FRAME
	jalr	a2
SYM_FUNC_END(return_to_handler)
