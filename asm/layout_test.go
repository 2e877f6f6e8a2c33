package asm_test

import (
	"fmt"
	"testing"

	"trampemu/asm"
	"trampemu/regs"
)

// UnitLine and UnitOffset place a unit that many bytes into a cache line
// and every other unit at a line's start, on every arch; x86-64 aligns its
// functions to CONFIG_FUNCTION_ALIGNMENT when the build defines it (16 in
// the kernel, arch/x86/include/asm/linkage.h), to the prelude's 4
// otherwise, and the other arches' preludes do not use it.
func TestUnitOffsetsAndFunctionAlignment(t *testing.T) {
	for _, c := range []struct {
		arch    *regs.Arch
		ret     string
		align16 bool
	}{
		{regs.X86_64, "RET", true},
		{regs.S390X, "BR_EX %r14", false},
		{regs.ARM64, "ret", false},
		{regs.RISCV64, "ret", false},
	} {
		if len(regs.Arches) != 4 {
			t.Fatalf("regs.Arches has %d arches: add the new one here", len(regs.Arches))
		}
		t.Run(c.arch.Name, func(t *testing.T) {
			// f1 is one return long, f2 follows it: its address shows the
			// alignment.
			a := fmt.Sprintf("\t.text\nSYM_FUNC_START(f1)\n\t%s\nSYM_FUNC_END(f1)\nSYM_FUNC_START(f2)\n\t%s\nSYM_FUNC_END(f2)\n", c.ret, c.ret)
			b := fmt.Sprintf("\t.text\nSYM_FUNC_START(g)\n\t%s\nSYM_FUNC_END(g)\n", c.ret)
			for _, off := range []int{0, 16, 32, 48} {
				for _, kernelAlign := range []bool{false, true} {
					opt := asm.Options{Arch: c.arch, UnitLine: 64, UnitOffset: map[string]int{"b": off}}
					if kernelAlign {
						opt.Defines = map[string]string{"CONFIG_FUNCTION_ALIGNMENT": "16"}
					}
					im, err := asm.Build(opt, asm.Source{Name: "a.S", Text: []byte(a), Unit: "a"}, asm.Source{Name: "b.S", Text: []byte(b), Unit: "b"})
					if err != nil {
						t.Fatal(err)
					}
					ua, _ := im.Unit("a")
					ub, _ := im.Unit("b")
					g, _ := im.Symbol("g")
					if ua.Start%64 != 0 || int(ub.Start%64) != off || g != ub.Start {
						t.Errorf("offset %d: unit a at %#x, unit b at %#x, g at %#x", off, ua.Start, ub.Start, g)
					}
					f1, _ := im.Symbol("f1")
					f2, _ := im.Symbol("f2")
					want := uint64(4)
					if kernelAlign && c.align16 {
						want = 16
					}
					if f2-f1 != want {
						t.Errorf("kernel alignment %v: f1 at %#x, f2 at %#x, want f2 on the next %d-byte boundary", kernelAlign, f1, f2, want)
					}
				}
			}
		})
	}
}
