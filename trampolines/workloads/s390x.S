/*
 * s390x workloads: traced functions with the real call site at offset 0:
 * "brcl 0,0" (6 bytes) at rest, patched to "brasl %r0,ftrace_caller" when
 * tracing is on (arch/s390/kernel/ftrace.c). Kernel code is built with
 * -mbackchain -mpacked-stack: callers provide 160 bytes above r15, r6-r15
 * are saved at 72..151 of that area and the back chain is at 152 of each
 * frame. Every site is listed in __mcount_loc.
 */
.macro FENTRY
999:	brcl	0,0
	.pushsection __mcount_loc, "a"
	.quad	999b
	.popsection
.endm

/* long add(long a, long b) */
SYM_FUNC_START(add)
	FENTRY
	agr	%r2,%r3
	br	%r14
SYM_FUNC_END(add)

/* long six(long a, ..., long f): five register arguments, f on the stack */
SYM_FUNC_START(six)
	FENTRY
	agr	%r2,%r3
	agr	%r2,%r4
	agr	%r2,%r5
	agr	%r2,%r6
	ag	%r2,STACK_FRAME_OVERHEAD(%r15)
	br	%r14
SYM_FUNC_END(six)

/*
 * struct { long sum, xor; } ret16(long a, long b): a 16-byte struct (like
 * __int128) comes back through memory: the caller passes the buffer in r2.
 */
SYM_FUNC_START(ret16)
	FENTRY
	la	%r1,0(%r3,%r4)
	stg	%r1,0(%r2)
	lgr	%r1,%r3
	xgr	%r1,%r4
	stg	%r1,8(%r2)
	br	%r14
SYM_FUNC_END(ret16)

/* long callee_saved(long x) = 36 * x, computed in r6-r13 */
SYM_FUNC_START(callee_saved)
	FENTRY
	stmg	%r6,%r13,__SF_GPRS(%r15)
	lgr	%r6,%r2
	la	%r7,0(%r6,%r2)
	la	%r8,0(%r7,%r2)
	la	%r9,0(%r8,%r2)
	la	%r10,0(%r9,%r2)
	la	%r11,0(%r10,%r2)
	la	%r12,0(%r11,%r2)
	la	%r13,0(%r12,%r2)
	lgr	%r2,%r6
	agr	%r2,%r7
	agr	%r2,%r8
	agr	%r2,%r9
	agr	%r2,%r10
	agr	%r2,%r11
	agr	%r2,%r12
	agr	%r2,%r13
	lmg	%r6,%r13,__SF_GPRS(%r15)
	br	%r14
SYM_FUNC_END(callee_saved)

/* unsigned long fib(unsigned long n): recursion with a packed-stack frame */
SYM_FUNC_START(fib)
	FENTRY
	clgfi	%r2,2
	jl	1f
	stmg	%r11,%r15,__SF_GPRS+5*8(%r15)
	lgr	%r1,%r15
	aghi	%r15,-STACK_FRAME_OVERHEAD
	stg	%r1,__SF_BACKCHAIN(%r15)
	lgr	%r12,%r2
	aghi	%r2,-1
	brasl	%r14,fib
	lgr	%r11,%r2
	lgr	%r2,%r12
	aghi	%r2,-2
	brasl	%r14,fib
	agr	%r2,%r11
	lmg	%r11,%r15,STACK_FRAME_OVERHEAD+__SF_GPRS+5*8(%r15)
1:	br	%r14
SYM_FUNC_END(fib)

/* long tail(long a, long b) = add(a + 1, b): a tail call (jg) into a traced function */
SYM_FUNC_START(tail)
	FENTRY
	aghi	%r2,1
	jg	add
SYM_FUNC_END(tail)

/* unsigned long chain(unsigned long n) = n, n nested traced calls deep */
SYM_FUNC_START(chain)
	FENTRY
	ltgr	%r2,%r2
	jz	1f
	stmg	%r14,%r15,__SF_GPRS+8*8(%r15)
	lgr	%r1,%r15
	aghi	%r15,-STACK_FRAME_OVERHEAD
	stg	%r1,__SF_BACKCHAIN(%r15)
	aghi	%r2,-1
	brasl	%r14,chain
	aghi	%r2,1
	lmg	%r14,%r15,STACK_FRAME_OVERHEAD+__SF_GPRS+8*8(%r15)
1:	br	%r14
SYM_FUNC_END(chain)

/*
 * unsigned long fprobe_selftest_target(unsigned long v) = v / 3, and
 * fprobe_selftest_target2(v) = v / 3 + 1: the targets of the kernel's fprobe
 * KUnit test (lib/test_fprobe.c, div_factor = 3). dlgr divides the 128-bit
 * r0:r1 (high:low) by r3: remainder in r0, quotient in r1. r0, r1 and r3 are
 * volatile; r0 is free again once the call site (brasl %r0) has run.
 */
SYM_FUNC_START(fprobe_selftest_target)
	FENTRY
	lghi	%r0,0
	lgr	%r1,%r2
	lghi	%r3,3
	dlgr	%r0,%r3
	lgr	%r2,%r1
	br	%r14
SYM_FUNC_END(fprobe_selftest_target)

SYM_FUNC_START(fprobe_selftest_target2)
	FENTRY
	lghi	%r0,0
	lgr	%r1,%r2
	lghi	%r3,3
	dlgr	%r0,%r3
	lgr	%r2,%r1
	aghi	%r2,1
	br	%r14
SYM_FUNC_END(fprobe_selftest_target2)

/*
 * long klp_target(long a, long b) = a + b, and its live-patch replacement
 * klp_target_new(a, b) = a + b + 0x6b6c70 ("klp"): a callback in the
 * manner of klp_ftrace_handler (kernel/livepatch/patch.c, v5.11+) sets
 * psw.addr in ftrace_regs to klp_target_new, and the entry trampoline must
 * branch there instead of into klp_target's body. Not traced itself.
 */
SYM_FUNC_START(klp_target)
	FENTRY
	agr	%r2,%r3
	br	%r14
SYM_FUNC_END(klp_target)

SYM_FUNC_START(klp_target_new)
	agr	%r2,%r3
	agfi	%r2,0x6b6c70
	br	%r14
SYM_FUNC_END(klp_target_new)

/*
 * long fei_target(long a, long b) = a + b: the target of an error-injection
 * kprobe on ftrace (kernel/fail_function.c fei_kprobe_handler); on s390x
 * override_function_with_return sets psw.addr = gprs[14], "br %r14"
 * emulated (arch/s390/lib/error-inject.c).
 */
SYM_FUNC_START(fei_target)
	FENTRY
	agr	%r2,%r3
	br	%r14
SYM_FUNC_END(fei_target)
