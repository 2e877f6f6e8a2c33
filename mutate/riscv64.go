package mutate

import (
	"regexp"
	"strings"

	"trampemu/trampolines"
)

// riscv64 conditional branches (RISC-V unprivileged ISA, "Conditional
// Branches", and the assembler's pseudo-instructions): each with its
// inverse.
var riscv64BranchInverse = map[string]string{
	"beq": "bne", "bne": "beq", "blt": "bge", "bge": "blt", "bltu": "bgeu", "bgeu": "bltu",
	"beqz": "bnez", "bnez": "beqz", "blez": "bgtz", "bgtz": "blez", "bltz": "bgez", "bgez": "bltz",
	"bgt": "ble", "ble": "bgt", "bgtu": "bleu", "bleu": "bgtu",
}

// riscv64RegNames: the psABI names the kernel's riscv files use (a0-a7,
// ra, sp, gp, tp, s0-s11, t0-t6) and the xN names mcount-dyn.S uses in
// SAVE_ABI_REGS ("REG_S x10, PT_A0(sp)"); zero and fp are not replaced.
// Each class is replaced by the next of its own kind.
var riscv64RegClasses = [][]string{
	{"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7"},
	{"s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11"},
	{"t0", "t1", "t2", "t3", "t4", "t5", "t6"},
	{"ra", "sp", "gp", "tp"},
	{"x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13", "x14", "x15", "x16",
		"x17", "x18", "x19", "x20", "x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28", "x29", "x30", "x31"},
}

func init() {
	hooks["riscv64"] = &archHooks{
		regClasses: riscv64RegClasses,
		register:   regexp.MustCompile(`\b(a[0-7]|s[0-9]|s1[01]|t[0-6]|ra|sp|gp|tp|x([1-9]|[12][0-9]|3[01]))\b`),
		invert:     func(m string) string { return riscv64BranchInverse[m] },
		branch: func(m string) bool {
			switch m {
			case "j", "jal", "jalr", "jr", "ret", "call", "tail":
				return true
			}
			return riscv64BranchInverse[m] != ""
		},
		// An operand that is a plain number or an expression of
		// constants (li, addi, FREGS_SIZE_ON_STACK): not a register, not
		// a memory operand "off(reg)", not a symbol of la/call.
		immediates: func(m string, ops []string) []int {
			var out []int
			if m == "la" || m == "lla" || m == "call" || m == "tail" || riscv64BranchInverse[m] != "" {
				return nil
			}
			for i, o := range ops {
				if i == 0 || strings.Contains(o, "(") || riscv64Reg.MatchString(o) {
					continue
				}
				out = append(out, i)
			}
			return out
		},
		sizeOp: func(m string) bool { return m == "addi" || m == "addiw" },
		// riscv has HAVE_FUNCTION_GRAPH_FP_TEST with frame pointers
		// (arch/riscv/include/asm/ftrace.h), the distribution option the
		// variants are built with: every frame pointer argument is used.
		framePointerArgs: map[string]int{},
		// After an entry: t0-t6 (the call site's t0 and the trampoline's
		// temporaries). After an exit: a2-a7, t0-t6 and ra (psABI: only
		// a0-a1 hold a result; return_to_handler's jalr a2 writes ra), as
		// check's riscv64 convention.
		meaningless: map[trampolines.Role][]string{
			trampolines.Entry: {"t0", "t1", "t2", "t3", "t4", "t5", "t6"},
			trampolines.Exit:  {"a2", "a3", "a4", "a5", "a6", "a7", "t0", "t1", "t2", "t3", "t4", "t5", "t6", "ra"},
		},
		// "off(reg)": the displacement before the parenthesis.
		displace: riscv64Displacements,
	}
}

// riscv64Reg matches an operand that is exactly a register.
var riscv64Reg = regexp.MustCompile(`^(zero|fp|a[0-7]|s[0-9]|s1[01]|t[0-6]|ra|sp|gp|tp|x([0-9]|[12][0-9]|3[01]))$`)

// riscv64Displacements: the offset of each "off(reg)" memory operand
// moved by ±8 ("FREGS_A0(sp)" -> "FREGS_A0+8(sp)"), a bare "(reg)" given
// one ("8(reg)").
func riscv64Displacements(code string) []dispEdit {
	var out []dispEdit
	for off := 0; ; {
		p := strings.IndexByte(code[off:], '(')
		if p < 0 {
			return out
		}
		p += off
		// the operand starts after the last comma or blank before "("
		start := strings.LastIndexAny(code[:p], ", \t") + 1
		if start == p {
			out = append(out, dispEdit{pos: p, plus: "8", minus: "-8"})
		} else {
			out = append(out, dispEdit{pos: p, plus: "+8", minus: "-8"})
		}
		off = p + 1
	}
}
