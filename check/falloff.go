package check

import (
	"fmt"

	"trampemu/asm"
)

// Falling off the end: a trampoline's code is its sized symbols (the
// SYM_FUNC_END / SYM_CODE_END of each function and code block of the
// trampoline's source). Control that leaves one by running on past its
// last instruction, into padding, the next symbol or anything else, left
// its own code without a branch: the verdict would depend on what the
// linker happened to place next (x86-64: ftrace_stub's ret after a
// return_to_handler without its RET). It is a control error, whatever
// happens next.

// The runner finds them (fallOffs, cost.go, from the block counts); the
// analysis turns them into findings.

// fallOff is one symbol of the unit control ran off the end of: its
// last instruction and where control went.
type fallOff struct {
	Symbol string
	Last   asm.Inst // the symbol's last instruction
	End    uint64   // the first address past the symbol
	Next   string   // the instruction there ("?" when none decodes)
}

// fellOff adds the control finding of each symbol control ran off.
func (z *analyzer) fellOff(fs []fallOff) {
	for _, f := range fs {
		z.col.add(Control, "", "", fmt.Sprintf("%s ran off the end of %s: control fell through its last instruction into %s",
			z.roleName(), f.Symbol, z.where(f.End)),
			fmt.Sprintf("%s: %s, then %s: %s", z.where(f.Last.Addr), f.Last.Text, z.where(f.End), f.Next))
	}
}
