package asm

// x86Annotations is the x86-64 part of the prelude that emits the
// annotation sections objtool reads, in the format of the objtool that
// runs (ObjtoolFormat; the build defines TRAMPEMU_OBJTOOL_FORMAT=61 or 64,
// 61 when none): the macros of arch/x86/include/asm/unwind_hints.h and
// include/linux/objtool.h (v6.1), include/linux/objtool_types.h (v6.4+),
// written for trampemu from those files' facts, not copied.
//
// struct unwind_hint, 12 bytes in .discard.unwind_hints: s32 ip (PC32
// reloc against a local label), s16 sp_offset, u8 sp_reg (ORC_REG_*), u8
// type, u8 end (v6.1) or signal (v6.4+), padded to 4 (include/linux/
// objtool.h v6.1; include/linux/objtool_types.h v6.4+).
//
// Hint types, v6.1 (include/linux/objtool.h): CALL 0, REGS 1,
// REGS_PARTIAL 2, FUNC 3, ENTRY 4, SAVE 5, RESTORE 6; "undefined" is
// {sp_reg ORC_REG_UNDEFINED, end 0} and end-of-stack the same with end 1
// (UNWIND_HINT_EMPTY). v6.4+ (include/linux/objtool_types.h): UNDEFINED 0,
// END_OF_STACK 1, CALL 2, REGS 3, REGS_PARTIAL 4, FUNC 5, SAVE 6, RESTORE
// 7. ORC_REG_* (arch/x86/include/asm/orc_types.h, both): UNDEFINED 0,
// PREV_SP 1, DX 2, DI 3, BP 4, SP 5, R10 6, R13 7, BP_INDIRECT 8,
// SP_INDIRECT 9.
//
// Other annotations, v6.1 (include/linux/objtool.h, arch/x86/include/asm/
// nospec-branch.h): ANNOTATE_NOENDBR .discard.noendbr ".quad L";
// ANNOTATE_RETPOLINE_SAFE (and ANNOTATE_UNRET_SAFE, its alias)
// .discard.retpoline_safe ".quad L"; ANNOTATE_INTRA_FUNCTION_CALL
// .discard.intra_function_calls ".long L"; STACK_FRAME_NON_STANDARD f
// .discard.func_stack_frame_non_standard ".quad f"; REACHABLE
// .discard.reachable ".long L - .". v6.12 (include/linux/objtool.h): the
// same sections, NOENDBR and RETPOLINE_SAFE ".long L", the non-standard
// function ".long f - .". STACK_FRAME_NON_STANDARD_FP is
// STACK_FRAME_NON_STANDARD under CONFIG_FRAME_POINTER only.
const x86Annotations = `
#ifndef TRAMPEMU_OBJTOOL_FORMAT
#define TRAMPEMU_OBJTOOL_FORMAT 61
#endif
#define ORC_REG_UNDEFINED 0
#define ORC_REG_PREV_SP 1
#define ORC_REG_DX 2
#define ORC_REG_DI 3
#define ORC_REG_BP 4
#define ORC_REG_SP 5
#define ORC_REG_R10 6
#define ORC_REG_R13 7
#define ORC_REG_BP_INDIRECT 8
#define ORC_REG_SP_INDIRECT 9
#if TRAMPEMU_OBJTOOL_FORMAT >= 64
#define UNWIND_HINT_TYPE_UNDEFINED 0
#define UNWIND_HINT_TYPE_END_OF_STACK 1
#define UNWIND_HINT_TYPE_CALL 2
#define UNWIND_HINT_TYPE_REGS 3
#define UNWIND_HINT_TYPE_REGS_PARTIAL 4
#define UNWIND_HINT_TYPE_FUNC 5
#define UNWIND_HINT_TYPE_SAVE 6
#define UNWIND_HINT_TYPE_RESTORE 7
#else
#define UNWIND_HINT_TYPE_CALL 0
#define UNWIND_HINT_TYPE_REGS 1
#define UNWIND_HINT_TYPE_REGS_PARTIAL 2
#define UNWIND_HINT_TYPE_FUNC 3
#define UNWIND_HINT_TYPE_ENTRY 4
#define UNWIND_HINT_TYPE_SAVE 5
#define UNWIND_HINT_TYPE_RESTORE 6
#endif
.purgem UNWIND_HINT
.purgem UNWIND_HINT_FUNC
.purgem UNWIND_HINT_EMPTY
.purgem UNWIND_HINT_UNDEFINED
.purgem UNWIND_HINT_END_OF_STACK
.purgem UNWIND_HINT_REGS
.purgem UNWIND_HINT_IRET_REGS
.purgem UNWIND_HINT_SAVE
.purgem UNWIND_HINT_RESTORE
.purgem UNWIND_HINT_RET_OFFSET
.purgem UNWIND_HINT_ENTRY
/* One struct unwind_hint for the instruction that follows. The last
   byte is end (v6.1) or signal (v6.4+). */
.macro UNWIND_HINT type:req sp_reg=0 sp_offset=0 end=0 signal=0
.Ltrampemu_hint_\@:
	.pushsection .discard.unwind_hints
	.long .Ltrampemu_hint_\@ - .
	.short \sp_offset
	.byte \sp_reg
	.byte \type
#if TRAMPEMU_OBJTOOL_FORMAT >= 64
	.byte \signal
#else
	.byte \end
#endif
	.balign 4
	.popsection
.endm
.macro UNWIND_HINT_FUNC
	UNWIND_HINT type=UNWIND_HINT_TYPE_FUNC sp_reg=ORC_REG_SP sp_offset=8
.endm
/* v5.10's UNWIND_HINT_RET_OFFSET was merged into UNWIND_HINT_FUNC
   ("objtool: Combine UNWIND_HINT_RET_OFFSET and UNWIND_HINT_FUNC", v5.12). */
.macro UNWIND_HINT_RET_OFFSET args:vararg
	UNWIND_HINT_FUNC
.endm
#if TRAMPEMU_OBJTOOL_FORMAT >= 64
.macro UNWIND_HINT_UNDEFINED
	UNWIND_HINT type=UNWIND_HINT_TYPE_UNDEFINED
.endm
.macro UNWIND_HINT_END_OF_STACK
	UNWIND_HINT type=UNWIND_HINT_TYPE_END_OF_STACK
.endm
/* v6.1's UNWIND_HINT_EMPTY is v6.4's UNWIND_HINT_END_OF_STACK; v6.4's
   UNWIND_HINT_ENTRY is VALIDATE_UNRET_BEGIN + END_OF_STACK. */
.macro UNWIND_HINT_EMPTY
	UNWIND_HINT_END_OF_STACK
.endm
.macro UNWIND_HINT_ENTRY
	UNWIND_HINT_END_OF_STACK
.endm
#else
.macro UNWIND_HINT_UNDEFINED
	UNWIND_HINT type=UNWIND_HINT_TYPE_CALL sp_reg=ORC_REG_UNDEFINED end=0
.endm
.macro UNWIND_HINT_END_OF_STACK
	UNWIND_HINT type=UNWIND_HINT_TYPE_CALL sp_reg=ORC_REG_UNDEFINED end=1
.endm
.macro UNWIND_HINT_EMPTY
	UNWIND_HINT_END_OF_STACK
.endm
.macro UNWIND_HINT_ENTRY
	UNWIND_HINT type=UNWIND_HINT_TYPE_ENTRY end=1
.endm
#endif
/* base: %rsp (SP, or SP_INDIRECT when indirect), %rbp, %rdi, %rdx, %r10;
   extra=0: REGS_PARTIAL 16 words up (the hardware frame only); partial:
   REGS_PARTIAL. v6.4+ marks a regs frame as a signal frame (signal=1). */
.macro UNWIND_HINT_REGS base=%rsp offset=0 indirect=0 extra=1 partial=0 signal=1
	.if \indirect
	.set .Ltrampemu_reg, ORC_REG_SP_INDIRECT
	.else
	.set .Ltrampemu_reg, -1
	.ifc \base,%rsp
	.set .Ltrampemu_reg, ORC_REG_SP
	.endif
	.ifc \base,%rbp
	.set .Ltrampemu_reg, ORC_REG_BP
	.endif
	.ifc \base,%rdi
	.set .Ltrampemu_reg, ORC_REG_DI
	.endif
	.ifc \base,%rdx
	.set .Ltrampemu_reg, ORC_REG_DX
	.endif
	.ifc \base,%r10
	.set .Ltrampemu_reg, ORC_REG_R10
	.endif
	.if .Ltrampemu_reg < 0
	.error "UNWIND_HINT_REGS: unsupported base register"
	.endif
	.endif
	.set .Ltrampemu_off, \offset
	.if \partial
	UNWIND_HINT type=UNWIND_HINT_TYPE_REGS_PARTIAL sp_reg=.Ltrampemu_reg sp_offset=.Ltrampemu_off signal=\signal
	.elseif \extra == 0
	.set .Ltrampemu_off, \offset + 16 * 8
	UNWIND_HINT type=UNWIND_HINT_TYPE_REGS_PARTIAL sp_reg=.Ltrampemu_reg sp_offset=.Ltrampemu_off signal=\signal
	.else
	UNWIND_HINT type=UNWIND_HINT_TYPE_REGS sp_reg=.Ltrampemu_reg sp_offset=.Ltrampemu_off signal=\signal
	.endif
.endm
.macro UNWIND_HINT_IRET_REGS base=%rsp offset=0 signal=1
	UNWIND_HINT_REGS base=\base offset=\offset partial=1 signal=\signal
.endm
.macro UNWIND_HINT_SAVE
	UNWIND_HINT type=UNWIND_HINT_TYPE_SAVE
.endm
.macro UNWIND_HINT_RESTORE
	UNWIND_HINT type=UNWIND_HINT_TYPE_RESTORE
.endm
#undef ANNOTATE_NOENDBR
#undef ANNOTATE_INTRA_FUNCTION_CALL
#undef ANNOTATE_RETPOLINE_SAFE
#undef ANNOTATE_UNRET_SAFE
#undef ANNOTATE_REACHABLE
#undef STACK_FRAME_NON_STANDARD
#undef STACK_FRAME_NON_STANDARD_FP
#if TRAMPEMU_OBJTOOL_FORMAT >= 64
#define TRAMPEMU_ANNOTATE_PTR .long
#else
#define TRAMPEMU_ANNOTATE_PTR .quad
#endif
.macro ANNOTATE_NOENDBR
.Ltrampemu_noendbr_\@:
	.pushsection .discard.noendbr
	TRAMPEMU_ANNOTATE_PTR .Ltrampemu_noendbr_\@
	.popsection
.endm
.macro ANNOTATE_RETPOLINE_SAFE
.Ltrampemu_rpsafe_\@:
	.pushsection .discard.retpoline_safe
	TRAMPEMU_ANNOTATE_PTR .Ltrampemu_rpsafe_\@
	.popsection
.endm
.macro ANNOTATE_UNRET_SAFE
	ANNOTATE_RETPOLINE_SAFE
.endm
.macro ANNOTATE_INTRA_FUNCTION_CALL
.Ltrampemu_intra_\@:
	.pushsection .discard.intra_function_calls
	.long .Ltrampemu_intra_\@
	.popsection
.endm
.macro ANNOTATE_REACHABLE
.Ltrampemu_reach_\@:
	.pushsection .discard.reachable
	.long .Ltrampemu_reach_\@ - .
	.popsection
.endm
.macro TRAMPEMU_NON_STANDARD func:req
	.pushsection .discard.func_stack_frame_non_standard, "aw"
#if TRAMPEMU_OBJTOOL_FORMAT >= 64
	.long \func - .
#else
	.quad \func
#endif
	.popsection
.endm
#define STACK_FRAME_NON_STANDARD(func) TRAMPEMU_NON_STANDARD func
#ifdef CONFIG_FRAME_POINTER
#define STACK_FRAME_NON_STANDARD_FP(func) TRAMPEMU_NON_STANDARD func
#else
#define STACK_FRAME_NON_STANDARD_FP(func)
#endif
`
