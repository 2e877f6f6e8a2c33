/* emu test program, s390x: host calls, loops and deliberate faults. */
	.text
SYM_FUNC_START(guest_add)
	stmg	%r6,%r15,__SF_GPRS(%r15)
	lgr	%r1,%r15
	aghi	%r15,-STACK_FRAME_OVERHEAD
	stg	%r1,__SF_BACKCHAIN(%r15)
	brasl	%r14,host_add		/* r2 = host_add(r2, r3) */
	aghi	%r2,1
	lmg	%r6,%r15,STACK_FRAME_OVERHEAD+__SF_GPRS(%r15)
	br	%r14
SYM_FUNC_END(guest_add)

SYM_FUNC_START(guest_loop)		/* calls host_count(i) for i = r2..1 */
	stmg	%r6,%r15,__SF_GPRS(%r15)
	lgr	%r1,%r15
	aghi	%r15,-STACK_FRAME_OVERHEAD
	stg	%r1,__SF_BACKCHAIN(%r15)
	lgr	%r6,%r2
1:	lgr	%r2,%r6
	brasl	%r14,host_count
	brctg	%r6,1b
	lmg	%r6,%r15,STACK_FRAME_OVERHEAD+__SF_GPRS(%r15)
	br	%r14
SYM_FUNC_END(guest_loop)

SYM_FUNC_START(guest_stores)		/* r2 = iterations: a store-heavy loop */
1:	stg	%r2,0(%r15)
	stg	%r2,8(%r15)
	stg	%r2,16(%r15)
	stg	%r2,24(%r15)
	brctg	%r2,1b
	br	%r14
SYM_FUNC_END(guest_stores)

SYM_FUNC_START(bad_read)
	lghi	%r1,16
	lg	%r2,0(%r1)
	br	%r14
SYM_FUNC_END(bad_read)

SYM_FUNC_START(bad_write)
	lghi	%r1,16
	stg	%r2,0(%r1)
	br	%r14
SYM_FUNC_END(bad_write)

SYM_FUNC_START(bad_insn)
	.short	0x0000		/* opcode 0x00: operation exception */
SYM_FUNC_END(bad_insn)

SYM_FUNC_START(spin)
1:	j	1b
SYM_FUNC_END(spin)

SYM_FUNC_START(split_a)			/* a branch straight into split_b */
	jg	split_b
SYM_FUNC_END(split_a)

SYM_FUNC_START(split_b)
	br	%r14
SYM_FUNC_END(split_b)

SYM_CODE_START(done)
	nopr	%r7
SYM_CODE_END(done)
