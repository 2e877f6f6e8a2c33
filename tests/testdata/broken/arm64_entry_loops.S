/* arm64_entry_ok.S resuming at the wrong address: the pc slot minus
   AARCH64_INSN_SIZE, the bl of the call site, so every return re-enters
   the call site and the kernel would go round for ever (issue 20: this
   took 175 s to check, each workload running to the instruction limit).
   Must be caught as: control, at the first return (the call stops
   there), not at an instruction limit. */
SYM_CODE_START(ftrace_caller)
	bti	c
	mov	x10, sp
	sub	sp, sp, #(FREGS_SIZE + 32)
	stp	x0, x1, [sp, #FREGS_X0]
	stp	x2, x3, [sp, #FREGS_X2]
	stp	x4, x5, [sp, #FREGS_X4]
	stp	x6, x7, [sp, #FREGS_X6]
	str	x8, [sp, #FREGS_X8]
	str	x29, [sp, #FREGS_FP]
	str	x9, [sp, #FREGS_LR]
	str	x10, [sp, #FREGS_SP]
	str	x30, [sp, #FREGS_PC]
	stp	x29, x9, [sp, #(FREGS_SIZE + 16)]
	add	x29, sp, #(FREGS_SIZE + 16)
	stp	x29, x30, [sp, #FREGS_SIZE]
	add	x29, sp, #FREGS_SIZE
	sub	x0, x30, #AARCH64_INSN_SIZE
	mov	x1, x9
	adrp	x2, function_trace_op
	ldr	x2, [x2, #:lo12:function_trace_op]
	mov	x3, sp
SYM_INNER_LABEL(ftrace_call, SYM_L_GLOBAL)
	bl	ftrace_stub
	ldp	x0, x1, [sp, #FREGS_X0]
	ldp	x2, x3, [sp, #FREGS_X2]
	ldp	x4, x5, [sp, #FREGS_X4]
	ldp	x6, x7, [sp, #FREGS_X6]
	ldr	x8, [sp, #FREGS_X8]
	ldr	x29, [sp, #FREGS_FP]
	ldr	x30, [sp, #FREGS_LR]
	ldr	x9, [sp, #FREGS_PC]
	sub	x9, x9, #AARCH64_INSN_SIZE
	add	sp, sp, #(FREGS_SIZE + 32)
	ret	x9
SYM_CODE_END(ftrace_caller)
