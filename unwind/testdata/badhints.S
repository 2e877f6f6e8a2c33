/* Hints of our own that are wrong (written for trampemu): objtool_test.go
   and the unwinder tests use them. */
	.text
/* 1: a FUNC hint missing: entered with the return address at sp, pushes and calls */
SYM_CODE_START(bad_nofunc)
	UNWIND_HINT_UNDEFINED
	subq	$8, %rsp
	call	g
	addq	$8, %rsp
	RET
SYM_CODE_END(bad_nofunc)
/* 2: the sp offset is wrong: FUNC claims sp+8 after a push */
SYM_FUNC_START(bad_offset)
	pushq	%rbx
	UNWIND_HINT_FUNC
	call	g
	popq	%rbx
	RET
SYM_FUNC_END(bad_offset)
/* 3: an undefined region that covers a call in a function */
SYM_FUNC_START(bad_undef)
	pushq	%rbx
	UNWIND_HINT_UNDEFINED
	call	g
	popq	%rbx
	RET
SYM_FUNC_END(bad_undef)
SYM_FUNC_START(g)
	RET
SYM_FUNC_END(g)
/* A correct pair for contrast: a bottom frame (end of stack) calling a
   function that pushes and calls. */
SYM_CODE_START(driver)
	UNWIND_HINT_END_OF_STACK
	call	good
SYM_INNER_LABEL(driver_ret, SYM_L_GLOBAL)
	ud2
SYM_CODE_END(driver)
SYM_FUNC_START(good)
	pushq	%rbx
	call	g
	popq	%rbx
	RET
SYM_FUNC_END(good)
