/*
 * s390x arch_rethook_trampoline (arch/s390/kernel/mcount.S v6.2+,
 * CONFIG_RETHOOK; kernel-patches/bpf@0185f0029d15), written for trampemu
 * from its steps: the traced function has returned here through r14,
 * which arch_rethook_prepare pointed at the trampoline
 * (arch/s390/kernel/rethook.c: node->ret_addr = gprs[14], node->frame =
 * gprs[15]).
 *   - r14 into the caller frame's r14 slot; a frame with a whole pt_regs
 *     below sp: r0-r14, the old sp as back chain and gprs[15], the psw
 *     (mask from epsw, address = the trampoline);
 *   - arch_rethook_trampoline_callback(regs) sets psw.addr and gprs[14] to
 *     the real return address;
 *   - the psw copied into the old frame's empty area, every register back
 *     (r15 too), lpswe: to the real return address with the saved mask.
 * Twins (Variant.Bug): RETHOOK_DROP_R7 reloads r0-r6 and r8-r15 but not
 * r7 (which holds the old sp afterwards), RETHOOK_SKIP_CALLBACK never calls
 * the callback, RETHOOK_UNBALANCED returns with r15 8 bytes off.
 */
SYM_CODE_START(arch_rethook_trampoline)
	stg	%r14,(__SF_GPRS+8*8)(%r15)
	lay	%r15,-STACK_FRAME_SIZE_PTREGS(%r15)
	stmg	%r0,%r14,STACK_PTREGS_GPRS(%r15)
	/* the original stack pointer in the back chain and in pt_regs */
	lay	%r7,STACK_FRAME_SIZE_PTREGS(%r15)
	stg	%r7,__SF_BACKCHAIN(%r15)
	stg	%r7,STACK_PTREGS_GPRS+(15*8)(%r15)
	/* the full psw */
	epsw	%r2,%r3
	risbg	%r3,%r2,0,31,32
	stg	%r3,STACK_PTREGS_PSW(%r15)
	larl	%r1,arch_rethook_trampoline
	stg	%r1,STACK_PTREGS_PSW+8(%r15)
	lay	%r2,STACK_PTREGS(%r15)
#ifndef RETHOOK_SKIP_CALLBACK
	brasl	%r14,arch_rethook_trampoline_callback
#endif
	mvc	__SF_EMPTY(16,%r7),STACK_PTREGS_PSW(%r15)
#ifdef RETHOOK_UNBALANCED
	aghi	%r7,8
	stg	%r7,STACK_PTREGS_GPRS+(15*8)(%r15)
	aghi	%r7,-8
#endif
#ifndef RETHOOK_DROP_R7
	lmg	%r0,%r15,STACK_PTREGS_GPRS(%r15)
#else
	lmg	%r0,%r6,STACK_PTREGS_GPRS(%r15)
	lmg	%r8,%r15,STACK_PTREGS_GPRS+(8*8)(%r15)
#endif
	lpswe	__SF_EMPTY(%r15)
SYM_CODE_END(arch_rethook_trampoline)
