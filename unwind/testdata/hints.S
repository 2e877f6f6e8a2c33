/* One UNWIND_HINT of each kind, each in its own code block (entered by
   nobody, so the hint is what objtool starts from), followed by a nop so
   the hint's CFI is what the next instruction's ORC entry records. Written
   for trampemu: orc_test.go pins the table the kernel's objtool makes. */
	.text
SYM_CODE_START(h_func)
	UNWIND_HINT_FUNC
	nop
	ud2
SYM_CODE_END(h_func)
SYM_CODE_START(h_undefined)
	UNWIND_HINT_UNDEFINED
	nop
	ud2
SYM_CODE_END(h_undefined)
SYM_CODE_START(h_end_of_stack)
	UNWIND_HINT_END_OF_STACK
	nop
	ud2
SYM_CODE_END(h_end_of_stack)
SYM_CODE_START(h_empty)
	UNWIND_HINT_EMPTY
	nop
	ud2
SYM_CODE_END(h_empty)
SYM_CODE_START(h_entry)
	UNWIND_HINT_ENTRY
	nop
	ud2
SYM_CODE_END(h_entry)
SYM_CODE_START(h_regs)
	UNWIND_HINT_REGS
	nop
	ud2
SYM_CODE_END(h_regs)
SYM_CODE_START(h_regs_offset)
	UNWIND_HINT_REGS base=%rsp offset=8
	nop
	ud2
SYM_CODE_END(h_regs_offset)
SYM_CODE_START(h_regs_rdi)
	UNWIND_HINT_REGS base=%rdi
	nop
	ud2
SYM_CODE_END(h_regs_rdi)
SYM_CODE_START(h_regs_indirect)
	UNWIND_HINT_REGS indirect=1
	nop
	ud2
SYM_CODE_END(h_regs_indirect)
SYM_CODE_START(h_regs_extra0)
	UNWIND_HINT_REGS extra=0
	nop
	ud2
SYM_CODE_END(h_regs_extra0)
SYM_CODE_START(h_iret_regs)
	UNWIND_HINT_IRET_REGS
	nop
	ud2
SYM_CODE_END(h_iret_regs)
SYM_CODE_START(h_ret_offset)
	UNWIND_HINT_RET_OFFSET
	nop
	ud2
SYM_CODE_END(h_ret_offset)
