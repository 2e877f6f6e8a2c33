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
		// form, when set, is the struct ftrace_regs the build has
		// (Arch.FregsForms: AsmOffsetsFor, AsmOffsetsHeaderFor).
		form *regs.Layout
	}{
		{regs.X86_64, nil,
			map[string]int64{"MCOUNT_REG_SIZE": 168, "MCOUNT_FRAME_SIZE": 0},
			map[string]int64{"RAX": 80, "RSP": 152, "SS": 160, "R15": 0, "FRAME_SIZE": 168, "MCOUNT_INSN_SIZE": 5,
				"__KERNEL_CS": 0x10, "__KERNEL_DS": 0x18}, nil},
		{regs.X86_64, map[string]string{"CONFIG_FRAME_POINTER": ""},
			map[string]int64{"MCOUNT_REG_SIZE": 208, "MCOUNT_FRAME_SIZE": 40},
			map[string]int64{"FRAME_SIZE": 168}, nil},
		{regs.S390X, nil, nil,
			map[string]int64{"STACK_FRAME_OVERHEAD": 160, "__SF_BACKCHAIN": 152, "__SF_GPRS": 72, "__PT_PSW": 8,
				"__PT_R2": 40, "__PT_R14": 136, "__PT_R15": 144, "__PT_ORIG_GPR2": 152, "__PT_FLAGS": 176, "__PT_SIZE": 192,
				"__FTRACE_REGS_SIZE": 192, "__FGRAPH_RET_SIZE": 16, "MCOUNT_INSN_SIZE": 6, "_PIF_FTRACE_FULL_REGS": 16,
				"STACK_FRAME_SIZE_FREGS": 352, "STACK_FREGS": 160, "STACK_FREGS_PTREGS_PSW": 168,
				"STACK_FREGS_PTREGS_GPRS": 184, "STACK_FREGS_PTREGS_ORIG_GPR2": 312, "STACK_FREGS_PTREGS_FLAGS": 336,
				"TRACED_FUNC_FRAME_SIZE": 24}, nil},
		// riscv64: v6.11-v6.15 (Frame), v6.16 and v6.16 with clang
		// (reference riscv64.md "Layouts").
		{regs.RISCV64, nil, nil,
			map[string]int64{"FREGS_A0": 40, "FREGS_A7": 96, "FREGS_SIZE_ON_STACK": 112, "PT_SIZE_ON_STACK": 288}, nil},
		{regs.RISCV64, nil, nil,
			map[string]int64{"FREGS_T1": 32, "FREGS_DIRECT_TRAMP": 40, "FREGS_A0": 48, "FREGS_A7": 104, "FREGS_SIZE_ON_STACK": 112},
			regs.RISCV64.FregsLayout(regs.RISCV64FregsV616, nil)},
		{regs.RISCV64, nil, nil,
			map[string]int64{"FREGS_A0": 48, "FREGS_A7": 104, "FREGS_T2": 112, "FREGS_T6": 144, "FREGS_SIZE_ON_STACK": 160},
			regs.RISCV64.FregsLayout(regs.RISCV64FregsV616, map[string]string{"CONFIG_CC_IS_CLANG": ""})},
	}
	for i, c := range cases {
		name := c.arch.Name
		if len(c.defines) > 0 {
			name += "/frame-pointer"
		}
		if c.form != nil {
			name += fmt.Sprintf("/form-%d-%d", i, c.form.Size)
		}
		t.Run(name, func(t *testing.T) {
			a := c.arch
			defs := regs.AsmOffsetsFor(a, c.form)
			if len(defs) == 0 {
				t.Fatal("no defines")
			}
			header := regs.AsmOffsetsHeaderFor(a, c.form)
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

// TestAsmOffsetsValues compares the asm-offsets defines with the values the
// references state (x86_64.md, s390x.md, arm64.md), without assembling.
func TestAsmOffsetsValues(t *testing.T) {
	cases := []struct {
		arch *regs.Arch
		ref  map[string]int64
		// absent: names the arch's kernel does not define (arm64's
		// asm-offsets.c names only the even registers).
		absent []string
	}{
		{regs.X86_64, map[string]int64{"RAX": 80, "RSP": 152, "FRAME_SIZE": 168, "MCOUNT_INSN_SIZE": 5}, nil},
		{regs.S390X, map[string]int64{"__PT_R2": 40, "__PT_SIZE": 192, "__FGRAPH_RET_SIZE": 16, "MCOUNT_INSN_SIZE": 6}, nil},
		{regs.ARM64, map[string]int64{
			"S_X0": 0, "S_X2": 16, "S_X8": 64, "S_X10": 80, "S_X28": 224, "S_FP": 232, "S_LR": 240,
			"S_SP": 248, "S_PC": 256, "S_PSTATE": 264, "S_ORIG_X0": 272, "S_SYSCALLNO": 280,
			"S_STACKFRAME": 304, "S_FRAME_SIZE": 336, "PT_REGS_SIZE": 336,
			"FREGS_X0": 0, "FREGS_X2": 16, "FREGS_X4": 32, "FREGS_X6": 48, "FREGS_X8": 64,
			"FREGS_DIRECT_TRAMP": 72, "FREGS_FP": 80, "FREGS_LR": 88, "FREGS_SP": 96, "FREGS_PC": 104,
			"FREGS_SIZE":    112,
			"FGRET_REGS_X0": 0, "FGRET_REGS_X2": 16, "FGRET_REGS_X4": 32, "FGRET_REGS_X6": 48,
			"FGRET_REGS_FP": 64, "FGRET_REGS_SIZE": 80,
			"FTRACE_OPS_FUNC": 0, "AARCH64_INSN_SIZE": 4, "MCOUNT_INSN_SIZE": 4,
		}, []string{"S_X1", "S_X9", "FREGS_X1", "FREGS_X7", "FGRET_REGS_X1", "S_X29"}},
		{regs.RISCV64, map[string]int64{
			"PT_EPC": 0, "PT_RA": 8, "PT_SP": 16, "PT_GP": 24, "PT_TP": 32, "PT_T0": 40, "PT_T1": 48, "PT_T2": 56,
			"PT_S0": 64, "PT_S1": 72, "PT_A0": 80, "PT_A7": 136, "PT_S2": 144, "PT_S11": 216, "PT_T3": 224, "PT_T6": 248,
			"PT_STATUS": 256, "PT_BADADDR": 264, "PT_CAUSE": 272, "PT_ORIG_A0": 280, "PT_SIZE": 288, "PT_SIZE_ON_STACK": 288,
			"FREGS_EPC": 0, "FREGS_RA": 8, "FREGS_SP": 16, "FREGS_S0": 24, "FREGS_T1": 32, "FREGS_A0": 40, "FREGS_A7": 96,
			"FREGS_SIZE_ON_STACK": 112, "FTRACE_OPS_FUNC": 0, "MCOUNT_INSN_SIZE": 8, "MCOUNT_JALR_SIZE": 4,
		}, []string{"FREGS_DIRECT_TRAMP", "FREGS_T2", "PT_ZERO"}},
	}
	for _, c := range cases {
		t.Run(c.arch.Name, func(t *testing.T) {
			got := map[string]int64{}
			for _, d := range regs.AsmOffsets(c.arch) {
				if _, dup := got[d.Name]; dup {
					t.Errorf("%s defined twice", d.Name)
				}
				got[d.Name] = d.Value
				if d.Source == "" {
					t.Errorf("%s names no kernel source", d.Name)
				}
			}
			for n, v := range c.ref {
				if g, ok := got[n]; !ok || g != v {
					t.Errorf("%s = %d (defined %v), want %d", n, g, ok, v)
				}
			}
			for _, n := range c.absent {
				if _, ok := got[n]; ok {
					t.Errorf("%s is defined; the kernel's asm-offsets.c has no such name", n)
				}
			}
		})
	}
}
