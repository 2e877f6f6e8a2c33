package check

import (
	"slices"

	"trampemu/asm"
	"trampemu/emu"
)

// The runner's side of the counters: package emu's block counts, read
// after a run, turned into the plain data the analysis takes.

// unitCost sums the static facts of the executed blocks inside unit, each
// weighted by its execution count (the counts kept in C by emu).
func unitCost(im *asm.Image, blocks []emu.Block, u asm.Unit) (m Metrics, unknown []string) {
	d := asm.ForImage(im)
	for _, b := range blocks {
		if b.Count == 0 || !u.Contains(b.Addr) {
			continue
		}
		ins, err := asm.Listing(im, d, b.Addr, b.Addr+uint64(b.Size))
		if err != nil {
			unknown = append(unknown, err.Error())
		}
		c := float64(b.Count)
		for _, in := range ins {
			m.Instructions += c
			m.Loads += c * float64(in.Loads)
			m.Stores += c * float64(in.Stores)
			m.LoadBytes += c * float64(in.LoadBytes)
			m.StoreBytes += c * float64(in.StoreBytes)
			if !in.MemKnown {
				unknown = append(unknown, im.Describe(in.Addr)+": "+in.Text)
			}
		}
	}
	return m, unknown
}

// per divides the totals by the number of trampoline runs.
func (m Metrics) per(n uint64) Metrics {
	if n == 0 {
		return m
	}
	f := float64(n)
	m.Instructions /= f
	m.Loads /= f
	m.Stores /= f
	m.LoadBytes /= f
	m.StoreBytes /= f
	m.Calls = n
	return m
}

// executedBoundaries lists the instructions inside u of the blocks that
// ran (from the C block counts): the boundaries the interrupt model must
// visit.
func executedBoundaries(im *asm.Image, blocks []emu.Block, u asm.Unit) []uint64 {
	d := asm.ForImage(im)
	var out []uint64
	for _, b := range blocks {
		if b.Count == 0 || !u.Contains(b.Addr) {
			continue
		}
		ins, _ := asm.Listing(im, d, b.Addr, b.Addr+uint64(b.Size))
		for _, in := range ins {
			out = append(out, in.Addr)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// unknownExecuted returns the instructions of unknown that lie in a block
// that ran.
func unknownExecuted(unknown []asm.Inst, blocks []emu.Block) []asm.Inst {
	var out []asm.Inst
	for _, in := range unknown {
		for _, b := range blocks {
			if b.Count > 0 && in.Addr >= b.Addr && in.Addr < b.Addr+uint64(b.Size) {
				out = append(out, in)
				break
			}
		}
	}
	return out
}

// insnText disassembles the instruction at pc ("?" when it cannot).
func insnText(im *asm.Image, pc uint64) string {
	in, err := asm.ForImage(im).Decode(im.Bytes(pc, 16), pc)
	if err != nil {
		return "?"
	}
	return in.Text
}

// UnitCost is the block-counter cost of every executed instruction of u
// (block counts times the disassembler's facts), totals over the run; the
// caller divides by its number of runs. unknown lists instructions without
// memory facts.
func UnitCost(im *asm.Image, blocks []emu.Block, u asm.Unit) (m Metrics, unknown []string) {
	return unitCost(im, blocks, u)
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
