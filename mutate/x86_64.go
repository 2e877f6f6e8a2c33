package mutate

import (
	"regexp"
	"strings"

	"trampemu/harness"
	"trampemu/trampolines"
)

// x86-64 condition codes of jcc (Intel SDM vol. 2, Jcc): each with its
// negation by a leading "n"; pe/po are each other's negation.
var x86Conds = set("o", "no", "b", "nb", "c", "nc", "ae", "nae", "e", "ne", "z", "nz", "be", "nbe",
	"a", "na", "s", "ns", "p", "np", "l", "nl", "ge", "nge", "le", "nle", "g", "ng")

func init() {
	hooks["x86_64"] = &archHooks{
		regClasses: [][]string{
			{"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"},
			{"eax", "ebx", "ecx", "edx", "esi", "edi", "ebp", "esp", "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d"},
		},
		register: regexp.MustCompile(`%[a-z][a-z0-9]*`),
		invert: func(m string) string {
			if !strings.HasPrefix(m, "j") || m == "jmp" {
				return ""
			}
			switch c := m[1:]; c {
			case "pe":
				return "jpo"
			case "po":
				return "jpe"
			default:
				if inv := invertCond(c, x86Conds); inv != "" {
					return "j" + inv
				}
			}
			return ""
		},
		branch: func(m string) bool {
			return strings.HasPrefix(m, "j") || strings.HasPrefix(m, "call") || strings.HasPrefix(m, "ret")
		},
		immediates: func(m string, ops []string) []int {
			var out []int
			for i, o := range ops {
				if strings.HasPrefix(o, "$") {
					out = append(out, i)
				}
			}
			return out
		},
		sizeOp: func(m string) bool {
			return strings.HasPrefix(m, "add") || strings.HasPrefix(m, "sub")
		},
		// prepare_ftrace_return(self_addr, parent, frame_pointer) (v5.10
		// arch/x86/kernel/ftrace.c); ftrace_return_to_handler(frame_pointer)
		// (<= v6.4 kernel/trace/fgraph.c).
		framePointerArgs: map[string]int{harness.HostPrepareFtraceRet: 2, harness.HostReturnToHandler: 0},
		// After an entry: r10 and r11 are scratch (neither arguments nor
		// rax; check keeps r10 when the callbacks had full pt_regs). After
		// an exit: every volatile register but rax and rdx (the SysV ABI,
		// as check's x86Convention).
		meaningless: map[trampolines.Role][]string{
			trampolines.Entry: {"r10", "r11"},
			trampolines.Exit:  {"rcx", "rsi", "rdi", "r8", "r9", "r10", "r11"},
		},
		dispOpen: "(%",
	}
}
