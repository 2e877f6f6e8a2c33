/* BROKEN on purpose: arm64 return_to_handler with a 72-byte block (x0-x7
   and fp, no pad), as the v7 of the fgraph_ret_regs series had it before
   Mark Rutland asked for the pad (shared/reference/arm64.md MR-RV): sp is
   not 16-byte aligned while the block is live and at the call into C
   (AAPCS64; the kernel keeps sp 16-byte aligned at all times; Unicorn does
   not fault on it). Balanced and otherwise correct. Must be caught as:
   stack. */
SYM_CODE_START(return_to_handler)
	sub	sp, sp, #72
	stp	x0, x1, [sp, #FGRET_REGS_X0]
	stp	x2, x3, [sp, #FGRET_REGS_X2]
	stp	x4, x5, [sp, #FGRET_REGS_X4]
	stp	x6, x7, [sp, #FGRET_REGS_X6]
	str	x29, [sp, #FGRET_REGS_FP]
	mov	x0, sp
	bl	ftrace_return_to_handler
	mov	x30, x0
	ldp	x0, x1, [sp, #FGRET_REGS_X0]
	ldp	x2, x3, [sp, #FGRET_REGS_X2]
	ldp	x4, x5, [sp, #FGRET_REGS_X4]
	ldp	x6, x7, [sp, #FGRET_REGS_X6]
	add	sp, sp, #72
	ret
SYM_CODE_END(return_to_handler)
