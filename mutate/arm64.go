package mutate

import (
	"fmt"
	"regexp"
	"strings"

	"trampemu/trampolines"
)

// arm64 condition codes of b.<cond> (Arm ARM C1.2.4, "Condition code"):
// each with its inverse (cs = hs, cc = lo).
var arm64CondInverse = map[string]string{
	"eq": "ne", "ne": "eq", "cs": "cc", "cc": "cs", "hs": "lo", "lo": "hs",
	"mi": "pl", "pl": "mi", "vs": "vc", "vc": "vs", "hi": "ls", "ls": "hi",
	"ge": "lt", "lt": "ge", "gt": "le", "le": "gt",
}

// arm64Regs: x0-x30 and w0-w30 (GNU as, AArch64); sp, fp, lr, xzr and wzr
// are not replaced (a replacement by the next general register rarely
// assembles for sp, and the aliases are rare in entry-ftrace.S).
func arm64Regs(prefix string) []string {
	out := make([]string, 31)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return out
}

// arm64Shift matches an operand that is a shift or extend ("lsl #12",
// "uxtw #2"): its amount is not an immediate to move.
var arm64Shift = regexp.MustCompile(`^(lsl|lsr|asr|ror|msl|[us]xt[bhwx])\b`)

func init() {
	hooks["arm64"] = &archHooks{
		regClasses: [][]string{arm64Regs("x"), arm64Regs("w")},
		register:   regexp.MustCompile(`\b[xw]([12]?[0-9]|30)\b`),
		invert: func(m string) string {
			if c, ok := strings.CutPrefix(m, "b."); ok {
				if inv := arm64CondInverse[c]; inv != "" {
					return "b." + inv
				}
				return ""
			}
			switch m {
			case "cbz":
				return "cbnz"
			case "cbnz":
				return "cbz"
			case "tbz":
				return "tbnz"
			case "tbnz":
				return "tbz"
			}
			return ""
		},
		branch: func(m string) bool {
			switch m {
			case "b", "bl", "br", "blr", "ret", "cbz", "cbnz", "tbz", "tbnz", "braa", "blraa", "retaa":
				return true
			}
			return strings.HasPrefix(m, "b.")
		},
		immediates: func(m string, ops []string) []int {
			var out []int
			for i, o := range ops {
				if strings.HasPrefix(o, "#") && !strings.Contains(o, "[") {
					out = append(out, i)
				}
			}
			return out
		},
		sizeOp: func(m string) bool {
			return m == "add" || m == "sub" || m == "adds" || m == "subs"
		},
		// arm64 has HAVE_FUNCTION_GRAPH_FP_TEST (arch/arm64/include/asm/ftrace.h):
		// the kernel compares prepare_ftrace_return's and
		// ftrace_return_to_handler's frame pointers, so none is unused.
		framePointerArgs: map[string]int{},
		// After an entry: x9-x17 (the call site's mov x9, x30 and the
		// trampoline's temporaries; entry-ftrace.S: "x9-x17 are free").
		// After an exit: x8-x17 and x30 (AAPCS64: only x0-x7 may hold
		// results, which return_to_handler keeps; x30 is the caller's
		// scratch once it has returned), as check's arm64 convention.
		meaningless: map[trampolines.Role][]string{
			trampolines.Entry: {"x9", "x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17"},
			trampolines.Exit:  {"x8", "x9", "x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17", "x30"},
		},
		displace: arm64Displacements,
	}
}

// arm64Displacements: the offset of each [base, #imm] (and [base, #imm]!)
// memory operand moved by ±8, and a bare [base] given one ("[x1, #8]").
// Post-index writebacks ("[sp], #16") are immediates, and register offsets
// ("[x0, x1, lsl #3]") have no displacement.
func arm64Displacements(code string) []dispEdit {
	var out []dispEdit
	for off := 0; ; {
		open := strings.IndexByte(code[off:], '[')
		if open < 0 {
			return out
		}
		open += off
		end := strings.IndexByte(code[open:], ']')
		if end < 0 {
			return out
		}
		end += open
		inside := code[open+1 : end]
		switch parts := strings.Split(inside, ","); {
		case len(parts) == 1 && strings.HasPrefix(strings.TrimSpace(code[end+1:]), ","):
			// post-index: the writeback is the immediate after the bracket
		case len(parts) == 1:
			out = append(out, dispEdit{pos: end, plus: ", #8", minus: ", #-8"})
		case len(parts) == 2 && strings.HasPrefix(strings.TrimSpace(parts[1]), "#"):
			out = append(out, dispEdit{pos: end, plus: "+8", minus: "-8"})
		}
		off = end + 1
	}
}
