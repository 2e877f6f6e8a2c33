package regs_test

import (
	"fmt"
	"strings"
	"testing"

	"trampemu/asm"
	"trampemu/regs"
)

// TestAsmOffsetsHeaderAssembles builds a source emitting ".quad NAME" for
// every define of regs.AsmOffsets (plus the frame-pointer dependent x86-64
// sizes) against regs.AsmOffsetsHeader, and reads the assembled values back
// from the image's .data.
func TestAsmOffsetsHeaderAssembles(t *testing.T) {
	cases := []struct {
		arch    *regs.Arch
		defines map[string]string
		// extra: names the header defines beyond AsmOffsets, with their values.
		extra map[string]int64
		// ref: values the references (x86_64.md, s390x.md) state, checked
		// against the Go definitions too.
		ref map[string]int64
	}{
		{regs.X86_64, nil,
			map[string]int64{"MCOUNT_REG_SIZE": 168, "MCOUNT_FRAME_SIZE": 0},
			map[string]int64{"RAX": 80, "RSP": 152, "SS": 160, "R15": 0, "FRAME_SIZE": 168, "MCOUNT_INSN_SIZE": 5,
				"__KERNEL_CS": 0x10, "__KERNEL_DS": 0x18}},
		{regs.X86_64, map[string]string{"CONFIG_FRAME_POINTER": ""},
			map[string]int64{"MCOUNT_REG_SIZE": 208, "MCOUNT_FRAME_SIZE": 40},
			map[string]int64{"FRAME_SIZE": 168}},
		{regs.S390X, nil, nil,
			map[string]int64{"STACK_FRAME_OVERHEAD": 160, "__SF_BACKCHAIN": 152, "__SF_GPRS": 72, "__PT_PSW": 8,
				"__PT_R2": 40, "__PT_R14": 136, "__PT_R15": 144, "__PT_ORIG_GPR2": 152, "__PT_FLAGS": 176, "__PT_SIZE": 192,
				"__FTRACE_REGS_SIZE": 192, "__FGRAPH_RET_SIZE": 16, "MCOUNT_INSN_SIZE": 6, "_PIF_FTRACE_FULL_REGS": 16,
				"STACK_FRAME_SIZE_FREGS": 352, "STACK_FREGS": 160, "STACK_FREGS_PTREGS_PSW": 168,
				"STACK_FREGS_PTREGS_GPRS": 184, "STACK_FREGS_PTREGS_ORIG_GPR2": 312, "STACK_FREGS_PTREGS_FLAGS": 336,
				"TRACED_FUNC_FRAME_SIZE": 24}},
	}
	for _, c := range cases {
		name := c.arch.Name
		if len(c.defines) > 0 {
			name += "/frame-pointer"
		}
		t.Run(name, func(t *testing.T) {
			a := c.arch
			defs := regs.AsmOffsets(a)
			if len(defs) == 0 {
				t.Fatal("no defines")
			}
			header := regs.AsmOffsetsHeader(a)
			type entry struct {
				name string
				want int64
			}
			var entries []entry
			seen := map[string]bool{}
			for _, d := range defs {
				if d.Name == "" || seen[d.Name] {
					t.Errorf("define %q empty or repeated", d.Name)
				}
				seen[d.Name] = true
				if d.Source == "" {
					t.Errorf("define %s names no kernel source", d.Name)
				}
				if !strings.Contains(header, fmt.Sprintf("#define %s %d ", d.Name, d.Value)) {
					t.Errorf("header lacks #define %s %d", d.Name, d.Value)
				}
				entries = append(entries, entry{d.Name, d.Value})
			}
			for n, v := range c.extra {
				entries = append(entries, entry{n, v})
			}
			for n, v := range c.ref {
				if !seen[n] {
					t.Errorf("AsmOffsets has no %s", n)
				}
				entries = append(entries, entry{n + " (reference)", v})
			}
			var src strings.Builder
			src.WriteString("#include <asm/asm-offsets.h>\n\t.data\n\t.balign 8\nSYM_DATA_START(offsets)\n")
			for _, e := range entries {
				fmt.Fprintf(&src, "\t.quad\t%s\n", strings.TrimSuffix(e.name, " (reference)"))
			}
			src.WriteString("SYM_DATA_END(offsets)\n")
			im, err := asm.Build(asm.Options{Arch: a, Defines: c.defines,
				// The header under test, explicitly, as the name the prelude includes.
				Headers: map[string][]byte{"asm/asm-offsets.h": []byte(header)}},
				asm.Source{Name: "offsets.S", Text: []byte(src.String())})
			if err != nil {
				t.Fatal(err)
			}
			addr, ok := im.Symbol("offsets")
			if !ok {
				t.Fatal("no symbol offsets")
			}
			b := im.Bytes(addr, 8*len(entries))
			if len(b) != 8*len(entries) {
				t.Fatalf("%d bytes of .data at %#x, want %d", len(b), addr, 8*len(entries))
			}
			for i, e := range entries {
				if got := int64(a.Word(b[8*i:])); got != e.want {
					t.Errorf("%s assembled to %d, want %d", e.name, got, e.want)
				}
			}
		})
	}
}
