/*
 * riscv64 ftrace_caller and ftrace_regs_caller of the 16-byte ra-based
 * call site, DYNAMIC_FTRACE_WITH_REGS, v5.11-v6.2 (arch/riscv/kernel/
 * mcount-dyn.S from afc76b8b8011 "riscv: Using PATCHABLE_FUNCTION_ENTRY
 * instead of MCOUNT", v5.11, until 6724a76cff85 "riscv: ftrace: Reduce the
 * detour code size to half", v6.3; read in the v5.15.41 file of
 * potatogeek/kernel-a34x-permissiver@a1cd818d9681, blob d171eca623b6;
 * steps from shared/reference/riscv64.md "E1 entry"), written for trampemu.
 *
 * The call site (arch/riscv/kernel/ftrace.c v5.15 ftrace_make_call) is
 * "sd ra, -8(sp); auipc ra, hi; jalr ra, lo(ra); ld ra, -8(sp)" at the
 * function: the trampoline starts with ra = func + 12, the parent in the
 * word below sp, sp the traced function's, and returns with "ret" to the
 * "ld ra", which takes the parent (return_to_handler once the graph entry
 * hooked it) back from that word. The calls at ftrace_call,
 * ftrace_regs_call, ftrace_graph_call and ftrace_graph_regs_call are
 * ra-based pairs the kernel rewrites.
 *
 * ftrace_caller lowers sp onto the parent word (8) and keeps a0-a7 and ra
 * in a 72-byte block above it (not a pt_regs): 80 bytes, so sp stays
 * 16-byte aligned. ftrace_regs_caller lowers sp by 8 + PT_SIZE_ON_STACK
 * (296: sp is 8 bytes off the psABI's 16 at its calls into C), stores ra
 * (func + 12) in PT_EPC, raises sp by PT_SIZE_ON_STACK again to load the
 * parent word (PT_EPC is then below sp), and stores x2 after lowering it
 * (regs->sp = entry sp - 296). On the way out it copies PT_RA into the
 * parent word the same way, with the whole pt_regs below sp, then reloads
 * every register from it. These are the file's own steps, kept as they
 * are (kernel/riscv64_bugs.go).
 */
#define E1_RA_OFFSET	12	/* FENTRY_RA_OFFSET: ra - 12 is the function */
#define E1_BLOCK	72	/* ABI_SIZE_ON_STACK: a0-a7, then ra */
#define E1_BLOCK_RA	64	/* ABI_RA */

	.macro	e1_abi op
	.irp	n, 0, 1, 2, 3, 4, 5, 6, 7
	\op	a\n, \n*SZREG(sp)
	.endr
	\op	ra, E1_BLOCK_RA(sp)
	.endm

	/*
	 * x3-x31 to or from their pt_regs slots (x1, x2 apart), one line per
	 * slot as SAVE_ALL / RESTORE_ALL have them
	 */
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
	addi	sp, sp, -SZREG			/* onto the parent word */
	addi	sp, sp, -E1_BLOCK
	e1_abi	REG_S
	addi	a0, ra, -E1_RA_OFFSET		/* ip */
	la	a1, function_trace_op
	REG_L	a2, 0(a1)			/* op */
	REG_L	a1, E1_BLOCK(sp)		/* parent_ip, from the parent word */
	mv	a3, sp				/* the block, no pt_regs */
SYM_INNER_LABEL(ftrace_call, SYM_L_GLOBAL)
	call	ftrace_stub
#ifdef CONFIG_FUNCTION_GRAPH_TRACER
	addi	a0, sp, E1_BLOCK		/* &the parent word */
	REG_L	a1, E1_BLOCK_RA(sp)
	addi	a1, a1, -E1_RA_OFFSET		/* self_addr */
#ifdef HAVE_FUNCTION_GRAPH_FP_TEST
	mv	a2, s0
#endif
SYM_INNER_LABEL(ftrace_graph_call, SYM_L_GLOBAL)
	call	ftrace_stub
#endif
	e1_abi	REG_L
	addi	sp, sp, E1_BLOCK
	addi	sp, sp, SZREG
	ret					/* to the site's "ld ra" */
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
	REG_S	sp, PT_SP(sp)			/* already lowered */
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
	REG_L	ra, PT_EPC(sp)			/* where to go: a callback may move it */
	REG_L	sp, PT_SP(sp)			/* the lowered sp it stored */
	e1_rest	REG_L
	addi	sp, sp, PT_SIZE_ON_STACK
	addi	sp, sp, SZREG
	ret
SYM_FUNC_END(ftrace_regs_caller)
#endif /* CONFIG_DYNAMIC_FTRACE_WITH_REGS */
