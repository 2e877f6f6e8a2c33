package mutate

import (
	"regexp"
	"strings"

	"trampemu/trampolines"
)

// archHooks are the per-arch facts the mutations need (x86_64.go,
// s390x.go, arm64.go).
type archHooks struct {
	// regClasses are the general registers by width, in the order a
	// replacement takes (each register is replaced by the next of its
	// class).
	regClasses [][]string
	// register matches a register operand ("%rax", "%r15", "x9").
	register *regexp.Regexp
	// invert returns the mnemonic of the inverted conditional branch, or
	// "" when m is not a conditional branch.
	invert func(m string) string
	// branch reports whether m transfers control (its target operand is
	// not an immediate to move).
	branch func(m string) bool
	// immediate returns the operand indices (0-based) of op's operands that
	// are immediates to move by ±8.
	immediates func(m string, ops []string) []int
	// sizeOp reports whether m's immediates are sizes (they move by ±1 too).
	sizeOp func(m string) bool
	// framePointerArgs: host function -> index of its frame_pointer
	// argument (ftrace_return_to_handler's only with the legacy ABI),
	// which the kernel does not use without HAVE_FUNCTION_GRAPH_FP_TEST.
	framePointerArgs map[string]int
	// meaningless are the registers with no meaning after a trampoline of
	// each role (the ABI lets them hold anything): not observed.
	meaningless map[trampolines.Role][]string
	// scratchAbove is the bytes [0, scratchAbove) above the entry sp that a
	// trampoline may use as scratch and that mean nothing after it: not
	// observed.
	scratchAbove int
	// dispOpen is the text that follows a displacement: "(%" on x86-64,
	// "(%r" on s390x.
	dispOpen string
	// displace, when set, replaces dispOpen: the displacement edits of
	// an instruction's code (arm64: "[sp, #16]" -> "[sp, #16+8]").
	displace func(code string) []dispEdit
}

// dispEdit is one displacement mutation: plus or minus inserted at pos.
type dispEdit struct {
	pos         int
	plus, minus string
}

// displacements lists the displacement edits of code.
func (h *archHooks) displacements(code string) []dispEdit {
	if h.displace != nil {
		return h.displace(code)
	}
	var out []dispEdit
	for off := 0; ; {
		p := strings.Index(code[off:], h.dispOpen)
		if p < 0 {
			return out
		}
		p += off
		out = append(out, dispEdit{pos: p, plus: "+8", minus: "-8"})
		off = p + len(h.dispOpen)
	}
}

var hooks = map[string]*archHooks{}

// replacement returns the register that replaces r (with r's '%', if
// any), or "".
func (h *archHooks) replacement(r string) string {
	name := strings.TrimPrefix(r, "%")
	prefix := r[:len(r)-len(name)]
	for _, cl := range h.regClasses {
		for i, n := range cl {
			if n == name {
				return prefix + cl[(i+1)%len(cl)]
			}
		}
	}
	return ""
}

// invertCond toggles a leading "n" of a condition code suffix, within the
// conditions valid for the arch (both forms must exist).
func invertCond(cond string, valid map[string]bool) string {
	var inv string
	if strings.HasPrefix(cond, "n") {
		inv = cond[1:]
	} else {
		inv = "n" + cond
	}
	if valid[cond] && valid[inv] {
		return inv
	}
	return ""
}

func set(words ...string) map[string]bool {
	m := map[string]bool{}
	for _, w := range words {
		m[w] = true
	}
	return m
}
