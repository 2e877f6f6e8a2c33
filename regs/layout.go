package regs

import "fmt"

// Slot is one field of struct pt_regs / struct ftrace_regs.
type Slot struct {
	Name  string // display name used in findings: "RAX", "gprs[2]", "psw.addr"
	Field string // C field name: "ax", "gprs[2]"
	Asm   string // asm-offsets name when the kernel has one: "RAX", "__PT_R2"
	Off   int    // byte offset in the structure
	Size  int    // bytes (8, or 4 for s390x int_code/int_parm)
	Reg   int    // index of the register the slot mirrors, or -1
}

// Layout is a C structure as a list of slots.
type Layout struct {
	Name      string // "pt_regs", "fgraph_ret_regs"
	Size      int
	Slots     []Slot
	Accessors Accessors // how the kernel's accessors read this structure
	byNam     map[string]int
	acc       accIndex // Accessors resolved to slot indices (-1: none)
}

// accIndex is Accessors as slot indices, so the hot accessors need no
// lookup by name.
type accIndex struct {
	ip, sp, retVal, fp, retAddr, direct, full int
	args                                      []int
}

func newLayout(name string, size int, slots []Slot, acc Accessors) *Layout {
	l := &Layout{Name: name, Size: size, Slots: slots, Accessors: acc, byNam: map[string]int{}}
	for i, s := range slots {
		l.byNam[s.Name] = i
		l.byNam[s.Field] = i
	}
	idx := func(name string) int {
		if i, ok := l.byNam[name]; ok && name != "" {
			return i
		}
		return -1
	}
	l.acc = accIndex{ip: idx(acc.IP), sp: idx(acc.SP), retVal: idx(acc.RetVal), fp: idx(acc.FP),
		retAddr: idx(acc.RetAddr), direct: idx(acc.Direct), full: idx(acc.FullRegs.Slot)}
	for _, a := range acc.Args {
		l.acc.args = append(l.acc.args, idx(a))
	}
	return l
}

// Slot finds a slot by display or C field name.
func (l *Layout) Slot(name string) (Slot, bool) {
	i, ok := l.byNam[name]
	if !ok {
		return Slot{}, false
	}
	return l.Slots[i], true
}

// MustSlot is Slot for names fixed in the source; a typo panics.
func (l *Layout) MustSlot(name string) Slot {
	s, ok := l.Slot(name)
	if !ok {
		panic(fmt.Sprintf("regs: %s has no slot %q", l.Name, name))
	}
	return s
}

// At returns the slot that starts at byte offset off.
func (l *Layout) At(off int) (Slot, bool) {
	for _, s := range l.Slots {
		if s.Off == off {
			return s, true
		}
	}
	return Slot{}, false
}

// Covering returns the slot containing byte offset off.
func (l *Layout) Covering(off int) (Slot, bool) {
	for _, s := range l.Slots {
		if off >= s.Off && off < s.Off+s.Size {
			return s, true
		}
	}
	return Slot{}, false
}

// Accessors maps the kernel's ftrace_regs accessor functions to slots, by
// display name (include/linux/ftrace_regs.h and the arch headers, v6.14+).
// An empty name means the structure has no such field.
type Accessors struct {
	IP       string   // ftrace_regs_get/set_instruction_pointer
	Args     []string // ftrace_regs_get_argument(n) for the register arguments
	SP       string   // ftrace_regs_get_stack_pointer
	RetVal   string   // ftrace_regs_get/set_return_value
	FP       string   // ftrace_regs_get_frame_pointer
	RetAddr  string   // ftrace_regs_get_return_address when it is a slot ("" on x86-64: *(u64 *)sp)
	Direct   string   // arch_ftrace_set_direct_caller writes this slot
	FullRegs FullRegsTest
	// ArgsInRegsOnly: past the register arguments get_argument returns 0
	// instead of reading the stack (arm64: ftrace_regs_get_argument and
	// regs_get_kernel_argument, n >= 8).
	ArgsInRegsOnly bool
}

// FullRegsTest is how arch_ftrace_get_regs decides whether ftrace_regs holds
// a complete pt_regs: the slot is read, and regs are returned when
// (value & Mask) != 0 (Mask 0: when value != 0). With Always the regs are
// returned without a test (the generic ftrace_regs wrapping pt_regs of
// arches without WITH_ARGS, include/linux/ftrace.h v5.11..v6.1); with
// neither a slot nor Always, never (arm64 v6.2+: always NULL).
type FullRegsTest struct {
	Slot   string
	Mask   uint64
	Always bool
}

// Full applies the test to a slot value.
func (t FullRegsTest) Full(v uint64) bool {
	if t.Mask == 0 {
		return v != 0
	}
	return v&t.Mask != 0
}

// Region is one guest memory region.
type Region struct {
	Name string
	Base uint64
	Size uint64
	Perm Perm
}

// End is the first address after the region.
func (r Region) End() uint64 { return r.Base + r.Size }

// Contains reports whether addr lies in the region.
func (r Region) Contains(addr uint64) bool { return addr >= r.Base && addr-r.Base < r.Size }

// Perm is a set of memory permissions.
type Perm uint8

// Permission bits, as Unicorn's UC_PROT_*.
const (
	PermRead  Perm = 1
	PermWrite Perm = 2
	PermExec  Perm = 4
)

func (p Perm) String() string {
	b := []byte("---")
	if p&PermRead != 0 {
		b[0] = 'r'
	}
	if p&PermWrite != 0 {
		b[1] = 'w'
	}
	if p&PermExec != 0 {
		b[2] = 'x'
	}
	return string(b)
}

// MemoryMap is the guest memory layout (ARCHITECTURE.md, "Guest memory
// layout"): realistic kernel addresses, because fprobe packs bits into the
// top of heap pointers.
type MemoryMap struct {
	Text  Region // trampolines and workloads
	Stubs Region // host-function return stubs
	Data  Region // function_trace_op and other kernel data
	Stack Region // task stacks
	Heap  Region // shadow stacks, struct fprobe, ftrace_ops
}

// Regions lists the regions in address order of the map's fields.
func (m MemoryMap) Regions() []Region { return []Region{m.Text, m.Stubs, m.Data, m.Stack, m.Heap} }

// Find returns the region containing addr.
func (m MemoryMap) Find(addr uint64) (Region, bool) {
	for _, r := range m.Regions() {
		if r.Contains(addr) {
			return r, true
		}
	}
	return Region{}, false
}
