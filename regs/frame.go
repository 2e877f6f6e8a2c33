package regs

// Memory is guest memory as the Go stand-ins for kernel C code see it.
//
// Accesses do not return errors: an access outside mapped memory reads zero,
// is dropped when it writes, and is remembered by the implementation, which
// reports it as a fault of the host function that made it (the way a kernel
// oops ends the C function). Words are in the guest's byte order.
type Memory interface {
	ReadWord(addr uint64) uint64
	WriteWord(addr uint64, v uint64)
	Read(addr uint64, p []byte)
	Write(addr uint64, p []byte)
}

// Observer is told of every slot access made through a Frame. The harness
// uses it to find reads of slots that no code wrote ("stale-read") and to
// know which slots the C side wrote.
type Observer interface {
	// SlotRead: an accessor read slot s at address addr and got v.
	SlotRead(f *Frame, s Slot, addr, v uint64, accessor string)
	// SlotWrite: C code stored v into slot s.
	SlotWrite(f *Frame, s Slot, addr, v uint64, accessor string)
	// StackRead: an accessor read a stack word (arguments past the register
	// ones, x86-64's return address).
	StackRead(f *Frame, addr, v uint64, accessor string)
}

// Frame is a view of a struct ftrace_regs (or another Layout) in guest
// memory, with the kernel's accessor functions. A nil *Frame is a NULL
// pointer: every accessor returns ok == false.
type Frame struct {
	Arch   *Arch
	Layout *Layout
	Base   uint64 // guest address of the structure
	Mem    Memory
	Obs    Observer // may be nil
	// Caller names the code using the view (a callback name); it is handed to
	// the Observer with every access.
	Caller string
}

// NewFrame returns a view of the arch's struct ftrace_regs at base.
func NewFrame(a *Arch, mem Memory, base uint64, obs Observer) *Frame {
	return &Frame{Arch: a, Layout: a.Frame, Base: base, Mem: mem, Obs: obs}
}

// Swap makes caller the view's user (for read attribution) and returns the
// previous one: prev := f.Swap("graph"); callback(f); f.Swap(prev). Unlike
// With it allocates nothing. A nil view stays nil.
func (f *Frame) Swap(caller string) (prev string) {
	if f == nil {
		return ""
	}
	prev, f.Caller = f.Caller, caller
	return prev
}

// With returns a copy of the view used by caller (for read attribution).
func (f *Frame) With(caller string) *Frame {
	if f == nil {
		return nil
	}
	c := *f
	c.Caller = caller
	return &c
}

func (f *Frame) index(name string) int {
	if f == nil || name == "" {
		return -1
	}
	if i, ok := f.Layout.byNam[name]; ok {
		return i
	}
	return -1
}

// readAt reads slot i (-1: the structure has no such field).
func (f *Frame) readAt(i int, accessor string) (uint64, bool) {
	if f == nil || i < 0 {
		return 0, false
	}
	s := &f.Layout.Slots[i]
	addr := f.Base + uint64(s.Off)
	var v uint64
	if s.Size == 8 {
		v = f.Mem.ReadWord(addr)
	} else {
		var b [8]byte
		f.Mem.Read(addr, b[:s.Size])
		v = uint64(f.Arch.ByteOrder.Uint32(b[:4]))
	}
	if f.Obs != nil {
		f.Obs.SlotRead(f, *s, addr, v, accessor)
	}
	return v, true
}

// writeAt writes slot i (-1: the structure has no such field).
func (f *Frame) writeAt(i int, accessor string, v uint64) bool {
	if f == nil || i < 0 {
		return false
	}
	s := &f.Layout.Slots[i]
	addr := f.Base + uint64(s.Off)
	if s.Size == 8 {
		f.Mem.WriteWord(addr, v)
	} else {
		var b [8]byte
		f.Arch.ByteOrder.PutUint32(b[:4], uint32(v))
		f.Mem.Write(addr, b[:s.Size])
	}
	if f.Obs != nil {
		f.Obs.SlotWrite(f, *s, addr, v, accessor)
	}
	return true
}

// Get reads a slot by name, as C code reading the field directly would.
func (f *Frame) Get(name string) (uint64, bool) { return f.readAt(f.index(name), "field") }

// Set writes a slot by name.
func (f *Frame) Set(name string, v uint64) bool { return f.writeAt(f.index(name), "field", v) }

// Raw reads a slot without telling the Observer (for the tool's own
// inspection of a frame, not for modelled kernel code).
func (f *Frame) Raw(name string) (uint64, bool) {
	if f == nil {
		return 0, false
	}
	s, ok := f.Layout.Slot(name)
	if !ok {
		return 0, false
	}
	if s.Size == 8 {
		return f.Mem.ReadWord(f.Base + uint64(s.Off)), true
	}
	var b [4]byte
	f.Mem.Read(f.Base+uint64(s.Off), b[:])
	return uint64(f.Arch.ByteOrder.Uint32(b[:])), true
}

// InstructionPointer is ftrace_regs_get_instruction_pointer.
func (f *Frame) InstructionPointer() (uint64, bool) {
	return f.readAt(f.acc().ip, "ftrace_regs_get_instruction_pointer")
}

// SetInstructionPointer is ftrace_regs_set_instruction_pointer.
func (f *Frame) SetInstructionPointer(v uint64) bool {
	return f.writeAt(f.acc().ip, "ftrace_regs_set_instruction_pointer", v)
}

// StackPointer is ftrace_regs_get_stack_pointer.
func (f *Frame) StackPointer() (uint64, bool) {
	return f.readAt(f.acc().sp, "ftrace_regs_get_stack_pointer")
}

// ReturnValue is ftrace_regs_get_return_value.
func (f *Frame) ReturnValue() (uint64, bool) {
	return f.readAt(f.acc().retVal, "ftrace_regs_get_return_value")
}

// SetReturnValue is ftrace_regs_set_return_value.
func (f *Frame) SetReturnValue(v uint64) bool {
	return f.writeAt(f.acc().retVal, "ftrace_regs_set_return_value", v)
}

// FramePointer is ftrace_regs_get_frame_pointer.
func (f *Frame) FramePointer() (uint64, bool) {
	return f.readAt(f.acc().fp, "ftrace_regs_get_frame_pointer")
}

// Argument is ftrace_regs_get_argument(fregs, n): a register slot for the
// first arguments, a stack word above the saved stack pointer after them.
func (f *Frame) Argument(n int) (uint64, bool) {
	acc := f.acc()
	name := "ftrace_regs_get_argument"
	if n < 0 {
		return 0, false
	}
	if n < len(acc.args) {
		return f.readAt(acc.args[n], name)
	}
	if len(acc.args) == 0 {
		return 0, false
	}
	if f.Layout.Accessors.ArgsInRegsOnly {
		return 0, true
	}
	sp, ok := f.readAt(acc.sp, name)
	if !ok {
		return 0, false
	}
	addr := sp + uint64(f.Arch.StackArgOffset+8*(n-len(acc.args)))
	v := f.Mem.ReadWord(addr)
	if f.Obs != nil {
		f.Obs.StackRead(f, addr, v, name)
	}
	return v, true
}

// ReturnAddress is ftrace_regs_get_return_address: a slot on s390x
// (gprs[14]), the word at the saved stack pointer on x86-64.
func (f *Frame) ReturnAddress() (uint64, bool) {
	acc := f.acc()
	name := "ftrace_regs_get_return_address"
	if acc.retAddr >= 0 {
		return f.readAt(acc.retAddr, name)
	}
	sp, ok := f.readAt(acc.sp, name)
	if !ok {
		return 0, false
	}
	v := f.Mem.ReadWord(sp)
	if f.Obs != nil {
		f.Obs.StackRead(f, sp, v, name)
	}
	return v, true
}

// GetRegs is arch_ftrace_get_regs: the full pt_regs view when the trampoline
// saved all registers, else nil (the kernel's NULL).
func (f *Frame) GetRegs() *Frame {
	if f == nil {
		return nil
	}
	if f.Layout.Accessors.FullRegs.Always {
		return f
	}
	v, ok := f.readAt(f.acc().full, "arch_ftrace_get_regs")
	if !ok || !f.Layout.Accessors.FullRegs.Full(v) {
		return nil
	}
	return f
}

// SetDirectCaller is arch_ftrace_set_direct_caller: the entry trampoline
// then returns into the direct trampoline at addr.
func (f *Frame) SetDirectCaller(addr uint64) bool {
	return f.writeAt(f.acc().direct, "arch_ftrace_set_direct_caller", addr)
}

var noAccessors = accIndex{ip: -1, sp: -1, retVal: -1, fp: -1, retAddr: -1, direct: -1, full: -1}

func (f *Frame) acc() *accIndex {
	if f == nil {
		return &noAccessors
	}
	return &f.Layout.acc
}
