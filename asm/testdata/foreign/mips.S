/* A return_to_handler in the manner of arch/mips/kernel/mcount.S (v6.x),
   written for trampemu's wrong-arch test. */
	.set	noreorder
	.globl	return_to_handler
return_to_handler:
	PTR_SUBU	sp, PT_SIZE
	PTR_S	v0, PT_R2(sp)
	jal	ftrace_return_to_handler
	PTR_S	v1, PT_R3(sp)
	move	ra, v0
	PTR_L	v0, PT_R2(sp)
	PTR_L	v1, PT_R3(sp)
	jr	ra
	PTR_ADDIU	sp, PT_SIZE
	daddiu	$sp, $sp, 0
	move	$ra, $v0
