/*
 * riscv64 workloads: traced functions with the call site the kernel builds
 * with -fpatchable-function-entry=4 (2-byte NOPs) or =2 without the C
 * extension (arch/riscv/Makefile, v6.3+, 6724a76cff85): 8 bytes of NOPs
 * at the entry, the record (rec->ip = the function, ftrace_call_adjust is
 * the identity) that ftrace_make_call turns into "auipc t0, hi; jalr t0,
 * lo(t0)" and ftrace_make_nop back (arch/riscv/kernel/ftrace.c).
 * __mcount_loc lists the records; the image holds the booted (NOP) state.
 *
 * CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS (v6.16) builds with
 * -fpatchable-function-entry=8,4 and 8-byte function alignment
 * (FUNCTION_ALIGNMENT_8B): 8 bytes right before each traced function hold
 * the site's ops pointer (ftrace.ArchOps.CallOpsLiteral), loaded as
 * -16(t0). Every traced function here has them (OPS_LITERAL), so one
 * image serves every era. klp_target_new, reached only through a
 * redirect, has neither.
 */
.macro OPS_LITERAL
	.balign	8
	nop
	nop
.endm

/*
 * TRAMPEMU_RA_SITE: v5.11-v6.2 built with -fpatchable-function-entry=8
 * (=4 without C, afc76b8b8011): 16 bytes, which ftrace_make_call turns into
 * "sd ra, -8(sp); auipc ra, hi; jalr ra, lo(ra); ld ra, -8(sp)"
 * (arch/riscv/kernel/ftrace.c v5.15, ftrace.SiteForm "ra").
 */
.macro FENTRY
#ifdef TRAMPEMU_RA_SITE
999:	nop				/* sd ra, -8(sp) when traced */
	nop				/* auipc ra, hi */
	nop				/* jalr ra, lo(ra) */
	nop				/* ld ra, -8(sp) */
#else
999:	nop				/* auipc t0, hi when traced */
	nop				/* jalr t0, lo(t0) */
#endif
	.pushsection __mcount_loc, "a"
	.dword	999b
	.popsection
.endm

/* long add(long a, long b) */
	OPS_LITERAL
SYM_FUNC_START_NOALIGN(add)
	FENTRY
	add	a0, a0, a1
	ret
SYM_FUNC_END(add)

/* long six(long a, ..., long f): six of the eight argument registers */
	OPS_LITERAL
SYM_FUNC_START_NOALIGN(six)
	FENTRY
	add	a0, a0, a1
	add	a0, a0, a2
	add	a0, a0, a3
	add	a0, a0, a4
	add	a0, a0, a5
	ret
SYM_FUNC_END(six)

/* __int128 ret128(long a, long b): a0 = a + b, a1 = a ^ b (psABI: a
   2*XLEN-bit result in a0:a1) */
	OPS_LITERAL
SYM_FUNC_START_NOALIGN(ret128)
	FENTRY
	xor	a2, a0, a1
	add	a0, a0, a1
	mv	a1, a2
	ret
SYM_FUNC_END(ret128)

/* long callee_saved(long x) = 55 * x, computed in s1-s10 (1x .. 10x) */
	OPS_LITERAL
SYM_FUNC_START_NOALIGN(callee_saved)
	FENTRY
	addi	sp, sp, -80
	sd	s1, 0(sp)
	sd	s2, 8(sp)
	sd	s3, 16(sp)
	sd	s4, 24(sp)
	sd	s5, 32(sp)
	sd	s6, 40(sp)
	sd	s7, 48(sp)
	sd	s8, 56(sp)
	sd	s9, 64(sp)
	sd	s10, 72(sp)
	mv	s1, a0
	add	s2, s1, a0
	add	s3, s2, a0
	add	s4, s3, a0
	add	s5, s4, a0
	add	s6, s5, a0
	add	s7, s6, a0
	add	s8, s7, a0
	add	s9, s8, a0
	add	s10, s9, a0
	add	a0, s1, s2
	add	a0, a0, s3
	add	a0, a0, s4
	add	a0, a0, s5
	add	a0, a0, s6
	add	a0, a0, s7
	add	a0, a0, s8
	add	a0, a0, s9
	add	a0, a0, s10
	ld	s10, 72(sp)
	ld	s9, 64(sp)
	ld	s8, 56(sp)
	ld	s7, 48(sp)
	ld	s6, 40(sp)
	ld	s5, 32(sp)
	ld	s4, 24(sp)
	ld	s3, 16(sp)
	ld	s2, 8(sp)
	ld	s1, 0(sp)
	addi	sp, sp, 80
	ret
SYM_FUNC_END(callee_saved)

/* unsigned long fib(unsigned long n): recursion with the frame record gcc
   builds with -fno-omit-frame-pointer (ra at s0 - 8, the caller's s0 at
   s0 - 16, s0 = the entry sp) */
	OPS_LITERAL
SYM_FUNC_START_NOALIGN(fib)
	FENTRY
	li	t0, 2
	bltu	a0, t0, 1f
	addi	sp, sp, -32
	sd	ra, 24(sp)
	sd	s0, 16(sp)
	addi	s0, sp, 32
	sd	s1, 8(sp)
	sd	s2, 0(sp)
	mv	s1, a0
	addi	a0, a0, -1
	call	fib
	mv	s2, a0
	addi	a0, s1, -2
	call	fib
	add	a0, a0, s2
	ld	s2, 0(sp)
	ld	s1, 8(sp)
	ld	s0, 16(sp)
	ld	ra, 24(sp)
	addi	sp, sp, 32
1:	ret
SYM_FUNC_END(fib)

/* long tail(long a, long b) = add(a + 1, b): a tail call into a traced function */
	OPS_LITERAL
SYM_FUNC_START_NOALIGN(tail)
	FENTRY
	addi	a0, a0, 1
	tail	add
SYM_FUNC_END(tail)

/* unsigned long chain(unsigned long n) = n, n nested traced calls deep */
	OPS_LITERAL
SYM_FUNC_START_NOALIGN(chain)
	FENTRY
	beqz	a0, 1f
	addi	sp, sp, -16
	sd	ra, 8(sp)
	sd	s0, 0(sp)
	addi	s0, sp, 16
	addi	a0, a0, -1
	call	chain
	addi	a0, a0, 1
	ld	s0, 0(sp)
	ld	ra, 8(sp)
	addi	sp, sp, 16
1:	ret
SYM_FUNC_END(chain)

/*
 * unsigned long fprobe_selftest_target(unsigned long v) = v / 3, and
 * fprobe_selftest_target2(v) = v / 3 + 1: the targets of the kernel's
 * fprobe KUnit test (lib/test_fprobe.c, div_factor = 3). a1 is volatile.
 */
	OPS_LITERAL
SYM_FUNC_START_NOALIGN(fprobe_selftest_target)
	FENTRY
	li	a1, 3
	divu	a0, a0, a1
	ret
SYM_FUNC_END(fprobe_selftest_target)

	OPS_LITERAL
SYM_FUNC_START_NOALIGN(fprobe_selftest_target2)
	FENTRY
	li	a1, 3
	divu	a0, a0, a1
	addi	a0, a0, 1
	ret
SYM_FUNC_END(fprobe_selftest_target2)

/*
 * long klp_target(long a, long b) = a + b, and its live-patch replacement
 * klp_target_new(a, b) = a + b + 0x6b6c70 ("klp"): a callback in the
 * manner of klp_ftrace_handler (kernel/livepatch/patch.c, v5.11+) sets epc
 * in ftrace_regs to klp_target_new (ftrace_regs_set_instruction_pointer,
 * arch/riscv/include/asm/ftrace.h), and ftrace_caller's "jr t0" must go
 * there instead of into klp_target's body. Not traced itself.
 */
	OPS_LITERAL
SYM_FUNC_START_NOALIGN(klp_target)
	FENTRY
	add	a0, a0, a1
	ret
SYM_FUNC_END(klp_target)

SYM_FUNC_START(klp_target_new)
	add	a0, a0, a1
	li	t1, 0x6b6c70
	add	a0, a0, t1
	ret
SYM_FUNC_END(klp_target_new)

/*
 * long fei_target(long a, long b) = a + b: the target of an error-injection
 * kprobe (kernel/fail_function.c fei_kprobe_handler); on riscv
 * override_function_with_return sets epc = ra
 * (arch/riscv/lib/error-inject.c), so no landing pad is needed.
 */
	OPS_LITERAL
SYM_FUNC_START_NOALIGN(fei_target)
	FENTRY
	add	a0, a0, a1
	ret
SYM_FUNC_END(fei_target)
