package mutate

import (
	"regexp"
	"strings"

	"trampemu/harness"
	"trampemu/trampolines"
)

// s390x extended branch mnemonics (z/Architecture Principles of
// Operation, "Branch-Mnemonic Suffixes"): j<cond> (brc), jg<cond> (brcl),
// b<cond>r (bcr); each condition with its negation by a leading "n".
var s390Conds = set("o", "no", "h", "nh", "p", "np", "l", "nl", "m", "nm", "e", "ne", "z", "nz",
	"lh", "nlh", "he", "nhe", "le", "nle")

func init() {
	hooks["s390x"] = &archHooks{
		regClasses: [][]string{
			{"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"},
		},
		register: regexp.MustCompile(`%r[0-9]+`),
		invert: func(m string) string {
			for _, p := range []string{"jg", "j"} {
				if strings.HasPrefix(m, p) {
					if inv := invertCond(m[len(p):], s390Conds); inv != "" {
						return p + inv
					}
					return ""
				}
			}
			if strings.HasPrefix(m, "b") && strings.HasSuffix(m, "r") && len(m) > 2 {
				if inv := invertCond(m[1:len(m)-1], s390Conds); inv != "" {
					return "b" + inv + "r"
				}
			}
			return ""
		},
		branch: func(m string) bool {
			return strings.HasPrefix(m, "j") || strings.HasPrefix(m, "br") || strings.HasPrefix(m, "bas") ||
				strings.HasPrefix(m, "bc") || strings.HasPrefix(m, "b") && strings.HasSuffix(m, "r") || m == "b"
		},
		immediates: func(m string, ops []string) []int {
			var out []int
			for i, o := range ops {
				if i == 0 || strings.Contains(o, "(") || strings.HasPrefix(o, "%") {
					continue
				}
				out = append(out, i)
			}
			return out
		},
		sizeOp: func(m string) bool {
			return strings.HasPrefix(m, "ag") || strings.HasPrefix(m, "sg") || strings.HasPrefix(m, "a") && strings.HasSuffix(m, "i")
		},
		// ftrace_return_to_handler(frame_pointer) (<= v6.4
		// kernel/trace/fgraph.c); s390x prepare_ftrace_return(ra, sp, ip)
		// has none (arch/s390/kernel/ftrace.c).
		framePointerArgs: map[string]int{harness.HostReturnToHandler: 0},
		// After an entry: r0 and r1 (brasl %r0 and the trampoline's
		// scratch). After an exit: r0, r1 and r3-r5, volatile after a
		// return (the s390x ELF ABI, as check's s390xConvention).
		meaningless: map[trampolines.Role][]string{
			trampolines.Entry: {"r0", "r1"},
			trampolines.Exit:  {"r0", "r1", "r3", "r4", "r5"},
		},
		// Bytes 0-71 of the caller's 160-byte area are scratch for the
		// callee (struct stack_frame's unused words; check's
		// s390xConvention allows them).
		scratchAbove: 72,
		dispOpen:     "(%r",
	}
}
