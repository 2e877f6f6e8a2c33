package mutate

import (
	"fmt"
	"regexp"
	"strings"

	"trampemu/trampolines"
)

// A64 condition codes of b.<cond> (Arm ARM, "Condition codes"), each with
// its inverse (the condition with bit 0 flipped); hs/lo are cs/cc.
var arm64Inverse = map[string]string{
	"eq": "ne", "ne": "eq", "cs": "cc", "cc": "cs", "hs": "lo", "lo": "hs", "mi": "pl", "pl": "mi",
	"vs": "vc", "vc": "vs", "hi": "ls", "ls": "hi", "ge": "lt", "lt": "ge", "gt": "le", "le": "gt",
}

// arm64Regs returns prefix0 .. prefix30.
func arm64Regs(prefix string) []string {
	out := make([]string, 31)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return out
}

func init() {
	hooks["arm64"] = &archHooks{
		// x0-x30 and their 32-bit halves w0-w30; sp, xzr and wzr are not
		// general registers of the class (register 31 means one or the
		// other by instruction).
		regClasses: [][]string{arm64Regs("x"), arm64Regs("w")},
		register:   regexp.MustCompile(`\b[xw](?:30|[12][0-9]|[0-9])\b`),
		invert: func(m string) string {
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
			if c, ok := strings.CutPrefix(m, "b."); ok {
				if inv := arm64Inverse[c]; inv != "" {
					return "b." + inv
				}
			}
			return ""
		},
		branch: func(m string) bool {
			switch m {
			case "b", "bl", "br", "blr", "ret", "cbz", "cbnz", "tbz", "tbnz", "eret":
				return true
			}
			return strings.HasPrefix(m, "b.")
		},
		// "#n" operands outside a memory operand ("[x11, #-16]" moves as a
		// displacement; a shift "lsl #16" is not an operand of its own).
		immediates: func(m string, ops []string) []int {
			var out []int
			for i, o := range ops {
				if strings.HasPrefix(o, "#") {
					out = append(out, i)
				}
			}
			return out
		},
		sizeOp: func(m string) bool { return m == "add" || m == "sub" || m == "adds" || m == "subs" },
		// arm64 has HAVE_FUNCTION_GRAPH_FP_TEST (arch/arm64/include/asm/ftrace.h):
		// ftrace_return_to_handler's frame pointer (<= v6.4) and
		// prepare_ftrace_return's (the retp, arch/arm64/kernel/ftrace.c)
		// are used, so neither is exempt.
		framePointerArgs: map[string]int{},
		// After an entry: x9-x17 ("x9-x17 are safe to clobber",
		// arch/arm64/kernel/entry-ftrace.S); x30 must be the saved lr.
		// After an exit: x8-x17 (AAPCS64: x0-x7 may carry the result, x8
		// is the indirect result address only at the call).
		meaningless: map[trampolines.Role][]string{
			trampolines.Entry: {"x9", "x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17"},
			trampolines.Exit:  {"x8", "x9", "x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17"},
		},
		// No red zone and no scratch area above sp (AAPCS64).
		scratchAbove: 0,
		dispOpen:     "[",
		dispClose:    "]",
	}
}
