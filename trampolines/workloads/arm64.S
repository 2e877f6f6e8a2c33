/*
 * arm64 workloads: traced functions with the call site the kernel builds
 * with -fpatchable-function-entry=2 (arch/arm64/Makefile, v5.5+): two NOPs
 * at the entry. At boot ftrace_init_nop makes the first "mov x9, x30" for
 * good (arch/arm64/kernel/ftrace.c), and the record (rec->ip,
 * ftrace_call_adjust) is the second: at rest a NOP, "bl ftrace_caller"
 * when traced (ftrace_make_call / ftrace_make_nop). Like the x86-64
 * workloads, which hold the NOP the kernel wrote over "call __fentry__",
 * these hold the booted state; __mcount_loc lists the records.
 *
 * CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS builds with
 * -fpatchable-function-entry=4,2 and 8-byte function alignment (v6.3+):
 * two more NOPs right before each traced function, the 8-byte literal that
 * ftrace_rec_update_ops points at the site's ops and ftrace_caller loads
 * (ftrace.ArchOps.CallOpsLiteral). Every traced function here has them
 * (OPS_LITERAL), 8-byte aligned, so one image serves every era. Functions
 * reached only through a redirect (klp_target_new) have neither.
 */
.macro OPS_LITERAL
	.balign	8
	nop
	nop
.endm

#ifndef TRAMPEMU_PG_SITE
.macro FENTRY
	mov	x9, x30			/* ftrace_init_nop's, for good */
999:	nop				/* bl ftrace_caller when traced */
	.pushsection __mcount_loc, "a"
	.quad	999b
	.popsection
.endm
#else
/*
 * The -pg call site of arm64 v4.19-v5.4 (TRAMPEMU_PG_SITE, set for an
 * entry of that era): gcc's PROFILE_HOOK (gcc/config/aarch64/aarch64.h)
 * emits "bl _mcount" with x0 = the incoming lr as an ordinary library call
 * after the prologue, so the frame record is built and the arguments are
 * kept across the call (gcc keeps them in callee-saved registers or the
 * frame; here the frame). ftrace_make_nop made the bl a NOP at boot,
 * ftrace_make_call makes it "bl ftrace_caller" (arch/arm64/kernel/ftrace.c
 * v5.0); rec->ip is the bl, 32 bytes in (36 after a "bti c";
 * ftrace.ArchOps.PgSiteOffsets). The frame is popped right after the
 * call: the body that follows is the patchable-entry one, and a hooked
 * return address comes back into x30 from the frame record, where the
 * graph entry put return_to_handler.
 */
.macro FENTRY
	stp	x29, x30, [sp, #-96]!
	mov	x29, sp
	stp	x0, x1, [sp, #16]
	stp	x2, x3, [sp, #32]
	stp	x4, x5, [sp, #48]
	stp	x6, x7, [sp, #64]
	str	x8, [sp, #80]
	mov	x0, x30			/* PROFILE_HOOK's argument */
999:	nop				/* bl _mcount; bl ftrace_caller when traced */
	.pushsection __mcount_loc, "a"
	.quad	999b
	.popsection
	ldp	x0, x1, [sp, #16]
	ldp	x2, x3, [sp, #32]
	ldp	x4, x5, [sp, #48]
	ldp	x6, x7, [sp, #64]
	ldr	x8, [sp, #80]
	ldp	x29, x30, [sp], #96
.endm
#endif

/* long add(long a, long b) */
	OPS_LITERAL
SYM_FUNC_START_NOALIGN(add)
	FENTRY
	add	x0, x0, x1
	ret
SYM_FUNC_END(add)

/* add behind a "bti c" (CONFIG_ARM64_BTI_KERNEL): "bti c; mov x9, x30;
   bl ftrace_caller", the record at +8 (arch/arm64/kernel/ftrace.c
   ftrace_call_adjust, v6.3+). The ops literal stays the 8 bytes before
   the function: ALIGN_DOWN(BL - 12, 8) = BL - 16 (ftrace_rec_update_ops) */
	OPS_LITERAL
SYM_FUNC_START_NOALIGN(add_bti)
	bti	c
	FENTRY
	add	x0, x0, x1
	ret
SYM_FUNC_END(add_bti)

/* long six(long a, ..., long f): six of the eight argument registers */
	OPS_LITERAL
SYM_FUNC_START_NOALIGN(six)
	FENTRY
	add	x0, x0, x1
	add	x0, x0, x2
	add	x0, x0, x3
	add	x0, x0, x4
	add	x0, x0, x5
	ret
SYM_FUNC_END(six)

/* __int128 ret128(long a, long b): x0 = a + b, x1 = a ^ b (AAPCS64: a
   128-bit result in x0:x1) */
	OPS_LITERAL
SYM_FUNC_START_NOALIGN(ret128)
	FENTRY
	eor	x2, x0, x1
	add	x0, x0, x1
	mov	x1, x2
	ret
SYM_FUNC_END(ret128)

/* long callee_saved(long x) = 55 * x, computed in x19-x28 (1x .. 10x) */
	OPS_LITERAL
SYM_FUNC_START_NOALIGN(callee_saved)
	FENTRY
	stp	x19, x20, [sp, #-80]!
	stp	x21, x22, [sp, #16]
	stp	x23, x24, [sp, #32]
	stp	x25, x26, [sp, #48]
	stp	x27, x28, [sp, #64]
	mov	x19, x0
	add	x20, x19, x0
	add	x21, x20, x0
	add	x22, x21, x0
	add	x23, x22, x0
	add	x24, x23, x0
	add	x25, x24, x0
	add	x26, x25, x0
	add	x27, x26, x0
	add	x28, x27, x0
	add	x0, x19, x20
	add	x0, x0, x21
	add	x0, x0, x22
	add	x0, x0, x23
	add	x0, x0, x24
	add	x0, x0, x25
	add	x0, x0, x26
	add	x0, x0, x27
	add	x0, x0, x28
	ldp	x27, x28, [sp, #64]
	ldp	x25, x26, [sp, #48]
	ldp	x23, x24, [sp, #32]
	ldp	x21, x22, [sp, #16]
	ldp	x19, x20, [sp], #80
	ret
SYM_FUNC_END(callee_saved)

/* unsigned long fib(unsigned long n): recursion with a frame record */
	OPS_LITERAL
SYM_FUNC_START_NOALIGN(fib)
	FENTRY
	cmp	x0, #2
	b.lo	1f
	stp	x29, x30, [sp, #-32]!
	mov	x29, sp
	stp	x19, x20, [sp, #16]
	mov	x19, x0
	sub	x0, x0, #1
	bl	fib
	mov	x20, x0
	sub	x0, x19, #2
	bl	fib
	add	x0, x0, x20
	ldp	x19, x20, [sp, #16]
	ldp	x29, x30, [sp], #32
1:	ret
SYM_FUNC_END(fib)

/* long tail(long a, long b) = add(a + 1, b): a tail call into a traced function */
	OPS_LITERAL
SYM_FUNC_START_NOALIGN(tail)
	FENTRY
	add	x0, x0, #1
	b	add
SYM_FUNC_END(tail)

/* unsigned long chain(unsigned long n) = n, n nested traced calls deep */
	OPS_LITERAL
SYM_FUNC_START_NOALIGN(chain)
	FENTRY
	cbz	x0, 1f
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
	sub	x0, x0, #1
	bl	chain
	add	x0, x0, #1
	ldp	x29, x30, [sp], #16
1:	ret
SYM_FUNC_END(chain)

/*
 * unsigned long fprobe_selftest_target(unsigned long v) = v / 3, and
 * fprobe_selftest_target2(v) = v / 3 + 1: the targets of the kernel's
 * fprobe KUnit test (lib/test_fprobe.c, div_factor = 3). x1 is volatile.
 */
	OPS_LITERAL
SYM_FUNC_START_NOALIGN(fprobe_selftest_target)
	FENTRY
	mov	x1, #3
	udiv	x0, x0, x1
	ret
SYM_FUNC_END(fprobe_selftest_target)

	OPS_LITERAL
SYM_FUNC_START_NOALIGN(fprobe_selftest_target2)
	FENTRY
	mov	x1, #3
	udiv	x0, x0, x1
	add	x0, x0, #1
	ret
SYM_FUNC_END(fprobe_selftest_target2)

/*
 * long klp_target(long a, long b) = a + b, and its live-patch replacement
 * klp_target_new(a, b) = a + b + 0x6b6c70 ("klp"): a callback in the
 * manner of klp_ftrace_handler (kernel/livepatch/patch.c, v5.11+) sets pc
 * in ftrace_regs to klp_target_new (ftrace_regs_set_instruction_pointer,
 * arch/arm64/include/asm/ftrace.h), and ftrace_caller's "ret x9" must go
 * there instead of into klp_target's body. Not traced itself.
 */
	OPS_LITERAL
SYM_FUNC_START_NOALIGN(klp_target)
	FENTRY
	add	x0, x0, x1
	ret
SYM_FUNC_END(klp_target)

SYM_FUNC_START(klp_target_new)
	add	x0, x0, x1
	mov	x9, #0x6c70
	movk	x9, #0x6b, lsl #16
	add	x0, x0, x9
	ret
SYM_FUNC_END(klp_target_new)

/*
 * long fei_target(long a, long b) = a + b: the target of an error-injection
 * kprobe (kernel/fail_function.c fei_kprobe_handler); on arm64
 * override_function_with_return sets pc = lr (arch/arm64/lib/error-inject.c),
 * so no landing pad is needed.
 */
	OPS_LITERAL
SYM_FUNC_START_NOALIGN(fei_target)
	FENTRY
	add	x0, x0, x1
	ret
SYM_FUNC_END(fei_target)
