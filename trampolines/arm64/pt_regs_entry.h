/*
 * The pt_regs frame of the arm64 DYNAMIC_FTRACE_WITH_REGS entry
 * (v5.5-v6.1, arch/arm64/kernel/entry-ftrace.S; steps from
 * shared/reference/arm64.md "WITH_REGS entry", sources E510, E518, E61),
 * written for trampemu. The call site has run "mov x9, x30; bl <entry>":
 * x9 is the traced function's return address, x30 the instruction after
 * the BL, sp and x29 are the traced function's caller's. The frame is
 * PT_REGS_SIZE (S_FRAME_SIZE in v5.10) plus 16 bytes for the callsite's
 * frame record, so sp stays 16-byte aligned.
 *
 * regs[9] gets x9 (the parent) only because x8 and x9 go in one stp;
 * S_PSTATE, orig_x0 and what follows are never written (E61).
 */
#ifndef PT_REGS_SIZE
#define PT_REGS_SIZE S_FRAME_SIZE	/* the v5.10 asm-offsets name */
#endif

	.macro	pt_regs_entry, allregs=0
	sub	sp, sp, #(PT_REGS_SIZE + 16)

	/* arguments, x8, and x9 in the same pair */
	stp	x0, x1, [sp, #S_X0]
	stp	x2, x3, [sp, #S_X2]
	stp	x4, x5, [sp, #S_X4]
	stp	x6, x7, [sp, #S_X6]
	stp	x8, x9, [sp, #S_X8]

	.if \allregs == 1
	/* ftrace_regs_caller: every other general register */
	stp	x10, x11, [sp, #S_X10]
	stp	x12, x13, [sp, #S_X12]
	stp	x14, x15, [sp, #S_X14]
	stp	x16, x17, [sp, #S_X16]
	stp	x18, x19, [sp, #S_X18]
	stp	x20, x21, [sp, #S_X20]
	stp	x22, x23, [sp, #S_X22]
	stp	x24, x25, [sp, #S_X24]
	stp	x26, x27, [sp, #S_X26]
	stp	x28, x29, [sp, #S_X28]
	.else
	/* ftrace_caller: of the callee-saved registers only the frame pointer */
	str	x29, [sp, #S_FP]
	.endif

	/* lr = the parent, sp = the callsite's sp: S_LR and S_SP are adjacent */
	add	x10, sp, #(PT_REGS_SIZE + 16)
	stp	x9, x10, [sp, #S_LR]

	/* pc = where the traced function continues */
	str	x30, [sp, #S_PC]

	/* frame record of the traced function, above pt_regs ... */
	stp	x29, x9, [sp, #PT_REGS_SIZE]
	add	x29, sp, #PT_REGS_SIZE

	/* ... and the entry code's own, inside pt_regs (stackframe) */
	stp	x29, x30, [sp, #S_STACKFRAME]
	add	x29, sp, #S_STACKFRAME
	.endm

	/* ftrace_common's tail: x0-x8, fp, lr back; continue at pc */
	.macro	pt_regs_return
	ldp	x0, x1, [sp, #S_X0]
	ldp	x2, x3, [sp, #S_X2]
	ldp	x4, x5, [sp, #S_X4]
	ldp	x6, x7, [sp, #S_X6]
	ldr	x8, [sp, #S_X8]

	ldr	x29, [sp, #S_FP]
	ldr	x30, [sp, #S_LR]
	ldr	x9, [sp, #S_PC]

	add	sp, sp, #(PT_REGS_SIZE + 16)
	ret	x9
	.endm
