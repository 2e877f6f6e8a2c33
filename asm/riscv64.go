package asm

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"regexp"
	"strings"

	"golang.org/x/arch/riscv64/riscv64asm"

	"trampemu/regs"
)

// riscv64Asm: RV64 objects (EM_RISCV, GNU ld's elf64lriscv emulation),
// the kernel's riscv macros and the golang.org/x/arch riscv64asm
// disassembler. regs.RISCV64.AsFlags carry the kernel's -march/-mabi and
// -mno-relax (arch/riscv/Makefile).
var riscv64Asm = &asmArch{
	arch:         regs.RISCV64,
	elfMachine:   elf.EM_RISCV,
	ldEmulation:  "elf64lriscv",
	prelude:      riscv64Prelude,
	disassembler: func(sym Symbolizer) Disassembler { return riscv64Dis{sym: sym} },
}

// riscv64Prelude: the riscv64 part of the prelude (see commonPrelude).
const riscv64Prelude = `
#define CONFIG_64BIT 1
#define __riscv 1
#define __riscv_xlen 64
/* arch/riscv/include/asm/asm.h (v6.x), RV64: */
#define __REG_SEL(a, b) a
#define REG_L ld
#define REG_S sd
#define REG_SC sc.d
#define REG_AMOSWAP_AQ amoswap.d.aq
#define REG_ASM .dword
#define SZREG 8
#define LGREG 3
#define RISCV_PTR .dword
#define RISCV_SZPTR 8
#define RISCV_LGPTR 3
#define RISCV_INT .word
#define RISCV_SZINT 4
#define RISCV_LGINT 2
#define RISCV_SHORT .half
#define RISCV_SZSHORT 2
#define RISCV_LGSHORT 1
/* arch/riscv/include/asm/ftrace.h: "The graph frame test is not possible
   if CONFIG_FRAME_POINTER is not enabled." */
#if defined(CONFIG_FUNCTION_GRAPH_TRACER) && defined(CONFIG_FRAME_POINTER)
#define HAVE_FUNCTION_GRAPH_FP_TEST
#endif
/* arch/riscv/include/asm/linkage.h: __ALIGN .balign 4, the commonPrelude
   one; include/linux/cfi_types.h without CONFIG_CFI_CLANG:
   SYM_TYPED_FUNC_START is SYM_FUNC_START (commonPrelude) */
/* arch/riscv/include/asm/ftrace.h (v4.16-v6.19): MCOUNT_NAME is _mcount
   for gcc (and clang >= 13) */
#define MCOUNT_NAME _mcount
/* arch/riscv/include/asm/asm.h (v6.5+, "riscv: entry: Consolidate general
   regs saving/restoring"): x6-x31 to or from their pt_regs slots at sp,
   as mcount-dyn.S's SAVE_ALL of v6.5-v6.7 uses them */
	.macro save_from_x6_to_x31
	.irp n, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31
	REG_S x\n, (\n * SZREG)(sp)
	.endr
	.endm
	.macro restore_from_x6_to_x31
	.irp n, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31
	REG_L x\n, (\n * SZREG)(sp)
	.endr
	.endm
`

// riscv64Dis decodes RV64 with golang.org/x/arch/riscv64/riscv64asm and
// prints objdump's text (ABI register names, "addr <sym+off>" targets).
type riscv64Dis struct{ sym Symbolizer }

// riscv64ABINames are the psABI names of x0..x31 (riscv-elf-psabi-doc
// riscv-cc.adoc), the names GNU objdump prints.
var riscv64ABINames = [32]string{"zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2",
	"s0", "s1", "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7",
	"s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6"}

// riscv64XRE matches riscv64asm's xN register spelling.
var riscv64XRE = regexp.MustCompile(`\bx([0-9]|[12][0-9]|3[01])\b`)

func (d riscv64Dis) Decode(code []byte, pc uint64) (in Inst, err error) {
	defer func() {
		if r := recover(); r != nil {
			in, err = Inst{}, fmt.Errorf("riscv64 decoder failed on % x: %v", code, r)
		}
	}()
	if len(code) < 2 {
		return Inst{}, fmt.Errorf("truncated riscv64 instruction at %#x (% x): 2 bytes needed", pc, code)
	}
	if code[0]&3 == 3 && len(code) < 4 {
		return Inst{}, fmt.Errorf("truncated riscv64 instruction at %#x (% x): 4 bytes needed", pc, code)
	}
	if code[0] == 0 && code[1] == 0 {
		// The all-zero halfword is defined illegal (RISC-V unprivileged
		// ISA, "Base Instruction-Length Encoding"): objdump ".2byte 0x0".
		return Inst{Addr: pc, Len: 2, Bytes: code[:2], Op: "unimp", Text: "unimp", MemKnown: true, Flow: FlowTrap}, nil
	}
	if code[0]&3 == 3 {
		w := binary.LittleEndian.Uint32(code)
		switch w {
		case 0x30200073: // mret (privileged spec, "Trap-Return Instructions")
			return Inst{Addr: pc, Len: 4, Bytes: code[:4], Op: "mret", Text: "mret", MemKnown: true, Flow: FlowReturn}, nil
		case 0x10200073: // sret
			return Inst{Addr: pc, Len: 4, Bytes: code[:4], Op: "sret", Text: "sret", MemKnown: true, Flow: FlowReturn}, nil
		case 0x10500073: // wfi
			return Inst{Addr: pc, Len: 4, Bytes: code[:4], Op: "wfi", Text: "wfi", MemKnown: true}, nil
		}
	}
	x, err := decodeRISCV64(code)
	if err != nil {
		n := 4
		if code[0]&3 != 3 {
			n = 2
		}
		return Inst{}, fmt.Errorf("invalid riscv64 instruction at %#x (% x): %v", pc, code[:n], err)
	}
	in = Inst{Addr: pc, Len: x.Len, Bytes: code[:x.Len]}
	in.Op = strings.ToLower(x.Op.String())
	riscv64Facts(&in, x)
	in.Text = riscv64Text(x, pc, in, d.sym)
	return in, nil
}

// riscv64Text is riscv64asm's GNU syntax in objdump's spelling: ABI
// register names, branch and jump targets as "addr <sym+off>".
func riscv64Text(x riscv64asm.Inst, pc uint64, in Inst, sym Symbolizer) string {
	t := riscv64asm.GNUSyntax(x)
	t = riscv64XRE.ReplaceAllStringFunc(t, func(s string) string {
		var n int
		fmt.Sscanf(s[1:], "%d", &n)
		return riscv64ABINames[n]
	})
	if x.Op == riscv64asm.JALR {
		// objdump's jalr spellings (binutils 2.40 riscv-dis.c): "jalr
		// off(rs)" when rd is ra, "jalr rd,rs" for a zero offset.
		rd := x.Args[0].(riscv64asm.Reg)
		t := x.Args[1].(riscv64asm.RegOffset)
		rs := riscv64ABINames[t.OfsReg-riscv64asm.X0]
		switch {
		case rd == riscv64asm.X0:
		case rd == riscv64asm.X1 && t.Ofs.Imm != 0:
			return fmt.Sprintf("jalr %d(%s)", t.Ofs.Imm, rs)
		case rd != riscv64asm.X1 && t.Ofs.Imm == 0:
			return fmt.Sprintf("jalr %s,%s", riscv64ABINames[rd-riscv64asm.X0], rs)
		}
	}
	if in.Flow == FlowCall || in.Flow == FlowJump || in.Flow == FlowCondJump {
		// The offset is the last operand: replace it by the target.
		if i := strings.LastIndexAny(t, ", "); i >= 0 {
			t = t[:i+1] + symText(sym, in.Target)
		}
	}
	return strings.TrimSpace(t)
}

// decodeRISCV64 is riscv64asm.Decode under xarchDecodeMu (it records
// matched table entries in a package-level slice, decoderCover).
func decodeRISCV64(b []byte) (riscv64asm.Inst, error) {
	xarchDecodeMu.Lock()
	defer xarchDecodeMu.Unlock()
	return riscv64asm.Decode(b)
}

// riscv64RegIndex maps an integer register to its index in regs.RISCV64
// (-1 for x0, which reads as zero; -2 for any other register).
func riscv64RegIndex(r riscv64asm.Reg) int {
	if r < riscv64asm.X0 || r > riscv64asm.X31 {
		return -2
	}
	n := int(r - riscv64asm.X0)
	if n == 0 {
		return -1
	}
	for i := range regs.RISCV64.Regs {
		if regs.RISCV64GPR(i) == n {
			return i
		}
	}
	return -2
}
