/* A return_to_handler in the manner of arch/loongarch/kernel/mcount_dyn.S
   (v6.x), written for trampemu's wrong-arch test: loongarch64 is not
   modelled. */
#include <asm/asm.h>
SYM_CODE_START(return_to_handler)
	PTR_ADDI	sp, sp, -2 * SZREG
	st.d		$a0, $sp, 0
	st.d		$a1, $sp, 8
	move		$a0, $zero
	bl		ftrace_return_to_handler
	move		$ra, $a0
	ld.d		$a0, $sp, 0
	ld.d		$a1, $sp, 8
	addi.d		$sp, $sp, 16
	jirl		$zero, $ra, 0
SYM_CODE_END(return_to_handler)
