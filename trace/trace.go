package trace

import (
	"trampemu/asm"
	"trampemu/emu"
	"trampemu/regs"
)

// DefaultMax is how many steps a Recorder keeps unless told otherwise.
const DefaultMax = 200000

// Step is one instruction or one host call.
type Step struct {
	PC uint64
	// Host is the Go function's name for a host call, "" for an instruction.
	Host string
	// Inst is the decoded instruction (Text "(undecodable)" when it did not
	// decode).
	Inst asm.Inst
	Regs regs.RegFile // before the step
	// Changed lists the registers the step changed (for a host call: the Go
	// function, volatile-register clobbering included).
	Changed []Change
	Loads   []Access // memory read, with the value before the step
	Stores  []Access // memory written, with the value after the step
	// Done is false for the last step of a run cut short: its effects were
	// never seen.
	Done bool
}

// Change is a register a step changed.
type Change struct {
	Reg      int // index into Arch.Regs
	Old, New uint64
}

// Access is one memory operand of an instruction.
type Access struct {
	Addr  uint64
	Bytes []byte // guest byte order; nil when the address is not mapped
}

// Recorder records steps; its Step and Host methods are called by the
// machine it is attached to (emu.Machine.Trace).
type Recorder struct {
	Arch  *regs.Arch
	Steps []Step
	// Max is how many steps are kept (0: DefaultMax); later steps are only
	// counted in Dropped.
	Max     int
	Dropped int
	dis     asm.Disassembler
	open    bool // the last step still waits for its effects
}

// NewRecorder returns a recorder that disassembles with im's symbols.
func NewRecorder(im *asm.Image) *Recorder {
	return &Recorder{Arch: im.Arch, dis: asm.ForImage(im)}
}

func (r *Recorder) full() bool {
	max := r.Max
	if max <= 0 {
		max = DefaultMax
	}
	return len(r.Steps) >= max
}

// finish fills the effects of the open step from the machine's state now.
func (r *Recorder) finish(m *emu.Machine) {
	if !r.open {
		return
	}
	r.open = false
	s := &r.Steps[len(r.Steps)-1]
	now := m.Regs()
	for i := range now {
		if now[i] != s.Regs[i] {
			s.Changed = append(s.Changed, Change{i, s.Regs[i], now[i]})
		}
	}
	for i := range s.Stores {
		st := &s.Stores[i]
		st.Bytes = copyMem(m, st.Addr, len(st.Bytes))
	}
	s.Done = true
}

func copyMem(m *emu.Machine, addr uint64, n int) []byte {
	b := m.Mem(addr, n)
	if b == nil {
		return nil
	}
	return append([]byte(nil), b...)
}

// Step records the instruction at pc, before it runs.
func (r *Recorder) Step(m *emu.Machine, pc uint64) {
	r.finish(m)
	if r.full() {
		r.Dropped++
		return
	}
	s := Step{PC: pc, Regs: m.Regs()}
	code := m.Mem(pc, 16)
	for n := 15; code == nil && n > 0; n-- {
		code = m.Mem(pc, n) // near the end of a region
	}
	in, err := r.dis.Decode(code, pc)
	if err != nil {
		in = asm.Inst{Addr: pc, Text: "(undecodable)"}
	}
	s.Inst = in
	reg := func(i int) uint64 { return s.Regs[i] }
	for _, ref := range in.Mem {
		addr := ref.Addr(reg)
		size := ref.Size
		if size <= 0 {
			size = 8
		}
		if ref.Load {
			s.Loads = append(s.Loads, Access{Addr: addr, Bytes: copyMem(m, addr, size)})
		}
		if ref.Store {
			s.Stores = append(s.Stores, Access{Addr: addr, Bytes: make([]byte, size)})
		}
	}
	r.Steps = append(r.Steps, s)
	r.open = true
}

// Host records a host call: done false before the Go function, true after.
func (r *Recorder) Host(m *emu.Machine, name string, pc uint64, done bool) {
	if done {
		r.finish(m)
		return
	}
	r.finish(m)
	if r.full() {
		r.Dropped++
		return
	}
	r.Steps = append(r.Steps, Step{PC: pc, Host: name, Regs: m.Regs()})
	r.open = true
}
