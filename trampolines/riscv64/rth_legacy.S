/*
 * riscv64 return_to_handler passing the frame pointer, <= v6.4
 * (arch/riscv/kernel/mcount.S; the "-" lines of "riscv: ftrace: Enable
 * HAVE_FUNCTION_GRAPH_RETVAL", Donglin Peng, v6.5, are this state at
 * index 30102aadc4d7; steps from shared/reference/riscv64.md
 * "return_to_handler" A), written for trampemu.
 *
 * The traced function returned here through ra. With
 * HAVE_FUNCTION_GRAPH_FP_TEST (FRAME_POINTER, arch/riscv/include/asm/
 * ftrace.h) s0 on return is handed to ftrace_return_to_handler, which
 * compares it with what the graph entry got (the caller's s0: v6.3
 * ftrace_caller passes s0 at ftrace_graph_call). The 32-byte block
 * holds a1 at 0, a0 at 8, s0 at 16 and ra at 24, and s0 is set to its top,
 * so the block is a frame record {s0, ra} at s0-16 for the unwinder while
 * C runs; the original return address comes back in a0 and is jumped to
 * through a2 (jalr writes ra: the caller sees ra = this code).
 *
 * RTH_LEGACY_NO_A1 is the older form (v5.15: potatogeek/kernel-a34x-
 * permissiver@080ecb64293f mcount.S, android-13 side): a1 is not kept,
 * and the jump goes through a1, so the upper half of a 128-bit result
 * (a0:a1) is lost.
 */
#define RTH_BLOCK	(4*SZREG)

	.text
SYM_FUNC_START(return_to_handler)
#ifdef HAVE_FUNCTION_GRAPH_FP_TEST
	mv	t6, s0				/* the frame pointer on return */
#endif
	addi	sp, sp, -RTH_BLOCK
#ifndef RTH_LEGACY_NO_A1
	REG_S	a1, 0*SZREG(sp)
#endif
	REG_S	a0, 1*SZREG(sp)
	REG_S	s0, 2*SZREG(sp)
	REG_S	ra, 3*SZREG(sp)
	addi	s0, sp, RTH_BLOCK		/* frame record at s0-16 */
#ifdef HAVE_FUNCTION_GRAPH_FP_TEST
	mv	a0, t6
#endif
	call	ftrace_return_to_handler
#ifndef RTH_LEGACY_NO_A1
	mv	a2, a0				/* the original return address */
	REG_L	a1, 0*SZREG(sp)
#else
	mv	a1, a0
#endif
	REG_L	a0, 1*SZREG(sp)
	REG_L	s0, 2*SZREG(sp)
	REG_L	ra, 3*SZREG(sp)
	addi	sp, sp, RTH_BLOCK
#ifndef RTH_LEGACY_NO_A1
	jalr	a2
#else
	jalr	a1
#endif
SYM_FUNC_END(return_to_handler)
