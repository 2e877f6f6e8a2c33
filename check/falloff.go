package check

import (
	"fmt"
	"slices"

	"trampemu/asm"
	"trampemu/emu"
)

// Falling off the end: a trampoline's code is its sized symbols (the
// SYM_FUNC_END / SYM_CODE_END of each function and code block of the
// trampoline's source). Control that leaves one by running on past its
// last instruction, into padding, the next symbol or anything else, left
// its own code without a branch: the verdict would depend on what the
// linker happened to place next (x86-64: ftrace_stub's ret after a
// return_to_handler without its RET). It is a control error, whatever
// happens next.

// fallOff is one symbol of the unit control ran off the end of: its
// last instruction and where control went.
type fallOff struct {
	Symbol string
	Last   asm.Inst // the symbol's last instruction
	End    uint64   // the first address past the symbol
	Next   string   // the instruction there ("?" when none decodes)
}

// fallsThrough reports whether control can go on to the next instruction
// after in (everything but an unconditional jump, a return or a trap).
func fallsThrough(f asm.Flow) bool {
	switch f {
	case asm.FlowJump, asm.FlowIndirectJump, asm.FlowReturn, asm.FlowTrap:
		return false
	}
	return true
}

// fallOffs finds the sized symbols inside u whose last instruction ran,
// does not branch away (no unconditional jump, return or trap), and was
// followed by code at the address past the symbol: an executed block
// holds it, or a run stopped there (stops: the pcs of the runs that
// faulted; an invalid instruction ends Unicorn's block before it).
func fallOffs(im *asm.Image, blocks []emu.Block, u asm.Unit, stops []uint64) []fallOff {
	ran := func(addr uint64) bool {
		if slices.Contains(stops, addr) {
			return true
		}
		for _, b := range blocks {
			if b.Count > 0 && addr >= b.Addr && addr < b.Addr+uint64(b.Size) {
				return true
			}
		}
		return false
	}
	d := asm.ForImage(im)
	var out []fallOff
	for _, s := range im.Symbols {
		if s.Size == 0 || !u.Contains(s.Addr) {
			continue
		}
		end := s.Addr + s.Size
		ins, err := asm.Listing(im, d, s.Addr, end)
		if err != nil || len(ins) == 0 {
			continue
		}
		last := ins[len(ins)-1]
		if last.Addr+uint64(last.Len) != end || !fallsThrough(last.Flow) || !ran(last.Addr) || !ran(end) {
			continue
		}
		out = append(out, fallOff{Symbol: s.Name, Last: last, End: end, Next: insnText(im, end)})
	}
	return out
}

// fellOff adds the control finding of each symbol control ran off.
func (z *analyzer) fellOff(fs []fallOff) {
	for _, f := range fs {
		z.col.add(Control, "", "", fmt.Sprintf("%s ran off the end of %s: control fell through its last instruction into %s",
			z.roleName(), f.Symbol, z.where(f.End)),
			fmt.Sprintf("%s: %s, then %s: %s", z.where(f.Last.Addr), f.Last.Text, z.where(f.End), f.Next))
	}
}
