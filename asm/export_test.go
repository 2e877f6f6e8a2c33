package asm

import (
	"sort"
	"strings"

	"golang.org/x/arch/arm64/arm64asm"
	"golang.org/x/arch/riscv64/riscv64asm"
	"golang.org/x/arch/s390x/s390xasm"
	"golang.org/x/arch/x86/x86asm"

	"trampemu/regs"
)

// factsHooks give the facts tests access to one arch's facts table.
type factsHooks struct {
	// mnemonics lists the table's keys.
	mnemonics func() []string
	// corrupt makes the entry of op wrong in a way every decoded
	// instruction of it shows, and returns the undo.
	corrupt func(op string) (undo func())
	// key is the table key the decoder looks up for the instruction at the
	// start of code; ok false when the table has no entry for it.
	key func(code []byte) (op string, ok bool)
}

var factsTestHooks = map[string]factsHooks{
	regs.X86_64.Name: {
		mnemonics: func() []string {
			var out []string
			for op := range x86FactsTable {
				out = append(out, strings.ToLower(op.String()))
			}
			return out
		},
		corrupt: func(name string) func() {
			for op, f := range x86FactsTable {
				if strings.ToLower(op.String()) != name {
					continue
				}
				bad := f
				switch {
				case f.stack == x86NoStack:
					bad.stack = x86Push
				case f.stackSize != 0:
					bad.stackSize = 0
				default:
					bad.stack = x86NoStack
				}
				x86FactsTable[op] = bad
				return func() { x86FactsTable[op] = f }
			}
			panic("no x86-64 facts entry " + name)
		},
		key: func(code []byte) (string, bool) {
			if len(code) >= 4 && code[0] == 0xf3 && code[1] == 0x0f && code[2] == 0x1e && code[3]&0xfe == 0xfa {
				return "endbr64", true // decoded before the table
			}
			x, err := x86asm.Decode(code, 64)
			if err != nil {
				return "", false
			}
			_, ok := x86FactsTable[x.Op]
			return strings.ToLower(x.Op.String()), ok
		},
	},
	regs.S390X.Name: {
		mnemonics: func() []string { return keys(s390xFactsTable) },
		corrupt: func(op string) func() {
			f, ok := s390xFactsTable[op]
			if !ok {
				panic("no s390x facts entry " + op)
			}
			bad := f
			switch f.mem {
			case s390xNoMem:
				bad.mem, bad.size = s390xLoad, 8
			case s390xSSMove:
				bad.mem = s390xSSUpdate
			case s390xSSUpdate:
				bad.mem = s390xSSCompare
			case s390xSSCompare:
				bad.mem = s390xSSMove
			default:
				bad.size++
			}
			s390xFactsTable[op] = bad
			return func() { s390xFactsTable[op] = f }
		},
		key: func(code []byte) (string, bool) {
			if len(code) >= 2 && code[0] == 0 && code[1] == 0 {
				return ".short", true // decoded before the table
			}
			var buf [8]byte
			copy(buf[:], code)
			x, err := s390xasm.Decode(buf[:])
			if err != nil {
				return "", false
			}
			op := strings.ToLower(x.Op.String())
			_, ok := s390xFactsTable[op]
			return op, ok
		},
	},
}

func init() {
	factsTestHooks[regs.ARM64.Name] = factsHooks{
		mnemonics: func() []string {
			var out []string
			for op := range arm64FactsTable {
				out = append(out, strings.ToLower(op.String()))
			}
			return out
		},
		corrupt: func(name string) func() {
			for op, f := range arm64FactsTable {
				if strings.ToLower(op.String()) != name {
					continue
				}
				bad := f
				switch f.mem {
				case arm64NoMem, arm64Address:
					bad.mem, bad.size = arm64Load, 8
				case arm64LoadPair:
					bad.mem = arm64StorePair
				case arm64StorePair:
					bad.mem = arm64LoadPair
				default:
					bad.size = arm64RegBytesOr(f.size) + 1
				}
				arm64FactsTable[op] = bad
				return func() { arm64FactsTable[op] = f }
			}
			panic("no arm64 facts entry " + name)
		},
		key: func(code []byte) (string, bool) {
			if len(code) < 4 {
				return "", false
			}
			w := uint32(code[0]) | uint32(code[1])<<8 | uint32(code[2])<<16 | uint32(code[3])<<24
			if w>>16 == 0 || w&0xfffff01f == 0xd503201f {
				return "hint/udf", true // decoded before the table
			}
			x, err := arm64asm.Decode(code[:4])
			if err != nil {
				return "", false
			}
			_, ok := arm64FactsTable[x.Op]
			return strings.ToLower(x.Op.String()), ok
		},
	}
}

func init() {
	factsTestHooks[regs.RISCV64.Name] = factsHooks{
		mnemonics: func() []string {
			var out []string
			for op := range riscv64FactsTable {
				out = append(out, strings.ToLower(op.String()))
			}
			return out
		},
		corrupt: func(name string) func() {
			for op, f := range riscv64FactsTable {
				if strings.ToLower(op.String()) != name {
					continue
				}
				bad := f
				switch {
				case f.mem == riscv64NoMem && f.flow == FlowTrap:
					bad.flow = FlowNone
				case f.mem == riscv64NoMem:
					bad.flow = FlowTrap
				case f.mem == riscv64Load:
					bad.mem = riscv64Store
				default:
					bad.size = f.size + 1
				}
				riscv64FactsTable[op] = bad
				return func() { riscv64FactsTable[op] = f }
			}
			panic("no riscv64 facts entry " + name)
		},
		key: func(code []byte) (string, bool) {
			if len(code) < 2 || code[0]&3 == 3 && len(code) < 4 {
				return "", false
			}
			if code[0] == 0 && code[1] == 0 {
				return "unimp", true // decoded before the table
			}
			if code[0]&3 == 3 {
				switch uint32(code[0]) | uint32(code[1])<<8 | uint32(code[2])<<16 | uint32(code[3])<<24 {
				case 0x30200073, 0x10200073, 0x10500073:
					return "mret/sret/wfi", true // decoded before the table
				}
			}
			x, err := riscv64asm.Decode(code)
			if err != nil {
				return "", false
			}
			_, ok := riscv64FactsTable[x.Op]
			return strings.ToLower(x.Op.String()), ok
		},
	}
}

// arm64RegBytesOr is size, or 8 when the size comes from the register.
func arm64RegBytesOr(size int) int {
	if size == 0 {
		return 8
	}
	return size
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func mustFactsHooks(a *regs.Arch) factsHooks {
	h, ok := factsTestHooks[a.Name]
	if !ok {
		panic("asm: no facts test hooks for " + a.Name)
	}
	return h
}

// FactsMnemonics lists the keys of the arch's facts table, sorted.
func FactsMnemonics(a *regs.Arch) []string {
	m := mustFactsHooks(a).mnemonics()
	sort.Strings(m)
	return m
}

// CorruptFact makes the arch's facts-table entry for op wrong and returns
// the undo.
func CorruptFact(a *regs.Arch, op string) (undo func()) { return mustFactsHooks(a).corrupt(op) }

// FactsKey returns the facts-table key the decoder uses for the instruction
// at the start of code, ok false when the table has no entry for it.
func FactsKey(a *regs.Arch, code []byte) (op string, ok bool) { return mustFactsHooks(a).key(code) }

// CheckSource is checkSource, for the include filter's fuzz target.
var CheckSource = checkSource
