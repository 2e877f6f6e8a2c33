/*
 * trampemu test file in the shape of the riscv64 mcount.S of v5.11-v6.2
 * (Debian's linux-source-6.1 6.1.192 has it), written for trampemu:
 * return_to_handler hands ftrace_return_to_handler the frame pointer and
 * keeps a 32-byte frame record block, but keeps a0 only, and the original
 * return address comes back through a1 ("jalr a1"): the upper half of a
 * 2*XLEN result is lost, a known kernel bug of those eras
 * (kernel/riscv64_bugs.go riscvRthA1Lost).
 */
#include <linux/linkage.h>
#include <asm/asm.h>

#define RET_BLOCK	32

	.text
SYM_FUNC_START(return_to_handler)
#ifdef HAVE_FUNCTION_GRAPH_FP_TEST
	mv	t6, s0
#endif
	addi	sp, sp, -RET_BLOCK
	sd	s0, 16(sp)
	sd	ra, 24(sp)
	sd	a0, 8(sp)
	addi	s0, sp, RET_BLOCK
#ifdef HAVE_FUNCTION_GRAPH_FP_TEST
	mv	a0, t6
#endif
	call	ftrace_return_to_handler
	mv	a1, a0
	ld	ra, 24(sp)
	ld	s0, 16(sp)
	ld	a0, 8(sp)
	addi	sp, sp, RET_BLOCK
	jalr	a1
SYM_FUNC_END(return_to_handler)
