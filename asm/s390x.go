package asm

import (
	"debug/elf"
	"fmt"
	"regexp"
	"strings"

	"golang.org/x/arch/s390x/s390xasm"

	"trampemu/regs"
)

// s390Asm: s390x objects (EM_S390), the kernel's s390 macros and the
// golang.org/x/arch s390xasm disassembler.
var s390Asm = &asmArch{
	arch:         regs.S390X,
	elfMachine:   elf.EM_S390,
	ldEmulation:  "elf64_s390",
	asFlags:      []string{"-m64"},
	prelude:      s390xPrelude,
	disassembler: func(sym Symbolizer) Disassembler { return s390xDis{sym: sym} },
	signature:    s390xSignature,
}

// s390xSignature: arch/s390/kernel/mcount.S (v4.19-v6.14): stmg/lmg,
// lgr, aghi, brasl, larl, %r0-%r15.
var s390xSignature = &archSignature{name: "s390x",
	mnemonics: []string{"stmg", "lmg", "lgr", "lg", "stg", "aghi", "agr", "sgr", "la", "lay", "larl", "brasl", "bras", "basr", "br", "bcr", "brcl", "jg", "jgnz", "jgz", "lghi", "llilh", "lgfi", "ltgr", "ltg", "cgr", "clg", "clgr", "xgr", "ngr", "ogr", "mvc", "xc", "exrl", "ex", "srlg", "sllg", "stck", "br_ex", "larl", "lpswe", "epsw", "oi", "ni", "tm", "tmll", "lmg", "stmg"},
	regs:      regexp.MustCompile(`%r([0-9]|1[0-5])\b|%f([0-9]|1[0-5])\b`)}

// s390xPrelude: the s390x part of the prelude (see commonPrelude).
const s390xPrelude = `
#define CONFIG_64BIT 1
#define __s390x__ 1
#define __s390__ 1
#define EX_TABLE(from, to)
/* arch/s390/include/asm/march.h (v6.10+) */
#if defined(CONFIG_HAVE_MARCH_Z196_FEATURES) && !defined(MARCH_HAS_Z196_FEATURES)
#define MARCH_HAS_Z196_FEATURES 1
#endif
/* arch/s390/include/asm/ftrace.h (v4.x): the mcount call's return offset
   without -mhotpatch */
#define MCOUNT_RETURN_FIXUP 18
.macro BR_EX reg:req, rest:vararg
	br \reg
.endm
.macro BASR_EX rsave:req, rtarget:req
	basr \rsave,\rtarget
.endm
.macro B_EX reg:req, rest:vararg
	br \reg
.endm
.macro GEN_BR_THUNK args:vararg
.endm
`

// s390xDis decodes s390x with golang.org/x/arch/s390x/s390xasm.
type s390xDis struct{ sym Symbolizer }

// s390x instruction lengths from the first two opcode bits (z/Architecture
// Principles of Operation, "Instruction formats").
func s390xLen(b byte) int {
	switch b >> 6 {
	case 0:
		return 2
	case 3:
		return 6
	}
	return 4
}

func (d s390xDis) Decode(code []byte, pc uint64) (in Inst, err error) {
	defer func() {
		if r := recover(); r != nil {
			in, err = Inst{}, fmt.Errorf("s390x decoder failed on % x: %v", code, r)
		}
	}()
	if len(code) < 2 {
		return Inst{}, fmt.Errorf("truncated s390x instruction at %#x (% x)", pc, code)
	}
	n := s390xLen(code[0])
	if len(code) < n {
		return Inst{}, fmt.Errorf("truncated s390x instruction at %#x: %d of %d bytes (% x)", pc, len(code), n, code)
	}
	// s390xasm reads 6 bytes whatever the length: pad.
	var buf [8]byte
	copy(buf[:], code[:n])
	if code[0] == 0 && code[1] == 0 {
		return Inst{Addr: pc, Len: 2, Bytes: code[:2], Op: ".short", Text: ".short 0x0000", MemKnown: true, Flow: FlowTrap}, nil
	}
	xarchDecodeMu.Lock()
	x, err := s390xasm.Decode(buf[:])
	xarchDecodeMu.Unlock()
	if err != nil || x.Len != n || x.Op == 0 {
		return Inst{}, fmt.Errorf("invalid s390x instruction at %#x (% x)", pc, code[:n])
	}
	in = Inst{Addr: pc, Len: n, Bytes: code[:n]}
	in.Text = s390xasm.GNUSyntax(x, pc)
	if n == 4 && strings.HasPrefix(in.Text, "nopr") {
		// s390xasm names bc with mask 0 "nopr" like the 2-byte bcr 0; GNU
		// (and the assembler, which would emit 2 bytes for nopr) call the
		// 4-byte form "nop".
		in.Text = "nop" + strings.TrimPrefix(in.Text, "nopr")
	}
	if in.Text == "nopr %r0" {
		// bcr 0,%r0: objdump prints the bare mnemonic.
		in.Text = "nopr"
	}
	in.Op = strings.Fields(in.Text)[0]
	s390xFacts(&in, x, d.sym)
	return in, nil
}
