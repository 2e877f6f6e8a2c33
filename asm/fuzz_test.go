package asm_test

import (
	"flag"
	"os"
	"sort"
	"testing"

	"trampemu/asm"
	"trampemu/ftrace"
	"trampemu/regs"
)

// fuzzImage builds the golden-listing source of arch: a real linked image
// whose code seeds FuzzDisassemble and whose ELF file seeds FuzzLoadELF.
func fuzzImage(f *testing.F, a *regs.Arch) *asm.Image {
	f.Helper()
	name := "testdata/listing_" + a.Name + ".S"
	text, err := os.ReadFile(name)
	if err != nil {
		f.Fatal(err)
	}
	im, err := asm.Build(asm.Options{Arch: a, HostFuncs: []string{ftrace.SymFtraceStub}}, asm.Source{Name: name, Text: text})
	if err != nil {
		f.Fatal(err) // a missing toolchain names its Debian package here
	}
	return im
}

// limitMinimizeTime sets -test.fuzzminimizetime to d when the command line
// did not set it.
func limitMinimizeTime(d string) {
	set := false
	flag.Visit(func(fl *flag.Flag) { set = set || fl.Name == "test.fuzzminimizetime" })
	if fl := flag.Lookup("test.fuzzminimizetime"); fl != nil && !set {
		_ = fl.Value.Set(d)
	}
}

// s390xInsnLen is the length the first two opcode bits give (z/Architecture
// Principles of Operation, "Instruction formats").
func s390xInsnLen(b byte) int { return [4]int{2, 4, 4, 6}[b>>6] }

// FuzzDisassemble fuzzes the x86-64 and s390x decoders (the bool picks
// s390x); FuzzDisassembleARM64 has arm64's.
func FuzzDisassemble(f *testing.F) {
	for _, a := range []*regs.Arch{regs.X86_64, regs.S390X} {
		s390 := a == regs.S390X
		im := fuzzImage(f, a)
		for _, u := range im.Units {
			code := im.Bytes(u.Start, int(u.End-u.Start))
			f.Add(code, u.Start, s390)
			f.Add(code[len(code)/3:], u.Start+uint64(len(code)/3), s390)
		}
		f.Add([]byte{}, uint64(0), s390)
		f.Add([]byte{0x00, 0x00}, uint64(1), s390)
		f.Add([]byte{0xf3, 0x0f, 0x1e}, ^uint64(0), s390) // a cut endbr64
		f.Add([]byte{0xc0, 0xe5, 0xff, 0xff}, uint64(0xfffffffffffffff0), s390)
	}
	f.Add([]byte{0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x90}, uint64(0), false)
	f.Add([]byte{0xff, 0x14, 0x25, 0, 0, 0, 0}, uint64(0xffffffff81000000), false) // call *abs32
	f.Add([]byte{0x67, 0x8b, 0x04, 0x88}, uint64(0), false)                        // 32-bit addressing
	f.Fuzz(func(t *testing.T, code []byte, pc uint64, s390 bool) {
		a := regs.X86_64
		if s390 {
			a = regs.S390X
		}
		if len(code) > 32 {
			code = code[:32] // Decode never looks further
		}
		in, err := asm.NewDisassembler(a, nil).Decode(code, pc)
		if err != nil {
			return
		}
		switch {
		case a == regs.X86_64 && (in.Len < 1 || in.Len > 15):
			t.Fatalf("x86-64 length %d for % x", in.Len, code)
		case a == regs.S390X && in.Len != s390xInsnLen(code[0]):
			t.Fatalf("s390x length %d for % x, the opcode says %d", in.Len, code, s390xInsnLen(code[0]))
		case in.Len > len(code):
			t.Fatalf("length %d beyond the %d input bytes", in.Len, len(code))
		case in.Addr != pc || string(in.Bytes) != string(code[:in.Len]):
			t.Fatalf("Addr %#x Bytes % x for pc %#x code % x", in.Addr, in.Bytes, pc, code)
		case in.Text == "" || in.Op == "":
			t.Fatalf("empty text or mnemonic for % x", code)
		}
		// Emulator probes index the register file with these.
		for _, r := range in.Mem {
			if r.Base < -1 || r.Base >= regs.NumRegs || r.Index < -1 || r.Index >= regs.NumRegs || r.Scale < 1 {
				t.Fatalf("%s: memory operand %+v outside the register file", in.Text, r)
			}
		}
	})
}

// FuzzDisassembleARM64 is FuzzDisassemble for the arm64 decoder: every
// instruction is 4 bytes.
func FuzzDisassembleARM64(f *testing.F) {
	im := fuzzImage(f, regs.ARM64)
	for _, u := range im.Units {
		code := im.Bytes(u.Start, int(u.End-u.Start))
		f.Add(code, u.Start)
		f.Add(code[len(code)/3:], u.Start+uint64(len(code)/3))
	}
	f.Add([]byte{}, uint64(0))
	f.Add([]byte{0x5f, 0x24, 0x03}, uint64(0))                        // a cut bti c
	f.Add([]byte{0x00, 0x00, 0x00, 0x00}, uint64(0xffff800080000000)) // udf #0
	f.Add([]byte{0xfa, 0xff, 0xff, 0x97}, uint64(0))                  // bl backwards past 0
	f.Add([]byte{0x45, 0x58, 0x61, 0xb8}, uint64(0))                  // ldr w5, [x2, w1, uxtw #2]
	f.Add([]byte{0xe0, 0x07, 0xbf, 0xad}, uint64(0xfffffffffffffff0)) // stp q0, q1, [sp, #-32]!
	f.Fuzz(func(t *testing.T, code []byte, pc uint64) {
		if len(code) > 16 {
			code = code[:16]
		}
		in, err := asm.NewDisassembler(regs.ARM64, nil).Decode(code, pc)
		if err != nil {
			return
		}
		switch {
		case in.Len != 4 || len(code) < 4:
			t.Fatalf("arm64 length %d for % x", in.Len, code)
		case in.Addr != pc || string(in.Bytes) != string(code[:4]):
			t.Fatalf("Addr %#x Bytes % x for pc %#x code % x", in.Addr, in.Bytes, pc, code)
		case in.Text == "" || in.Op == "":
			t.Fatalf("empty text or mnemonic for % x", code)
		case !in.MemKnown && len(in.Mem) > 0:
			t.Fatalf("%s: memory operands %+v without memory facts", in.Text, in.Mem)
		}
		n := len(regs.ARM64.Regs)
		for _, r := range in.Mem {
			if r.Base < -1 || r.Base >= n || r.Index < -1 || r.Index >= n || r.Scale < 1 || r.Size < 1 || r.Load == r.Store {
				t.Fatalf("%s: memory operand %+v outside the register file or without a size and one direction", in.Text, r)
			}
		}
	})
}

func FuzzDisassembleRISCV64(f *testing.F) {
	im := fuzzImage(f, regs.RISCV64)
	for _, u := range im.Units {
		code := im.Bytes(u.Start, int(u.End-u.Start))
		f.Add(code, u.Start)
		f.Add(code[len(code)/3:], u.Start+uint64(len(code)/3))
	}
	f.Add([]byte{}, uint64(0))
	f.Add([]byte{0x97, 0x02, 0x00}, uint64(0))                        // a cut auipc t0
	f.Add([]byte{0x00, 0x00}, uint64(0xffffffff80000000))             // the illegal halfword
	f.Add([]byte{0x73, 0x00, 0x20, 0x30}, uint64(0))                  // mret
	f.Add([]byte{0xef, 0xf0, 0xdf, 0xff}, uint64(0))                  // jal backwards past 0
	f.Add([]byte{0x82, 0x80}, uint64(0))                              // c.jr ra (compressed)
	f.Add([]byte{0xaf, 0x32, 0x00, 0x10}, uint64(0xfffffffffffffff0)) // lr.d t0, (zero)
	f.Fuzz(func(t *testing.T, code []byte, pc uint64) {
		if len(code) > 16 {
			code = code[:16]
		}
		in, err := asm.NewDisassembler(regs.RISCV64, nil).Decode(code, pc)
		if err != nil {
			return
		}
		switch {
		case in.Len != 4 && in.Len != 2 || len(code) < in.Len:
			t.Fatalf("riscv64 length %d for % x", in.Len, code)
		case in.Addr != pc || string(in.Bytes) != string(code[:in.Len]):
			t.Fatalf("Addr %#x Bytes % x for pc %#x code % x", in.Addr, in.Bytes, pc, code)
		case in.Text == "" || in.Op == "":
			t.Fatalf("empty text or mnemonic for % x", code)
		case !in.MemKnown && len(in.Mem) > 0:
			t.Fatalf("%s: memory operands %+v without memory facts", in.Text, in.Mem)
		}
		n := len(regs.RISCV64.Regs)
		for _, r := range in.Mem {
			if r.Base < -1 || r.Base >= n || r.Index < -1 || r.Index >= n || r.Scale < 1 || r.Size < 1 || r.Load == r.Store {
				t.Fatalf("%s: memory operand %+v outside the register file or without a size and one direction", in.Text, r)
			}
		}
	})
}

func FuzzLoadELF(f *testing.F) {
	// Go's byte minimiser is quadratic in the input length: on inputs the
	// size of the ELF seeds (9 KB) minimising one new-coverage input would
	// take the whole default minute of -fuzzminimizetime and a 10 s run
	// would do nothing else. Unless the user chose a value, spend 1 s.
	limitMinimizeTime("1s")
	for _, a := range asmTestArches() {
		elf := fuzzImage(f, a).ELF
		f.Add(elf)
		for _, n := range []int{len(elf) - 1, len(elf) / 2, 64, 52, 16, 4, 0} {
			f.Add(elf[:n])
		}
		// Section headers cut off and a corrupted header table offset.
		bad := append([]byte(nil), elf...)
		bad[0x28]++ // e_shoff
		f.Add(bad)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, a := range asmTestArches() {
			im, err := asm.LoadELF(a, data)
			if err != nil {
				continue
			}
			for _, s := range im.Sections {
				r, ok := a.Memory.Find(s.Addr)
				if !ok || s.Addr+uint64(len(s.Data)) > r.End() {
					t.Fatalf("%s: section %s at %#x+%#x outside the memory map", a.Name, s.Name, s.Addr, len(s.Data))
				}
			}
			if !sort.SliceIsSorted(im.Symbols, func(i, j int) bool { return im.Symbols[i].Addr < im.Symbols[j].Addr }) {
				t.Fatalf("%s: symbols not sorted by address", a.Name)
			}
			for _, s := range im.Symbols {
				im.Describe(s.Addr)
				im.Bytes(s.Addr, 16)
				im.FuncRange(s.Name)
			}
			im.McountLoc()
		}
	})
}
