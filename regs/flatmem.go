package regs

import "fmt"

// FlatMemory is a Memory over Go byte slices, for testing the Go kernel
// stand-ins without an emulator. Accesses outside its regions read zero,
// drop writes, and are recorded in Faults.
type FlatMemory struct {
	Arch    *Arch
	regions []flatRegion
	Faults  []string
}

type flatRegion struct {
	base uint64
	mem  []byte
}

// NewFlatMemory backs each region with zeroed memory.
func NewFlatMemory(a *Arch, rs ...Region) *FlatMemory {
	m := &FlatMemory{Arch: a}
	for _, r := range rs {
		m.regions = append(m.regions, flatRegion{r.Base, make([]byte, r.Size)})
	}
	return m
}

func (m *FlatMemory) span(addr uint64, n int, write bool) []byte {
	for _, r := range m.regions {
		off := addr - r.base
		if addr >= r.base && off+uint64(n) <= uint64(len(r.mem)) && off+uint64(n) >= off {
			return r.mem[off : off+uint64(n)]
		}
	}
	op := "read"
	if write {
		op = "write"
	}
	m.Faults = append(m.Faults, fmt.Sprintf("%s of %d bytes at %#x", op, n, addr))
	return nil
}

// ReadWord implements Memory.
func (m *FlatMemory) ReadWord(addr uint64) uint64 {
	if b := m.span(addr, 8, false); b != nil {
		return m.Arch.ByteOrder.Uint64(b)
	}
	return 0
}

// WriteWord implements Memory.
func (m *FlatMemory) WriteWord(addr uint64, v uint64) {
	if b := m.span(addr, 8, true); b != nil {
		m.Arch.ByteOrder.PutUint64(b, v)
	}
}

// Read implements Memory.
func (m *FlatMemory) Read(addr uint64, p []byte) {
	if b := m.span(addr, len(p), false); b != nil {
		copy(p, b)
		return
	}
	clear(p)
}

// Write implements Memory.
func (m *FlatMemory) Write(addr uint64, p []byte) {
	if b := m.span(addr, len(p), true); b != nil {
		copy(b, p)
	}
}
