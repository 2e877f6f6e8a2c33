/*
 * riscv64 ftrace_caller and ftrace_regs_caller of the 16-byte ra-based call
 * site, DYNAMIC_FTRACE_WITH_REGS, v5.11-v6.2 (arch/riscv/kernel/mcount-dyn.S
 * from afc76b8b8011 "riscv: Using PATCHABLE_FUNCTION_ENTRY instead of
 * MCOUNT" until 6724a76cff85 "riscv: ftrace: Reduce the detour code size to
 * half", whose mail's "-" lines are this state; read in
 * potatogeek/kernel-a34x-permissiver@080ecb64293f, its upstream/android-13
 * (v5.15) side; steps from shared/reference/riscv64.md "E1 entry"), written
 * for trampemu.
 *
 * The call site arch/riscv/kernel/ftrace.c (v5.15 ftrace_make_call) writes
 * at the function is
 *	sd ra, -8(sp); auipc ra, hi; jalr ra, lo(ra); ld ra, -8(sp)
 * so a trampoline starts with ra = func + 12 and the parent in the word just
 * below sp, and returns with "ret" to the ld, which reloads that word:
 * return_to_handler once a graph user hooked it.
 *
 * ftrace_caller keeps a0-a7 and ra in a 72-byte block under that word and
 * hands the callbacks its address (not a pt_regs: only ops without
 * SAVE_REGS come here). ftrace_regs_caller builds a pt_regs under the
 * word; to move the traced function's ra into it, it stores ra at PT_EPC,
 * raises sp back onto the parent word to load it, lowers sp again and
 * reloads ra from PT_EPC, and on the way out it raises sp over the whole
 * pt_regs to put PT_RA back into the word before it reloads every
 * register: both times the frame it still reads is below sp. Its frame
 * is 8 + 288 = 296 bytes: sp is 8 bytes off the psABI's 16-byte
 * alignment while C runs (6724a76cff85 dropped the extra word).
 *
 * Graph: the call at ftrace_graph_call (ftrace_graph_regs_call) is
 * patched to prepare_ftrace_return(&parent word, func, s0)
 * (ftrace_enable_ftrace_graph_caller, arch/riscv/kernel/ftrace.c v5.15).
 */
#define E1_RA_OFFSET	12	/* FENTRY_RA_OFFSET: ra - 12 is the function */
#define E1_BLOCK	72	/* a0-a7, then ra */
#define E1_BLOCK_RA	64

	.macro	e1_abi_save
	addi	sp, sp, -SZREG			/* down onto the parent word */
	addi	sp, sp, -E1_BLOCK
	.irp	n, 0, 1, 2, 3, 4, 5, 6, 7
	REG_S	a\n, \n*SZREG(sp)
	.endr
	REG_S	ra, E1_BLOCK_RA(sp)
	.endm

	.macro	e1_abi_restore
	.irp	n, 0, 1, 2, 3, 4, 5, 6, 7
	REG_L	a\n, \n*SZREG(sp)
	.endr
	REG_L	ra, E1_BLOCK_RA(sp)
	addi	sp, sp, E1_BLOCK
	addi	sp, sp, SZREG
	.endm

	/* x3-x31 to or from their pt_regs slots (x1 and x2 are done apart) */
	.macro	e1_rest op
	\op	gp, PT_GP(sp)
	\op	tp, PT_TP(sp)
	\op	t0, PT_T0(sp)
	\op	t1, PT_T1(sp)
	\op	t2, PT_T2(sp)
	\op	s0, PT_S0(sp)
	\op	s1, PT_S1(sp)
	\op	a0, PT_A0(sp)
	\op	a1, PT_A1(sp)
	\op	a2, PT_A2(sp)
	\op	a3, PT_A3(sp)
	\op	a4, PT_A4(sp)
	\op	a5, PT_A5(sp)
	\op	a6, PT_A6(sp)
	\op	a7, PT_A7(sp)
	\op	s2, PT_S2(sp)
	\op	s3, PT_S3(sp)
	\op	s4, PT_S4(sp)
	\op	s5, PT_S5(sp)
	\op	s6, PT_S6(sp)
	\op	s7, PT_S7(sp)
	\op	s8, PT_S8(sp)
	\op	s9, PT_S9(sp)
	\op	s10, PT_S10(sp)
	\op	s11, PT_S11(sp)
	\op	t3, PT_T3(sp)
	\op	t4, PT_T4(sp)
	\op	t5, PT_T5(sp)
	\op	t6, PT_T6(sp)
	.endm

	.text
SYM_FUNC_START(ftrace_caller)
	e1_abi_save
	addi	a0, ra, -E1_RA_OFFSET		/* ip */
	la	a1, function_trace_op
	REG_L	a2, 0(a1)			/* op */
	REG_L	a1, E1_BLOCK(sp)		/* parent_ip, from the parent word */
	mv	a3, sp				/* the block, no pt_regs */
SYM_INNER_LABEL(ftrace_call, SYM_L_GLOBAL)
	call	ftrace_stub
#ifdef CONFIG_FUNCTION_GRAPH_TRACER
	addi	a0, sp, E1_BLOCK		/* &parent word */
	REG_L	a1, E1_BLOCK_RA(sp)
	addi	a1, a1, -E1_RA_OFFSET		/* self_addr */
#ifdef HAVE_FUNCTION_GRAPH_FP_TEST
	mv	a2, s0
#endif
SYM_INNER_LABEL(ftrace_graph_call, SYM_L_GLOBAL)
	call	ftrace_stub
#endif
	e1_abi_restore
	ret
SYM_FUNC_END(ftrace_caller)

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_REGS
SYM_FUNC_START(ftrace_regs_caller)
	addi	sp, sp, -SZREG
	addi	sp, sp, -PT_SIZE_ON_STACK
	REG_S	ra, PT_EPC(sp)			/* func + 12 */
	addi	sp, sp, PT_SIZE_ON_STACK	/* PT_EPC is below sp now */
	REG_L	ra, 0(sp)			/* the parent word */
	addi	sp, sp, -PT_SIZE_ON_STACK
	REG_S	ra, PT_RA(sp)
	REG_L	ra, PT_EPC(sp)
	REG_S	sp, PT_SP(sp)			/* the lowered sp */
	e1_rest	REG_S

	addi	a0, ra, -E1_RA_OFFSET
	la	a1, function_trace_op
	REG_L	a2, 0(a1)
	REG_L	a1, PT_SIZE_ON_STACK(sp)	/* parent_ip */
	mv	a3, sp				/* regs */
SYM_INNER_LABEL(ftrace_regs_call, SYM_L_GLOBAL)
	call	ftrace_stub
#ifdef CONFIG_FUNCTION_GRAPH_TRACER
	addi	a0, sp, PT_RA			/* the pt_regs copy of the parent */
	REG_L	a1, PT_EPC(sp)
	addi	a1, a1, -E1_RA_OFFSET
#ifdef HAVE_FUNCTION_GRAPH_FP_TEST
	mv	a2, s0
#endif
SYM_INNER_LABEL(ftrace_graph_regs_call, SYM_L_GLOBAL)
	call	ftrace_stub
#endif
	REG_L	ra, PT_RA(sp)
	addi	sp, sp, PT_SIZE_ON_STACK	/* the whole pt_regs below sp */
	REG_S	ra, 0(sp)			/* back into the parent word */
	addi	sp, sp, -PT_SIZE_ON_STACK
	REG_L	ra, PT_EPC(sp)
	REG_L	sp, PT_SP(sp)
	e1_rest	REG_L
	addi	sp, sp, PT_SIZE_ON_STACK
	addi	sp, sp, SZREG
	ret
SYM_FUNC_END(ftrace_regs_caller)
#endif /* CONFIG_DYNAMIC_FTRACE_WITH_REGS */
