package asm

import (
	"debug/elf"
	"fmt"
	"regexp"
	"strings"

	"golang.org/x/arch/x86/x86asm"

	"trampemu/regs"
)

// x86Asm: x86-64 objects (EM_X86_64), the kernel's x86 macros and the
// golang.org/x/arch x86asm disassembler.
var x86Asm = &asmArch{
	arch:         regs.X86_64,
	elfMachine:   elf.EM_X86_64,
	ldEmulation:  "elf_x86_64",
	asFlags:      []string{"--64"},
	prelude:      x86Prelude + x86Annotations,
	disassembler: func(sym Symbolizer) Disassembler { return x86Dis{sym: sym} },
	objtool:      true,
	signature:    x86Signature,
}

// x86Signature: arch/x86/kernel/ftrace_64.S (v5.x-v6.x) in AT&T syntax:
// size-suffixed mnemonics, %rax-style registers (the bare %r8-%r15 are
// left out: s390x's %r0-%r15 look the same).
var x86Signature = &archSignature{name: "x86_64",
	mnemonics: []string{"movq", "movl", "pushq", "popq", "leaq", "subq", "addq", "andq", "orq", "xorl", "xorq", "cmpq", "testq", "call", "callq", "ret", "retq", "jmp", "jne", "je", "jnz", "jz", "movabsq", "pushfq", "popfq", "endbr64", "int3", "lea", "push", "pop", "mov", "cmp", "test"},
	regs:      regexp.MustCompile(`%(r[a-d]x|r[sd]i|r[sb]p|rip|e[a-d]x|e[sd]i|r(8|9|1[0-5])[dwb]|[a-d][lh]|[cdefgs]s)\b`)}

// x86Prelude: the x86-64 part of the prelude (see commonPrelude).
const x86Prelude = `
#define CONFIG_X86_64 1
#define CONFIG_64BIT 1
#define __x86_64__ 1
#define RET ret
#define ENDBR endbr64
/* arch/x86/include/asm/linkage.h (v5.18+): with CONFIG_X86_KERNEL_IBT
   every SYM_FUNC_START* opens with ENDBR (asm/ibt.h: endbr64). ENDBR
   written out is endbr64 whatever the options. */
#ifdef CONFIG_X86_KERNEL_IBT
#undef SYM_FUNC_LANDING_PAD
#define SYM_FUNC_LANDING_PAD ASM_NL ENDBR
#endif
/* arch/x86/include/asm/linkage.h: __ALIGN, the alignment of every
   SYM_FUNC_START* and SYM_CODE_START*, is ".balign
   CONFIG_FUNCTION_ALIGNMENT, 0x90" from v6.2 (arch/x86/Kconfig: select
   FUNCTION_ALIGNMENT_16B if X86_64; arch/Kconfig: FUNCTION_ALIGNMENT
   default 16 then; the top Makefile passes the same as
   -falign-functions=$(CONFIG_FUNCTION_ALIGNMENT) to C), and ".p2align 4,
   0x90" under CONFIG_X86_64 before: 16 bytes in every version. The
   prelude keeps the common 4 unless the build defines
   CONFIG_FUNCTION_ALIGNMENT (the native timing defines it as 16, where
   layout matters; the emulated layouts and their golden files keep 4).
   The fill is left to gas, which pads code with NOPs as 0x90 does: the
   prelude's SYM_ENTRY takes no comma in its align argument. */
#ifdef CONFIG_FUNCTION_ALIGNMENT
#undef __ALIGN
#define __ALIGN .balign CONFIG_FUNCTION_ALIGNMENT
#endif
#define _ASM_PTR .quad
/* arch/x86/include/asm/nospec-branch.h: the register is "%rdi" up to
   v5.9 and a bare "rdi" from v5.10 ("x86/retpoline: Simplify retpolines");
   both are taken. The retpoline thunk is the plain indirect branch it
   stands for (the tool runs no speculation). */
.macro __NOSPEC_BRANCH insn:req, reg:req
	.irp r,rax,rbx,rcx,rdx,rsi,rdi,rbp,rsp,r8,r9,r10,r11,r12,r13,r14,r15
	.ifc \reg,\r
	\insn *%\r
	.endif
	.ifc \reg,%\r
	\insn *%\r
	.endif
	.endr
.endm
.macro JMP_NOSPEC reg:req
	__NOSPEC_BRANCH jmp, \reg
.endm
.macro CALL_NOSPEC reg:req
	__NOSPEC_BRANCH call, \reg
.endm
/* arch/x86/include/asm/frame.h: with CONFIG_FRAME_POINTER, rbp points
   one byte past the pt_regs so the unwinder knows a regs frame */
#ifdef CONFIG_FRAME_POINTER
.macro ENCODE_FRAME_POINTER ptregs_offset=0
	leaq 1+\ptregs_offset(%rsp), %rbp
.endm
#else
.macro ENCODE_FRAME_POINTER ptregs_offset=0
.endm
#endif
`

// x86Dis decodes x86-64 with golang.org/x/arch/x86/x86asm.
type x86Dis struct{ sym Symbolizer }

func (d x86Dis) Decode(code []byte, pc uint64) (in Inst, err error) {
	defer func() {
		if r := recover(); r != nil {
			in, err = Inst{}, fmt.Errorf("x86 decoder failed on % x: %v", code, r)
		}
	}()
	// ENDBR64 / ENDBR32 (f3 0f 1e fa/fb): x86asm decodes them as a lone REP.
	if len(code) >= 4 && code[0] == 0xf3 && code[1] == 0x0f && code[2] == 0x1e && (code[3] == 0xfa || code[3] == 0xfb) {
		op := "endbr64"
		if code[3] == 0xfb {
			op = "endbr32"
		}
		return Inst{Addr: pc, Len: 4, Bytes: code[:4], Op: op, Text: op, MemKnown: true}, nil
	}
	x, err := x86asm.Decode(code, 64)
	if err != nil {
		return Inst{}, fmt.Errorf("invalid x86-64 instruction at %#x (% x): %v", pc, prefixBytes(code, 8), err)
	}
	in = Inst{Addr: pc, Len: x.Len, Bytes: code[:x.Len]}
	in.Op = strings.ToLower(x.Op.String())
	var target uint64
	hasTarget := false
	for _, a := range x.Args {
		if r, ok := a.(x86asm.Rel); ok {
			target = pc + uint64(x.Len) + uint64(int64(r))
			hasTarget = true
		}
	}
	in.Text = gnuSuffixes(x86asm.GNUSyntax(x, pc, nil))
	for _, a := range x.Args {
		if m, ok := a.(x86asm.Mem); ok && m.Base == x86asm.RIP && m.Index == 0 {
			// objdump names the rip-relative address in a comment.
			addr := pc + uint64(x.Len) + uint64(m.Disp)
			in.Text += " # " + symText(d.sym, addr)
		}
	}
	if hasTarget {
		// GNU objdump style: "call ffffffff81f00000 <ftrace_stub>".
		fields := strings.Fields(in.Text)
		in.Text = fields[0] + " " + symText(d.sym, target)
		in.Target = target
	}
	x86Facts(&in, x, hasTarget)
	return in, nil
}

// x86RegIndex maps a 64-bit x86asm register to its index in regs.X86_64.
func x86RegIndex(r x86asm.Reg) int {
	if r == 0 {
		return -1
	}
	if i, ok := regs.X86_64.Reg(strings.ToLower(r.String())); ok {
		return i
	}
	return -2 // a register the tool does not track (e.g. 32-bit addressing)
}

// gnuSuffixes drops the operand-size suffixes that x86asm adds and binutils
// 2.40's objdump does not print (callq -> call, pushq %rbp -> push %rbp,
// pushq 0x8(%rsp) -> push 0x8(%rsp), pushq $0x1 -> push $0x1: in 64-bit mode
// push and pop have no other operand size objdump would name).
func gnuSuffixes(t string) string {
	op, rest, _ := strings.Cut(t, " ")
	switch op {
	case "callq", "retq", "jmpq", "leaveq", "pushfq", "popfq", "pushq", "popq":
		op = strings.TrimSuffix(op, "q")
	case "cdqe", "cqo", "cdq", "cwde":
		// AT&T names of the sign extensions of rax (binutils
		// opcodes/i386-dis.c): cltq, cqto, cltd, cwtl.
		op = map[string]string{"cdqe": "cltq", "cqo": "cqto", "cdq": "cltd", "cwde": "cwtl"}[op]
	case "movsxd":
		// movsxd r64, r/m32 is AT&T's movslq (binutils 2.40).
		if reg64RE.MatchString(rest) {
			op = "movslq"
		}
	}
	if rest == "" {
		return op
	}
	return op + " " + rest
}

// reg64RE matches operands whose destination is a 64-bit register.
var reg64RE = regexp.MustCompile(`,%r([a-z]{2}|[89]|1[0-5])$`)

func prefixBytes(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}
