/* Broken: a return_to_handler (x86_rth_ok.S otherwise) that parks the
   original return address in its frame, releases the frame and then jumps
   through the word now below rsp. An interrupt
   before the jmp overwrites it and the jump goes to garbage: a fault the
   interrupt model attributes to that boundary (stack), and the check goes
   on with the next boundary. */
SYM_CODE_START(return_to_handler)
	movq	%rsp, %rdi
	subq	$(FRAME_SIZE), %rsp
	movq	%rax, RAX(%rsp)
	movq	%rdx, RDX(%rsp)
	movq	%rbp, RBP(%rsp)
	movq	%rdi, RSP(%rsp)
	movq	%rsp, %rdi
	call	ftrace_return_to_handler
	movq	RDX(%rsp), %rdx
	movq	%rax, FRAME_SIZE-16(%rsp)
	movq	RAX(%rsp), %rax
	addq	$(FRAME_SIZE), %rsp
	jmp	*-16(%rsp)
SYM_CODE_END(return_to_handler)
