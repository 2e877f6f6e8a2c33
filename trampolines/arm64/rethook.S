/*
 * arm64 arch_rethook_trampoline (arch/arm64/kernel/probes/
 * kprobes_trampoline.S v5.19+, with save_all_base_regs /
 * restore_all_base_regs of the same file), written for trampemu from its
 * steps: the traced function has returned here through lr, which
 * arch_rethook_prepare pointed at the trampoline (arch/arm64/kernel/
 * rethook.c: node->ret_addr = regs[30], node->frame = regs[29]).
 *   - a whole pt_regs below sp: x0-x29, lr and the sp before it, pc = 0 and
 *     a pstate made of nzcv | daif | CurrentEL | SPSel;
 *   - x29 = &regs->regs[29], a frame record {x29, lr} for unwinders;
 *   - x0 = arch_rethook_trampoline_callback(regs), the real return
 *     address, into lr; nzcv back from pstate; every register back; ret.
 * Twins (Variant.Bug): RETHOOK_DROP_X19 never saves or reloads x19,
 * RETHOOK_SKIP_CALLBACK never calls the callback, RETHOOK_UNBALANCED
 * releases 16 bytes too few.
 */
/* arch/arm64/include/uapi/asm/ptrace.h */
#define PSR_V_BIT	0x10000000
#define PSR_C_BIT	0x20000000
#define PSR_Z_BIT	0x40000000
#define PSR_N_BIT	0x80000000

	.text
SYM_CODE_START(arch_rethook_trampoline)
	sub	sp, sp, #PT_REGS_SIZE
	stp	x0, x1, [sp, #S_X0]
	stp	x2, x3, [sp, #S_X2]
	stp	x4, x5, [sp, #S_X4]
	stp	x6, x7, [sp, #S_X6]
	stp	x8, x9, [sp, #S_X8]
	stp	x10, x11, [sp, #S_X10]
	stp	x12, x13, [sp, #S_X12]
	stp	x14, x15, [sp, #S_X14]
	stp	x16, x17, [sp, #S_X16]
#ifndef RETHOOK_DROP_X19
	stp	x18, x19, [sp, #S_X18]
#else
	str	x18, [sp, #S_X18]
#endif
	stp	x20, x21, [sp, #S_X20]
	stp	x22, x23, [sp, #S_X22]
	stp	x24, x25, [sp, #S_X24]
	stp	x26, x27, [sp, #S_X26]
	stp	x28, x29, [sp, #S_X28]
	add	x0, sp, #PT_REGS_SIZE
	stp	lr, x0, [sp, #S_LR]
	/* Construct a useful saved PSTATE */
	mrs	x0, nzcv
	mrs	x1, daif
	orr	x0, x0, x1
	mrs	x1, CurrentEL
	orr	x0, x0, x1
	mrs	x1, SPSel
	orr	x0, x0, x1
	stp	xzr, x0, [sp, #S_PC]
	add	x29, sp, #S_FP			/* frame record {x29, lr} in pt_regs */
	mov	x0, sp
#ifndef RETHOOK_SKIP_CALLBACK
	bl	arch_rethook_trampoline_callback
#else
	ldr	x0, [sp, #S_LR]
#endif
	mov	lr, x0				/* the real return address */
	ldr	x0, [sp, #S_PSTATE]
	and	x0, x0, #(PSR_N_BIT | PSR_Z_BIT | PSR_C_BIT | PSR_V_BIT)
	msr	nzcv, x0
	ldp	x0, x1, [sp, #S_X0]
	ldp	x2, x3, [sp, #S_X2]
	ldp	x4, x5, [sp, #S_X4]
	ldp	x6, x7, [sp, #S_X6]
	ldp	x8, x9, [sp, #S_X8]
	ldp	x10, x11, [sp, #S_X10]
	ldp	x12, x13, [sp, #S_X12]
	ldp	x14, x15, [sp, #S_X14]
	ldp	x16, x17, [sp, #S_X16]
#ifndef RETHOOK_DROP_X19
	ldp	x18, x19, [sp, #S_X18]
#else
	ldr	x18, [sp, #S_X18]
#endif
	ldp	x20, x21, [sp, #S_X20]
	ldp	x22, x23, [sp, #S_X22]
	ldp	x24, x25, [sp, #S_X24]
	ldp	x26, x27, [sp, #S_X26]
	ldp	x28, x29, [sp, #S_X28]
#ifndef RETHOOK_UNBALANCED
	add	sp, sp, #PT_REGS_SIZE
#else
	add	sp, sp, #(PT_REGS_SIZE - 16)
#endif
	ret
SYM_CODE_END(arch_rethook_trampoline)
