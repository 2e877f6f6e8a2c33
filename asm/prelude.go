package asm

import "trampemu/regs"

// The prelude is included before every source (cpp -include). It defines the
// kernel's linkage and annotation macros (include/linux/linkage.h,
// arch/x86/include/asm/{linkage,unwind_hints,nospec-branch,ibt}.h,
// arch/s390/include/asm/nospec-insn.h) the way a non-instrumented kernel build
// expands them, so that trampoline text pasted from a patch assembles as is.
// Object-tool annotations (UNWIND_HINT_*, ANNOTATE_*, STACK_FRAME_NON_STANDARD)
// emit nothing; ALTERNATIVE emits its original instructions, as the file
// assembles before the kernel patches alternatives at boot. Whole upstream
// files of v4.19..v6.19 (arch/x86/kernel/ftrace_64.S,
// arch/s390/kernel/mcount.S) assemble unchanged with these definitions and
// the CONFIG options of their kernel model (package kernel).
const commonPrelude = `
#define __ASSEMBLY__ 1
#define __ASSEMBLER__ 1
#define __ALIGN .balign 4
#define ALIGN __ALIGN
#define ASM_NL ;
#define SYM_L_GLOBAL(name) .globl name
#define SYM_L_WEAK(name) .weak name
#define SYM_L_LOCAL(name)
#define SYM_A_ALIGN ALIGN
#define SYM_A_NONE
#define SYM_T_FUNC @function
#define SYM_T_OBJECT @object
#define SYM_T_NONE @notype
#define SYM_ENTRY(name, linkage, align) linkage(name) ASM_NL align ASM_NL name:
#define SYM_START(name, linkage, align) SYM_ENTRY(name, linkage, align)
#define SYM_END(name, sym_type) .type name, sym_type ASM_NL .size name, .-name
/* SYM_FUNC_LANDING_PAD: what an arch's linkage.h opens every
   SYM_FUNC_START* with under its branch-target option (x86-64 ENDBR with
   CONFIG_X86_KERNEL_IBT, arm64 BTI_C with CONFIG_ARM64_BTI_KERNEL); the
   arch prelude redefines it, nothing by default. */
#define SYM_FUNC_LANDING_PAD
#define SYM_FUNC_START(name) SYM_START(name, SYM_L_GLOBAL, SYM_A_ALIGN) SYM_FUNC_LANDING_PAD
#define SYM_FUNC_START_NOALIGN(name) SYM_START(name, SYM_L_GLOBAL, SYM_A_NONE) SYM_FUNC_LANDING_PAD
#define SYM_FUNC_START_LOCAL(name) SYM_START(name, SYM_L_LOCAL, SYM_A_ALIGN) SYM_FUNC_LANDING_PAD
#define SYM_FUNC_START_LOCAL_NOALIGN(name) SYM_START(name, SYM_L_LOCAL, SYM_A_NONE) SYM_FUNC_LANDING_PAD
#define SYM_FUNC_START_WEAK(name) SYM_START(name, SYM_L_WEAK, SYM_A_ALIGN) SYM_FUNC_LANDING_PAD
#define SYM_TYPED_FUNC_START(name) SYM_FUNC_START(name)
#define SYM_FUNC_START_WEAK_NOALIGN(name) SYM_START(name, SYM_L_WEAK, SYM_A_NONE) SYM_FUNC_LANDING_PAD
#define SYM_FUNC_START_ALIAS(name) SYM_START(name, SYM_L_GLOBAL, SYM_A_ALIGN)
#define SYM_FUNC_START_LOCAL_ALIAS(name) SYM_START(name, SYM_L_LOCAL, SYM_A_ALIGN)
#define SYM_FUNC_END_ALIAS(name) SYM_END(name, SYM_T_FUNC)
#define SYM_CODE_START_ALIGN(name) SYM_START(name, SYM_L_GLOBAL, SYM_A_ALIGN)
#define SYM_FUNC_START_ALIGN(name) SYM_START(name, SYM_L_GLOBAL, SYM_A_ALIGN)
#define SYM_FUNC_END(name) SYM_END(name, SYM_T_FUNC)
#define SYM_FUNC_ALIAS(alias, name) .globl alias ASM_NL .set alias, name
#define SYM_CODE_START(name) SYM_START(name, SYM_L_GLOBAL, SYM_A_ALIGN)
#define SYM_CODE_START_NOALIGN(name) SYM_START(name, SYM_L_GLOBAL, SYM_A_NONE)
#define SYM_CODE_START_LOCAL(name) SYM_START(name, SYM_L_LOCAL, SYM_A_ALIGN)
#define SYM_CODE_START_LOCAL_NOALIGN(name) SYM_START(name, SYM_L_LOCAL, SYM_A_NONE)
#define SYM_CODE_END(name) SYM_END(name, SYM_T_NONE)
#define SYM_INNER_LABEL(name, linkage) linkage(name) ASM_NL name:
#define SYM_INNER_LABEL_ALIGN(name, linkage) SYM_ENTRY(name, linkage, SYM_A_ALIGN)
#define SYM_DATA_START(name) SYM_START(name, SYM_L_GLOBAL, SYM_A_NONE)
#define SYM_DATA_END(name) SYM_END(name, SYM_T_OBJECT)
#define SYM_DATA(name, ...) SYM_DATA_START(name) ASM_NL __VA_ARGS__ ASM_NL SYM_DATA_END(name)
#define SYM_DATA_START_LOCAL(name) SYM_START(name, SYM_L_LOCAL, SYM_A_NONE)
#define SYM_DATA_LOCAL(name, ...) SYM_DATA_START_LOCAL(name) ASM_NL __VA_ARGS__ ASM_NL SYM_DATA_END(name)
/* include/linux/stringify.h */
#define __stringify_1(x...) #x
#define __stringify(x...) __stringify_1(x)
/* include/linux/export.h, include/asm-generic/export.h: no module tables here */
#define EXPORT_SYMBOL_NS(name, ns)
#define EXPORT_SYMBOL_NS_GPL(name, ns)
#define ENTRY(name) .globl name ASM_NL ALIGN ASM_NL name:
#define GLOBAL(name) .globl name ASM_NL name:
#define END(name) .size name, .-name
#define ENDPROC(name) .type name, @function ASM_NL END(name)
#define WEAK(name) .weak name ASM_NL name:
#define EXPORT_SYMBOL(name)
#define EXPORT_SYMBOL_GPL(name)
#define _ASM_NOKPROBE(name)
#define NOKPROBE(name)
#define STACK_FRAME_NON_STANDARD(func)
#define STACK_FRAME_NON_STANDARD_FP(func)
#define ANNOTATE_NOENDBR
#define ANNOTATE_INTRA_FUNCTION_CALL
#define ANNOTATE_UNRET_SAFE
#define ANNOTATE_RETPOLINE_SAFE
#define ANNOTATE_NOINSTR
#define ANNOTATE_REACHABLE
#define ANNOTATE_UNRET_BEGIN
#define __PACK_STACK 1
.macro UNWIND_HINT_FUNC args:vararg
.endm
.macro UNWIND_HINT_EMPTY args:vararg
.endm
.macro UNWIND_HINT_UNDEFINED args:vararg
.endm
.macro UNWIND_HINT_END_OF_STACK args:vararg
.endm
.macro UNWIND_HINT_REGS args:vararg
.endm
.macro UNWIND_HINT_IRET_REGS args:vararg
.endm
.macro UNWIND_HINT_SAVE args:vararg
.endm
.macro UNWIND_HINT_RESTORE args:vararg
.endm
.macro UNWIND_HINT args:vararg
.endm
.macro UNWIND_HINT_RET_OFFSET args:vararg
.endm
.macro UNWIND_HINT_ENTRY args:vararg
.endm
.macro UNWIND_HINT_SAVE_REGS args:vararg
.endm
/* arch/x86/include/asm/alternative.h, arch/s390/include/asm/alternative.h
   (__ASSEMBLY__): the original instructions stay until boot patches them */
.macro ALTERNATIVE oldinstr, newinstr, feature:vararg
	\oldinstr
.endm
.macro ALTERNATIVE_2 oldinstr, newinstr1, feature1, newinstr2, feature2:vararg
	\oldinstr
.endm
.macro ALTERNATIVE_3 oldinstr, newinstr1, feature1, newinstr2, feature2, newinstr3, feature3:vararg
	\oldinstr
.endm
/* arch/x86/include/asm/nospec-branch.h (v6.2+): with
   CONFIG_CALL_DEPTH_TRACKING it is ALTERNATIVE "", INCREMENT_CALL_DEPTH,
   X86_FEATURE_CALL_DEPTH, whose original code is empty */
.macro CALL_DEPTH_ACCOUNT args:vararg
.endm
.macro VALIDATE_UNRET_END args:vararg
.endm
`

// Prelude returns the macro prelude for the arch.
func Prelude(a *regs.Arch) string {
	// The asm-offsets names are there without an #include, as in a kernel
	// file that includes <asm/asm-offsets.h>.
	const offsets = "#include <asm/asm-offsets.h>\n"
	return commonPrelude + mustAsmArch(a).prelude + offsets
}
