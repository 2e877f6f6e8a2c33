/*
 * trampemu test file in the shape of the riscv64 mcount.S of v6.14
 * (written for trampemu): ftrace_stub, and return_to_handler after
 * a3ed4157b7d8 ("fgraph: Replace fgraph_ret_regs with ftrace_regs"),
 * whose 80-byte block keeps ra, s0, a0 and a1 at their pt_regs indices:
 * a0 and a1 land at and above the entry sp, and the block is no struct
 * __arch_ftrace_regs. riscv64_v6.14_fix.patch makes the change of
 * 67a5ba8f742f (Pu Lehui, 2025-03, 6.14-stable) on it.
 */
#include <linux/linkage.h>
#include <asm/asm.h>
#include <asm/asm-offsets.h>
#include <asm/ftrace.h>

#define RET_BLOCK	80

	.text

	.macro	push_ret_state
	addi	sp, sp, -RET_BLOCK
	REG_S	ra, 1*SZREG(sp)
	REG_S	s0, 8*SZREG(sp)
	REG_S	a0, 10*SZREG(sp)
	REG_S	a1, 11*SZREG(sp)
	addi	s0, sp, RET_BLOCK
	.endm

	.macro	pop_ret_state
	REG_L	ra, 1*SZREG(sp)
	REG_L	s0, 8*SZREG(sp)
	REG_L	a0, 10*SZREG(sp)
	REG_L	a1, 11*SZREG(sp)
	addi	sp, sp, RET_BLOCK
	.endm

SYM_FUNC_START(ftrace_stub)
	ret
SYM_FUNC_END(ftrace_stub)

#ifdef CONFIG_FUNCTION_GRAPH_TRACER
SYM_FUNC_START(return_to_handler)
	push_ret_state
	mv	a0, sp				/* the block, as struct ftrace_regs */
	call	ftrace_return_to_handler
	mv	a2, a0				/* the original return address */
	pop_ret_state
	jalr	a2
SYM_FUNC_END(return_to_handler)
#endif
