package asm

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/arch/arm64/arm64asm"

	"trampemu/regs"
)

// arm64Asm: AArch64 objects (EM_AARCH64, GNU ld's aarch64linux
// emulation), the kernel's arm64 macros and the golang.org/x/arch arm64asm
// disassembler. binutils 2.40's aarch64 as takes `bti c`, `paciasp` and
// `autiasp` without an -march option (they are HINT-space instructions).
var arm64Asm = &asmArch{
	arch:         regs.ARM64,
	elfMachine:   elf.EM_AARCH64,
	ldEmulation:  "aarch64linux",
	asFlags:      []string{"-EL", "-mabi=lp64"},
	prelude:      arm64Prelude,
	disassembler: func(sym Symbolizer) Disassembler { return arm64Dis{sym: sym} },
	signature:    arm64Signature,
}

// arm64Signature: arch/arm64/kernel/entry-ftrace.S (v4.19-v6.14):
// stp/ldp, adrp, cbz, bti, x0-x30/w0-w30, xzr.
var arm64Signature = &archSignature{name: "arm64",
	mnemonics: []string{"stp", "ldp", "ldr", "str", "stur", "ldur", "adrp", "adr", "adr_l", "ldr_l", "str_l", "mov", "movz", "movk", "bl", "blr", "br", "b", "ret", "cbz", "cbnz", "tbz", "tbnz", "b.eq", "b.ne", "b.lo", "b.hi", "bic", "mrs", "msr", "bti", "paciasp", "autiasp", "hint", "csel", "isb", "sub", "add", "cmp", "nop", "eor", "udiv"},
	regs:      regexp.MustCompile(`\b([xw]([0-9]|[12][0-9]|30)|xzr|wzr)\b`)}

// arm64Prelude: the arm64 part of the prelude (see commonPrelude).
const arm64Prelude = `
#define CONFIG_64BIT 1
#define __aarch64__ 1
/* include/linux/linkage.h: SYM_T_FUNC is STT_FUNC; gas for AArch64 takes
   %function (and @function) */
#undef SYM_T_FUNC
#undef SYM_T_OBJECT
#undef SYM_T_NONE
#define SYM_T_FUNC %function
#define SYM_T_OBJECT %object
#define SYM_T_NONE %notype
/* arch/arm64/include/asm/linkage.h v5.10: with CONFIG_ARM64_BTI_KERNEL
   BTI_C is a landing pad ("hint 34", the encoding of bti c, for old gas)
   and every SYM_FUNC_START* opens with it; SYM_CODE_START is left alone
   (entry-ftrace.S writes its own BTI_C / "bti c" after it). The current
   linkage.h (torvalds/linux master) emits "bti c" in SYM_FUNC_START*
   whatever the options; a kernel model of such an era sets
   CONFIG_ARM64_BTI_KERNEL. */
#ifdef CONFIG_ARM64_BTI_KERNEL
#define BTI_C bti c ;
#define BTI_J bti j ;
#undef SYM_FUNC_LANDING_PAD
#define SYM_FUNC_LANDING_PAD ASM_NL BTI_C
#endif
#undef ENDPROC
#define ENDPROC(name) .type name, %function ASM_NL END(name)
/* arch/arm64/include/asm/alternative.h (v5.10), alternative-macros.h
   (v6.x): the original instructions stay until boot patches them: those
   after alternative_if_not, those after alternative_else of
   alternative_if. */
.macro alternative_if_not cap:req
.if 1
.endm
.macro alternative_if cap:req
.if 0
.endm
.macro alternative_else
.else
.endm
.macro alternative_endif
.endif
.endm
.macro alternative_else_nop_endif
.endif
.endm
/* arch/arm64/include/asm/assembler.h (v5.10, v6.x): PC-relative
   address, load and store of a symbol within +/-4 GB (adrp plus a :lo12:
   offset), the kernel-image forms (not MODULE). */
.macro adr_l, dst, sym
	adrp	\dst, \sym
	add	\dst, \dst, :lo12:\sym
.endm
.macro ldr_l, dst, sym, tmp=
	.ifb	\tmp
	adrp	\dst, \sym
	ldr	\dst, [\dst, :lo12:\sym]
	.else
	adrp	\tmp, \sym
	ldr	\dst, [\tmp, :lo12:\sym]
	.endif
.endm
.macro str_l, src, sym, tmp
	adrp	\tmp, \sym
	str	\src, [\tmp, :lo12:\sym]
.endm
/* asm/assembler.h (v6.x; the bpf-next entry-ftrace.S uses it): this
   CPU's per-cpu offset, tpidr_el1 without VHE (the original of its
   alternative) */
.macro get_this_cpu_offset, dst
	mrs	\dst, tpidr_el1
.endm
/* asm/assembler.h: NOKPROBE(x) adds x to the _kprobe_blacklist section,
   data the tool does not use (commonPrelude defines it empty). */
`

// arm64Dis decodes AArch64 with golang.org/x/arch/arm64/arm64asm.
type arm64Dis struct{ sym Symbolizer }

// arm64Hints names the HINT-space instructions GNU objdump prints by name
// (Arm ARM, "HINT": CRm:op2; binutils opcodes/aarch64-tbl.h).
var arm64Hints = map[uint32]string{
	0: "nop", 1: "yield", 2: "wfe", 3: "wfi", 4: "sev", 5: "sevl", 7: "xpaclri",
	8: "pacia1716", 10: "pacib1716", 12: "autia1716", 14: "autib1716", 16: "esb",
	17: "psb csync", 18: "tsb csync", 20: "csdb", 24: "paciaz", 25: "paciasp",
	26: "pacibz", 27: "pacibsp", 28: "autiaz", 29: "autiasp", 30: "autibz",
	31: "autibsp", 32: "bti", 34: "bti c", 36: "bti j", 38: "bti jc",
}

func (d arm64Dis) Decode(code []byte, pc uint64) (in Inst, err error) {
	defer func() {
		if r := recover(); r != nil {
			in, err = Inst{}, fmt.Errorf("arm64 decoder failed on % x: %v", code, r)
		}
	}()
	if len(code) < 4 {
		return Inst{}, fmt.Errorf("truncated arm64 instruction at %#x (% x): 4 bytes needed", pc, code)
	}
	word := binary.LittleEndian.Uint32(code)
	in = Inst{Addr: pc, Len: 4, Bytes: code[:4]}
	if word>>16 == 0 {
		// UDF #imm16 (the permanently undefined encoding, Arm ARM "UDF").
		in.Op, in.Text, in.MemKnown, in.Flow = "udf", fmt.Sprintf("udf #%d", word&0xffff), true, FlowTrap
		return in, nil
	}
	if word&0xfffff01f == 0xd503201f {
		// HINT #imm: bti, paciasp, autiasp, nop, ... (no memory, no flow).
		imm := word >> 5 & 0x7f
		name, ok := arm64Hints[imm]
		if !ok {
			name = fmt.Sprintf("hint #%#x", imm)
		}
		in.Op, in.Text, in.MemKnown = strings.Fields(name)[0], name, true
		return in, nil
	}
	x, err := decodeARM64(code[:4])
	if err != nil {
		return Inst{}, fmt.Errorf("invalid arm64 instruction at %#x (% x): %v", pc, code[:4], err)
	}
	in.Op = strings.ToLower(x.Op.String())
	in.Text = arm64Text(x, pc, d.sym)
	arm64Facts(&in, x)
	return in, nil
}

var (
	arm64CommaRE = regexp.MustCompile(`,(\S)`)
	arm64MemRE   = regexp.MustCompile(`\[([^\]]*)\]`)
)

// arm64Text is arm64asm's GNU syntax in objdump's spelling: a space after
// every comma, branch and literal targets as "addr <sym+off>".
func arm64Text(x arm64asm.Inst, pc uint64, sym Symbolizer) string {
	t := arm64asm.GNUSyntax(x)
	for i, a := range x.Args {
		if a == nil {
			break
		}
		rel, ok := a.(arm64asm.PCRel)
		if !ok {
			continue
		}
		target := arm64Target(x, pc, rel)
		old := strings.ToLower(a.String())
		if j := strings.LastIndex(t, old); j >= 0 && i >= 0 {
			t = t[:j] + symText(sym, target) + t[j+len(old):]
		}
	}
	t = arm64CommaRE.ReplaceAllString(t, ", $1")
	for enc, name := range arm64SysRegs {
		t = strings.Replace(t, enc, name, 1)
	}
	return strings.TrimSpace(t)
}

// arm64SysRegs names the system registers kernel entry code reads, by
// arm64asm's generic spelling (op0_op1_Cn_Cm_op2; Arm ARM, "System
// registers"), as objdump prints them.
var arm64SysRegs = map[string]string{
	"s3_0_c4_c1_0":  "sp_el0",
	"s3_0_c13_c0_4": "tpidr_el1",
	"s3_4_c13_c0_2": "tpidr_el2",
	"s3_3_c4_c2_1":  "daif",
	"s3_3_c4_c2_0":  "nzcv",
	"s3_0_c4_c2_2":  "currentel",
	"s3_0_c4_c0_0":  "spsr_el1",
	"s3_0_c4_c0_1":  "elr_el1",
}

// arm64Target is the address a PC-relative operand names: adrp's is the
// 4 KB page (Arm ARM, "ADRP").
func arm64Target(x arm64asm.Inst, pc uint64, rel arm64asm.PCRel) uint64 {
	if x.Op == arm64asm.ADRP {
		return pc&^0xfff + uint64(int64(rel))
	}
	return pc + uint64(int64(rel))
}

// arm64RegIndex maps a 64-bit base or index register to its index in
// regs.ARM64 (x0..x30, sp = 31); -2 for a register the tool does not track.
func arm64RegIndex(r arm64asm.Reg) int {
	switch {
	case r >= arm64asm.X0 && r <= arm64asm.X30:
		return int(r - arm64asm.X0)
	case r == arm64asm.SP:
		return regs.ARM64.SP
	}
	return -2
}

// arm64RegBytes is the width of a data register: w 4, x 8, b/h/s/d/q 1..16.
func arm64RegBytes(a arm64asm.Arg) int {
	r, ok := a.(arm64asm.Reg)
	if !ok {
		return 0
	}
	switch {
	case r >= arm64asm.W0 && r <= arm64asm.WZR:
		return 4
	case r >= arm64asm.X0 && r <= arm64asm.XZR:
		return 8
	case r >= arm64asm.B0 && r <= arm64asm.B31:
		return 1
	case r >= arm64asm.H0 && r <= arm64asm.H31:
		return 2
	case r >= arm64asm.S0 && r <= arm64asm.S31:
		return 4
	case r >= arm64asm.D0 && r <= arm64asm.D31:
		return 8
	case r >= arm64asm.Q0 && r <= arm64asm.Q31:
		return 16
	}
	return 0
}

// arm64MemImm returns the immediate of a MemImmediate (arm64asm keeps it
// unexported; its String prints it as #n).
func arm64MemImm(m arm64asm.MemImmediate) (int64, bool) {
	s := m.String()
	i := strings.Index(s, "#")
	if i < 0 {
		return 0, m.Mode == arm64asm.AddrOffset
	}
	j := i + 1
	for j < len(s) && (s[j] == '-' || s[j] >= '0' && s[j] <= '9') {
		j++
	}
	v, err := strconv.ParseInt(s[i+1:j], 10, 64)
	return v, err == nil
}

// decodeARM64 is arm64asm.Decode under xarchDecodeMu.
func decodeARM64(b []byte) (arm64asm.Inst, error) {
	xarchDecodeMu.Lock()
	defer xarchDecodeMu.Unlock()
	return arm64asm.Decode(b)
}
