package regs

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
	"unsafe"
)

// Reg is one guest register the tool tracks.
type Reg struct {
	Name string // lower-case assembler name without '%': "rax", "r14", "pc"
	UC   int    // Unicorn register id (unicorn/x86.h, unicorn/s390x.h, unicorn/arm64.h, Unicorn 2.x)
}

// RegFile holds one value per register of Arch.Regs, in that order; the
// entries past len(Arch.Regs) are unused (zero).
type RegFile [NumRegs]uint64

// NumRegs is the capacity of the tracked register file, the largest arch's
// register count: arm64's 31 general registers, sp, pc and nzcv (x86-64
// and s390x track 16 general registers, the program counter and the
// flags / PSW mask: 18). emu/tm.h's TM_NREGS is the same number.
const NumRegs = 34

// Arch describes one guest architecture.
type Arch struct {
	Name      string           // "x86_64", "s390x" or "arm64"
	ByteOrder binary.ByteOrder // guest byte order
	BigEndian bool             // ByteOrder is big-endian (Word and PutWord inline on it)
	WordSize  int              // bytes per machine word

	// Regs is the tracked register file; RegFile indices follow it.
	Regs []Reg
	// RegAliases are other assembler names of registers (arm64: fp = x29,
	// lr = x30), accepted by Reg.
	RegAliases map[string]string
	// PC, Flags, SP: indices into Regs.
	PC, Flags, SP int
	// Link is the index of the register that receives the return address of
	// a call (s390x r14), or -1 when calls push it (x86-64).
	Link int
	// FP is the index of the frame-pointer register, or -1 (s390x keeps a
	// back chain in memory instead).
	FP int

	// ABI roles, as register indices.
	Args        []int // integer argument registers, in order
	Ret         []int // integer return registers
	CalleeSaved []int // preserved across a call (sp included)
	Volatile    []int // a C function may leave any value in these
	// EntryScratch are registers with no meaning at a traced function's
	// entry (s390x r0/r1: brasl %r0 puts ip+6 in r0, the trampoline uses r1).
	EntryScratch []int

	// StackArgOffset: byte offset from the stack pointer at function entry
	// (or from ftrace_regs' saved sp) to the first argument passed on the
	// stack. x86-64: 8 (above the return address); s390x: 160 (above the
	// register save area the caller provides).
	StackArgOffset int

	// McountInsnSize is the length of the call site at the start of every
	// traced function (MCOUNT_INSN_SIZE).
	McountInsnSize int

	// Frame is struct ftrace_regs with the accessors of v6.14+: struct
	// pt_regs itself on x86-64 and s390x, arm64's own 112-byte struct
	// (v6.2+).
	Frame *Layout
	// PtRegs is struct pt_regs when it is not Frame, else nil: arm64's
	// DYNAMIC_FTRACE_WITH_REGS entry (v5.5..v6.1) hands callbacks a pt_regs,
	// its WITH_ARGS entry (v6.2+) a struct ftrace_regs. The kernel model
	// of the era chooses which of the two a trampoline's frame is.
	PtRegs *Layout
	// RetRegs is struct fgraph_ret_regs, what return_to_handler passed to
	// ftrace_return_to_handler in v6.5..v6.13 (HAVE_FUNCTION_GRAPH_RETVAL).
	RetRegs *Layout
	// FregsForms are the other forms struct ftrace_regs took in later
	// eras (riscv64 v6.16: direct_tramp, and t2-t6 under
	// CONFIG_CC_IS_CLANG), which a kernel model or a variant selects by
	// era (FregsLayout); Frame is the form of every other era.
	FregsForms []FregsForm

	// Memory is the guest memory map.
	Memory MemoryMap

	// Toolchain: the GNU binutils target prefix and its Debian package.
	Triple         string
	BinutilsPkg    string
	AsFlags        []string // extra assembler flags (s390x: -march=z196)
	UnicornArch    int      // uc_arch
	UnicornMode    int      // uc_mode
	ReturnStubCode []byte   // a plain return: x86 "ret", s390x "br %r14"

	// Per-arch hooks, filled in the arch's own file (x86_64.go, s390x.go) the
	// way cmd/link/internal/amd64.Init hands ld.Arch to the generic linker;
	// generic code calls them and never compares arch names.

	// Aliases are the other names ArchByName accepts for the arch.
	Aliases []string
	// asmOffsets lists the arch's asm-offsets constants (AsmOffsets).
	asmOffsets func(a *Arch) []Define
	// asmOffsetsTail is text AsmOffsetsHeader appends after the defines
	// (x86-64: the CONFIG_FRAME_POINTER dependent sizes); may be nil.
	asmOffsetsTail func(a *Arch) string
}

// FregsForm is one form of struct ftrace_regs besides Arch.Frame: the
// layout of the era Era (a kernel model's or a registry variant's Fregs),
// under the option Define when it is set (the build defines it).
type FregsForm struct {
	Era    string
	Define string
	Layout *Layout
}

// FregsLayout is struct ftrace_regs of the era as a build with defines
// has it: the last of FregsForms of the era whose Define is unset or
// defined, else Frame (era "" or an era with no form of its own).
func (a *Arch) FregsLayout(era string, defines map[string]string) *Layout {
	out := a.Frame
	if era == "" {
		return out
	}
	for _, f := range a.FregsForms {
		if f.Era != era {
			continue
		}
		if _, ok := defines[f.Define]; f.Define == "" || ok {
			out = f.Layout
		}
	}
	return out
}

// Reg returns the index of the register called name (with or without '%').
func (a *Arch) Reg(name string) (int, bool) {
	name = strings.TrimPrefix(strings.ToLower(name), "%")
	if alias, ok := a.RegAliases[name]; ok {
		name = alias
	}
	for i, r := range a.Regs {
		if r.Name == name {
			return i, true
		}
	}
	return -1, false
}

// MustReg is Reg for names known at compile time; it panics on a typo, which
// only a programming error in this project can cause.
func (a *Arch) MustReg(name string) int {
	i, ok := a.Reg(name)
	if !ok {
		panic(fmt.Sprintf("regs: %s has no register %q", a.Name, name))
	}
	return i
}

// RegNames lists the register names in RegFile order.
func (a *Arch) RegNames() []string {
	out := make([]string, len(a.Regs))
	for i, r := range a.Regs {
		out[i] = r.Name
	}
	return out
}

// IsVolatile reports whether register i may change across a C call.
func (a *Arch) IsVolatile(i int) bool { return contains(a.Volatile, i) }

// IsEntryScratch reports whether register i is scratch at function entry.
func (a *Arch) IsEntryScratch(i int) bool { return contains(a.EntryScratch, i) }

// IsCalleeSaved reports whether register i must survive a C call.
func (a *Arch) IsCalleeSaved(i int) bool { return contains(a.CalleeSaved, i) }

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// Word reads a guest word from b in the architecture's byte order.
func (a *Arch) Word(b []byte) uint64 {
	if a.BigEndian {
		return binary.BigEndian.Uint64(b)
	}
	return binary.LittleEndian.Uint64(b)
}

// PutWord writes a guest word into b in the architecture's byte order.
func (a *Arch) PutWord(b []byte, v uint64) {
	if a.BigEndian {
		binary.BigEndian.PutUint64(b, v)
		return
	}
	binary.LittleEndian.PutUint64(b, v)
}

// hostLittleEndian: the host stores words low byte first.
var hostLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// PutWords stores the words of src one after another into b (at least
// 8*len(src) bytes) in the arch's byte order.
func (a *Arch) PutWords(b []byte, src []uint64) {
	b = b[:8*len(src)]
	if len(src) == 0 {
		return
	}
	if a.BigEndian != hostLittleEndian {
		// the guest's order is the host's: the words as they are
		copy(b, unsafe.Slice((*byte)(unsafe.Pointer(&src[0])), 8*len(src)))
		return
	}
	if a.BigEndian {
		for i, v := range src {
			binary.BigEndian.PutUint64(b[8*i:], v)
		}
		return
	}
	for i, v := range src {
		binary.LittleEndian.PutUint64(b[8*i:], v)
	}
}

// WordByte returns byte i (0-7, in memory order) of the guest word v.
func (a *Arch) WordByte(v uint64, i int) byte {
	if a.BigEndian {
		return byte(v >> (56 - 8*i))
	}
	return byte(v >> (8 * i))
}

// FormatRegs renders a register file as "name=value" pairs, four a line.
func (a *Arch) FormatRegs(f *RegFile) string {
	var b strings.Builder
	for i, r := range a.Regs {
		if i > 0 {
			if i%4 == 0 {
				b.WriteString("\n")
			} else {
				b.WriteString("  ")
			}
		}
		fmt.Fprintf(&b, "%-6s 0x%016x", r.Name, f[i])
	}
	return b.String()
}

// Arches lists the supported architectures.
var Arches = []*Arch{X86_64, S390X, ARM64, RISCV64}

// ArchByName finds an architecture by name; the error names the valid ones.
func ArchByName(name string) (*Arch, error) {
	name = strings.ToLower(name)
	for _, a := range Arches {
		if name == a.Name {
			return a, nil
		}
		for _, alias := range a.Aliases {
			if name == alias {
				return a, nil
			}
		}
	}
	names := make([]string, len(Arches))
	for i, a := range Arches {
		names[i] = a.Name
	}
	sort.Strings(names)
	return nil, fmt.Errorf("unknown architecture %q: valid are %s", name, strings.Join(names, ", "))
}

func indices(a *Arch, names ...string) []int {
	out := make([]int, len(names))
	for i, n := range names {
		out[i] = a.MustReg(n)
	}
	return out
}
