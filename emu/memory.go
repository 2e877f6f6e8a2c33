package emu

import (
	"fmt"
)

// MemError is a guest memory access outside the mapped regions.
type MemError struct {
	Write bool
	Addr  uint64
	Size  int
}

func (e *MemError) Error() string {
	op := "read"
	if e.Write {
		op = "write"
	}
	return fmt.Sprintf("%s of %d bytes at %#x outside guest memory", op, e.Size, e.Addr)
}

// span returns the host bytes backing [addr, addr+n), or nil.
func (m *Machine) span(addr uint64, n int) []byte {
	// the two regions used last first: a checked call goes back and forth
	// between the stack and the data (the shadow stack, ops, records)
	for _, i := range [2]int{m.last, m.prev} {
		if i < len(m.regions) {
			r := &m.regions[i]
			if off := addr - r.Base; addr >= r.Base && off+uint64(n) <= r.Size && off+uint64(n) >= off {
				if i != m.last {
					m.last, m.prev = i, m.last
				}
				return r.mem[off : off+uint64(n)]
			}
		}
	}
	for i := range m.regions {
		r := &m.regions[i]
		if off := addr - r.Base; addr >= r.Base && off+uint64(n) <= r.Size && off+uint64(n) >= off {
			m.last, m.prev = i, m.last
			return r.mem[off : off+uint64(n)]
		}
	}
	return nil
}

// ReadMem copies guest memory at addr into p.
func (m *Machine) ReadMem(addr uint64, p []byte) error {
	b := m.span(addr, len(p))
	if b == nil {
		return &MemError{Addr: addr, Size: len(p)}
	}
	copy(p, b)
	return nil
}

// WriteMem copies p into guest memory at addr. Writing code needs FlushCode
// (or PatchCode) to take effect.
func (m *Machine) WriteMem(addr uint64, p []byte) error {
	b := m.span(addr, len(p))
	if b == nil {
		return &MemError{Write: true, Addr: addr, Size: len(p)}
	}
	copy(b, p)
	return nil
}

// Mem returns the host bytes backing guest [addr, addr+n) for direct use
// (nil when not mapped). Valid until Close.
func (m *Machine) Mem(addr uint64, n int) []byte { return m.span(addr, n) }

func (m *Machine) fault(e *MemError) {
	if m.memFault == nil {
		m.memFault = e
	}
}

// The regs.Memory interface: faults are remembered and reported as an error
// of the host function that made them.

// ReadWord reads a guest word (guest byte order); 0 outside guest memory.
func (m *Machine) ReadWord(addr uint64) uint64 {
	b := m.span(addr, 8)
	if b == nil {
		m.fault(&MemError{Addr: addr, Size: 8})
		return 0
	}
	return m.Arch.ByteOrder.Uint64(b)
}

// WriteWord writes a guest word; dropped outside guest memory.
func (m *Machine) WriteWord(addr uint64, v uint64) {
	b := m.span(addr, 8)
	if b == nil {
		m.fault(&MemError{Write: true, Addr: addr, Size: 8})
		return
	}
	m.Arch.ByteOrder.PutUint64(b, v)
}

// Read implements regs.Memory.
func (m *Machine) Read(addr uint64, p []byte) {
	if err := m.ReadMem(addr, p); err != nil {
		clear(p)
		m.fault(err.(*MemError))
	}
}

// Write implements regs.Memory.
func (m *Machine) Write(addr uint64, p []byte) {
	if err := m.WriteMem(addr, p); err != nil {
		m.fault(err.(*MemError))
	}
}

// TakeFault returns and clears the first memory fault recorded by the
// regs.Memory methods since the last call (the harness uses it outside
// host functions).
func (m *Machine) TakeFault() error {
	err := m.memFault
	m.memFault = nil
	return err
}
