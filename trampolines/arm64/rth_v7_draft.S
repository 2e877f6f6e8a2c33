/*
 * arm64 return_to_handler of the rejected v7 25/36 "arm64: ftrace: Enable
 * HAVE_FUNCTION_GRAPH_FREGS" (Masami Hiramatsu, Feb 2024, Message-Id
 * 170723232647.502590.10808588686838195094.stgit@devnote2; steps from
 * shared/reference/arm64.md "return_to_handler" D), written for trampemu:
 * the v6.14 shape plus x8, x9 as lr and x10 as sp. At a function's return
 * x8, x9 and x10 hold nothing the callbacks could use (x9/x10 are scratch
 * in the returning function), so the three stores are unused; Steven
 * Rostedt: "The above is just garbage", save only what is needed
 * (20240215111021.05163ba1@gandalf.local.home).
 */
	.text
SYM_CODE_START(return_to_handler)
	sub	sp, sp, #FREGS_SIZE
	stp	x0, x1, [sp, #FREGS_X0]
	stp	x2, x3, [sp, #FREGS_X2]
	stp	x4, x5, [sp, #FREGS_X4]
	stp	x6, x7, [sp, #FREGS_X6]
	str	x8, [sp, #FREGS_X8]
	str	x29, [sp, #FREGS_FP]
	str	x9, [sp, #FREGS_LR]		/* a scratch register, not the lr */
	str	x10, [sp, #FREGS_SP]		/* a scratch register, not the sp */
	mov	x0, sp
	bl	ftrace_return_to_handler
	mov	x30, x0
	ldp	x0, x1, [sp, #FREGS_X0]
	ldp	x2, x3, [sp, #FREGS_X2]
	ldp	x4, x5, [sp, #FREGS_X4]
	ldp	x6, x7, [sp, #FREGS_X6]
	add	sp, sp, #FREGS_SIZE
	ret
SYM_CODE_END(return_to_handler)
