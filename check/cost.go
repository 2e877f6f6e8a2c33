package check

import (
	"trampemu/asm"
	"trampemu/emu"
)

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
