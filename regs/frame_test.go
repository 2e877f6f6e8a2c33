package regs_test

import (
	"encoding/binary"
	"fmt"
	"testing"

	"trampemu/regs"
)

// recorder is a regs.Observer that remembers every access.
type recorder struct{ log []string }

func (r *recorder) SlotRead(f *regs.Frame, s regs.Slot, addr, v uint64, acc string) {
	r.log = append(r.log, fmt.Sprintf("read %s@%#x=%#x by %s", s.Name, addr, v, acc))
}

func (r *recorder) SlotWrite(f *regs.Frame, s regs.Slot, addr, v uint64, acc string) {
	r.log = append(r.log, fmt.Sprintf("write %s@%#x=%#x by %s", s.Name, addr, v, acc))
}

func (r *recorder) StackRead(f *regs.Frame, addr, v uint64, acc string) {
	r.log = append(r.log, fmt.Sprintf("stack %#x=%#x by %s", addr, v, acc))
}

// frameCase describes an arch's ftrace_regs accessors by byte offset, as
// the reference accessor tables give them, with the byte order written out.
type frameCase struct {
	arch     *regs.Arch
	order    binary.ByteOrder
	ip, sp   int
	retVal   int
	fp       int
	direct   int
	retAddr  int   // slot offset, or -1: the word at the saved sp
	args     []int // register arguments
	stackArg []struct {
		n   int
		off uint64 // from the saved sp
	}
	full          int      // offset of the slot arch_ftrace_get_regs tests, -1: none
	fullValues    []uint64 // values for which it returns the regs
	partialValues []uint64 // values for which it returns NULL
	fullAlways    bool     // full < 0: always the regs (else always NULL)
	regsOnly      []int    // arguments past the register ones that read as 0, no stack read
	small         []struct {
		name string
		off  int
	} // 4-byte slots
	ptRegs bool // the arch's PtRegs layout instead of Frame
}

// layout is the structure the case describes.
func (c frameCase) layout() *regs.Layout {
	if c.ptRegs {
		return c.arch.PtRegs
	}
	return c.arch.Frame
}

func (c frameCase) name() string {
	if c.ptRegs {
		return c.arch.Name + "/pt_regs"
	}
	return c.arch.Name
}

// frame is a view of the case's structure at base.
func (c frameCase) frame(m regs.Memory, base uint64, obs regs.Observer) *regs.Frame {
	return &regs.Frame{Arch: c.arch, Layout: c.layout(), Base: base, Mem: m, Obs: obs}
}

var frameCases = []frameCase{
	{
		arch: regs.X86_64, order: binary.LittleEndian,
		ip: 128, sp: 152, retVal: 80, fp: 32, direct: 120, retAddr: -1,
		args: []int{112, 104, 96, 88, 72, 64},
		stackArg: []struct {
			n   int
			off uint64
		}{{6, 8}, {7, 16}, {9, 32}},
		full: 136, fullValues: []uint64{0x10, 1}, partialValues: []uint64{0},
	},
	{
		arch: regs.S390X, order: binary.BigEndian,
		ip: 16, sp: 144, retVal: 40, fp: 144, direct: 152, retAddr: 136,
		args: []int{40, 48, 56, 64, 72},
		stackArg: []struct {
			n   int
			off uint64
		}{{5, 160}, {6, 168}, {8, 184}},
		full: 176, fullValues: []uint64{1 << 4, 0xff}, partialValues: []uint64{0, 1 << 3, 1<<5 | 1},
		small: []struct {
			name string
			off  int
		}{{"int_code", 160}, {"int_parm", 164}},
	},
	{
		// v6.14 ftrace_regs: no stack arguments, arch_ftrace_get_regs NULL.
		arch: regs.ARM64, order: binary.LittleEndian,
		ip: 104, sp: 96, retVal: 0, fp: 80, direct: 72, retAddr: 88,
		args: []int{0, 8, 16, 24, 32, 40, 48, 56}, regsOnly: []int{8, 9, 12},
		full: -1,
	},
	{
		// WITH_REGS pt_regs: the pt_regs accessors, get_regs = the regs.
		arch: regs.ARM64, order: binary.LittleEndian, ptRegs: true,
		ip: 256, sp: 248, retVal: 0, fp: 232, direct: -1, retAddr: 240,
		args: []int{0, 8, 16, 24, 32, 40, 48, 56}, regsOnly: []int{8, 10},
		full: -1, fullAlways: true,
		small: []struct {
			name string
			off  int
		}{{"syscallno", 280}, {"unused2", 284}},
	},
	{
		// v6.11-v6.15 __arch_ftrace_regs (arch/riscv/include/asm/ftrace.h):
		// args[n] for n < 8, else 0; arch_ftrace_get_regs NULL; t1 the
		// direct trampoline.
		arch: regs.RISCV64, order: binary.LittleEndian,
		ip: 0, sp: 16, retVal: 40, fp: 24, direct: 32, retAddr: 8,
		args: []int{40, 48, 56, 64, 72, 80, 88, 96}, regsOnly: []int{8, 9, 12},
		full: -1,
	},
}

// slotValue is the recognisable value the test stores at frame offset off.
func slotValue(off int) uint64 { return 0xa1b2c3d400000000 | uint64(off) }

// put stores v at addr with the case's byte order, not the Arch's.
func (c frameCase) put(m *regs.FlatMemory, addr, v uint64) {
	var b [8]byte
	c.order.PutUint64(b[:], v)
	m.Write(addr, b[:])
}

func (c frameCase) get(m *regs.FlatMemory, addr uint64) uint64 {
	var b [8]byte
	m.Read(addr, b[:])
	return c.order.Uint64(b[:])
}

// setup returns memory with a frame whose every 8-byte slot holds
// slotValue(off), the saved sp pointing into the stack region, and stack
// words holding 0x5700+offset.
func (c frameCase) setup(t *testing.T) (m *regs.FlatMemory, base, sp uint64) {
	t.Helper()
	a := c.arch
	m = regs.NewFlatMemory(a, a.Memory.Heap, a.Memory.Stack)
	base = a.Memory.Heap.Base + 0x100
	sp = a.Memory.Stack.Base + 0x1000
	for _, s := range c.layout().Slots {
		if s.Size == 8 {
			c.put(m, base+uint64(s.Off), slotValue(s.Off))
		}
	}
	for _, s := range c.small {
		var b [4]byte
		c.order.PutUint32(b[:], uint32(0x11223300+s.off))
		m.Write(base+uint64(s.off), b[:])
	}
	c.put(m, base+uint64(c.sp), sp)
	for off := uint64(0); off < 256; off += 8 {
		c.put(m, sp+off, 0x5700+off)
	}
	return m, base, sp
}

func TestFrameAccessors(t *testing.T) {
	for _, c := range frameCases {
		t.Run(c.name(), func(t *testing.T) {
			m, base, sp := c.setup(t)
			rec := &recorder{}
			f := c.frame(m, base, rec).With("test-callback")
			slot := func(off int) uint64 {
				if off == c.sp {
					return sp
				}
				return slotValue(off)
			}
			expect := func(what string, got uint64, ok bool, want uint64) {
				t.Helper()
				if !ok || got != want {
					t.Errorf("%s = %#x, %v; want %#x", what, got, ok, want)
				}
			}
			v, ok := f.InstructionPointer()
			expect("InstructionPointer", v, ok, slot(c.ip))
			v, ok = f.StackPointer()
			expect("StackPointer", v, ok, sp)
			v, ok = f.ReturnValue()
			expect("ReturnValue", v, ok, slot(c.retVal))
			v, ok = f.FramePointer()
			expect("FramePointer", v, ok, slot(c.fp))
			v, ok = f.ReturnAddress()
			if c.retAddr < 0 {
				expect("ReturnAddress (*sp)", v, ok, 0x5700)
			} else {
				expect("ReturnAddress", v, ok, slot(c.retAddr))
			}
			for n, off := range c.args {
				v, ok = f.Argument(n)
				expect(fmt.Sprintf("Argument(%d)", n), v, ok, slot(off))
			}
			for _, s := range c.stackArg {
				rec.log = nil
				v, ok = f.Argument(s.n)
				expect(fmt.Sprintf("Argument(%d) (stack, sp+%d)", s.n, s.off), v, ok, 0x5700+s.off)
				want := fmt.Sprintf("stack %#x=%#x by ftrace_regs_get_argument", sp+s.off, 0x5700+s.off)
				if len(rec.log) != 2 || rec.log[1] != want {
					t.Errorf("Argument(%d) told the observer %q, want the sp slot then %q", s.n, rec.log, want)
				}
			}
			for _, n := range c.regsOnly {
				rec.log = nil
				v, ok = f.Argument(n)
				expect(fmt.Sprintf("Argument(%d) (past the registers)", n), v, ok, 0)
				if len(rec.log) != 0 {
					t.Errorf("Argument(%d) read %q, want no access", n, rec.log)
				}
			}
			if v, ok := f.Argument(-1); ok {
				t.Errorf("Argument(-1) = %#x, ok", v)
			}
			for _, s := range c.small {
				v, ok = f.Get(s.name)
				expect("Get("+s.name+") (4 bytes)", v, ok, uint64(0x11223300+s.off))
			}
			if v, ok := f.Get("no_such_field"); ok {
				t.Errorf("Get of an unknown field = %#x, ok", v)
			}

			// arch_ftrace_get_regs by the CS slot (x86-64) / PIF bit in flags (s390x).
			for _, fv := range c.fullValues {
				c.put(m, base+uint64(c.full), fv)
				if f.GetRegs() == nil {
					t.Errorf("GetRegs with %#x at %d = nil, want the regs", fv, c.full)
				}
			}
			for _, pv := range c.partialValues {
				c.put(m, base+uint64(c.full), pv)
				if f.GetRegs() != nil {
					t.Errorf("GetRegs with %#x at %d != nil, want NULL (partial regs)", pv, c.full)
				}
			}

			if c.full < 0 {
				for _, v := range []uint64{0, 1, ^uint64(0)} {
					for _, s := range c.layout().Slots {
						if s.Size == 8 {
							c.put(m, base+uint64(s.Off), v)
						}
					}
					if got := f.GetRegs(); (got != nil) != c.fullAlways {
						t.Errorf("GetRegs with every slot %#x = %v, want regs %v", v, got, c.fullAlways)
					}
				}
				c.put(m, base+uint64(c.sp), sp)
			}

			// Setters write the slots in the guest byte order.
			setters := []struct {
				name string
				set  func(uint64) bool
				off  int
			}{
				{"SetInstructionPointer", f.SetInstructionPointer, c.ip},
				{"SetReturnValue", f.SetReturnValue, c.retVal},
				{"SetDirectCaller", f.SetDirectCaller, c.direct},
			}
			if c.direct < 0 {
				if f.SetDirectCaller(1) {
					t.Errorf("SetDirectCaller succeeded on a structure without a direct-call slot")
				}
				setters = setters[:2]
			}
			for _, w := range setters {
				val := 0x0102030405060700 | uint64(w.off)
				if !w.set(val) {
					t.Errorf("%s failed", w.name)
				}
				if got := c.get(m, base+uint64(w.off)); got != val {
					t.Errorf("%s wrote %#x at offset %d (in %v), want %#x", w.name, got, w.off, c.order, val)
				}
			}
			if len(m.Faults) != 0 {
				t.Errorf("accessors touched memory outside the frame and stack: %v", m.Faults)
			}
			if f.Set("no_such_field", 1) {
				t.Errorf("Set of an unknown field succeeded")
			}
		})
	}
}

// A frame outside guest memory: reads give 0 (the Memory contract) and the
// FlatMemory records the faults; nothing panics.
func TestFrameOutsideMemory(t *testing.T) {
	for _, c := range frameCases {
		t.Run(c.name(), func(t *testing.T) {
			m := regs.NewFlatMemory(c.arch, c.arch.Memory.Stack)
			f := c.frame(m, 0x10, nil)
			if v, ok := f.InstructionPointer(); !ok || v != 0 {
				t.Errorf("InstructionPointer = %#x, %v; want 0, true", v, ok)
			}
			if v, _ := f.Argument(len(c.args) + 1); v != 0 {
				t.Errorf("stack argument = %#x, want 0", v)
			}
			f.SetReturnValue(1)
			want := 3 // ip, the saved sp for the stack argument, the write
			if len(c.regsOnly) > 0 {
				want = 2 // no stack arguments: ip and the write
			}
			if len(m.Faults) < want {
				t.Errorf("faults %q, want the reads and the write recorded", m.Faults)
			}
		})
	}
}

func TestNilFrameIsSafe(t *testing.T) {
	for _, c := range frameCases {
		t.Run(c.name(), func(t *testing.T) {
			var f *regs.Frame
			reads := map[string]func() (uint64, bool){
				"InstructionPointer": f.InstructionPointer,
				"StackPointer":       f.StackPointer,
				"ReturnValue":        f.ReturnValue,
				"FramePointer":       f.FramePointer,
				"ReturnAddress":      f.ReturnAddress,
				"Argument(0)":        func() (uint64, bool) { return f.Argument(0) },
				"Argument(stack)":    func() (uint64, bool) { return f.Argument(len(c.args)) },
				"Get":                func() (uint64, bool) { return f.Get(c.arch.Frame.Slots[0].Name) },
				"Raw":                func() (uint64, bool) { return f.Raw(c.arch.Frame.Slots[0].Name) },
			}
			for name, fn := range reads {
				if v, ok := fn(); ok || v != 0 {
					t.Errorf("nil frame: %s = %#x, %v", name, v, ok)
				}
			}
			for name, ok := range map[string]bool{
				"SetInstructionPointer": f.SetInstructionPointer(1),
				"SetReturnValue":        f.SetReturnValue(1),
				"SetDirectCaller":       f.SetDirectCaller(1),
				"Set":                   f.Set(c.arch.Frame.Slots[0].Name, 1),
			} {
				if ok {
					t.Errorf("nil frame: %s succeeded", name)
				}
			}
			if f.GetRegs() != nil || f.With("x") != nil {
				t.Errorf("nil frame: GetRegs or With not nil")
			}
		})
	}
}

// FlatMemory itself: words in the arch's byte order, faults recorded.
func TestFlatMemoryByteOrder(t *testing.T) {
	for _, c := range frameCases {
		t.Run(c.name(), func(t *testing.T) {
			r := c.arch.Memory.Data
			m := regs.NewFlatMemory(c.arch, r)
			m.WriteWord(r.Base, 0x0102030405060708)
			var b [8]byte
			m.Read(r.Base, b[:])
			if c.order.Uint64(b[:]) != 0x0102030405060708 {
				t.Errorf("WriteWord stored % x, want %v order", b, c.order)
			}
			if got := m.ReadWord(r.Base); got != 0x0102030405060708 {
				t.Errorf("ReadWord = %#x", got)
			}
			// The last word of the region is in; one byte further is not.
			m.WriteWord(r.End()-8, 7)
			if m.ReadWord(r.End()-8) != 7 || len(m.Faults) != 0 {
				t.Errorf("last word of the region: faults %v", m.Faults)
			}
			if m.ReadWord(r.End()-7) != 0 || len(m.Faults) != 1 {
				t.Errorf("a word crossing the region end: faults %v", m.Faults)
			}
			m.WriteWord(^uint64(0)-3, 1) // wraps around the address space
			if len(m.Faults) != 2 {
				t.Errorf("a wrapping write: faults %v", m.Faults)
			}
		})
	}
}
