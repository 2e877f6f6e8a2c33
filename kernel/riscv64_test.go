package kernel

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"trampemu/trampolines"
)

// riscvEra is a short file written for these tests with the constructs of
// one era of mcount-dyn.S / mcount.S (not kernel text).
type riscvEra struct {
	name, text string
	model      string
	site       trampolines.CallSite
}

var riscvEras = []riscvEra{
	{"pg", "ftrace_caller:\n\tld\ta1, -8(s0)\n\taddi\ta0, ra, -MCOUNT_INSN_SIZE\n\tcall\tftrace_stub\n\tret\n", "", trampolines.SiteMcount},
	{"ra", "#define OFF 12\nSYM_FUNC_START(ftrace_caller)\n\taddi\tsp, sp, -80\n\taddi\ta0, ra, -OFF\n" +
		"SYM_INNER_LABEL(ftrace_call, SYM_L_GLOBAL)\n\tcall\tftrace_stub\n" +
		"SYM_INNER_LABEL(ftrace_graph_call, SYM_L_GLOBAL)\n\tcall\tftrace_stub\n\tret\nSYM_FUNC_END(ftrace_caller)\n" +
		"#ifdef CONFIG_DYNAMIC_FTRACE_WITH_REGS\nSYM_FUNC_START(ftrace_regs_caller)\n\tREG_S\tra, PT_EPC(sp)\n\tret\nSYM_FUNC_END(ftrace_regs_caller)\n#endif\n",
		"v5.11-v6.2", trampolines.SiteRA},
	{"t0-graph-caller", "ENTRY(ftrace_caller)\n\taddi\ta0, t0, -8\n\tcall\tftrace_stub\nftrace_graph_call:\n\tcall\tftrace_stub\n\tjr\tt0\nENDPROC(ftrace_caller)\n" +
		"ENTRY(ftrace_regs_caller)\n\tREG_S\tt0, PT_EPC(sp)\n\tjr\tt0\nENDPROC(ftrace_regs_caller)\n" +
		"ENTRY(return_to_handler)\n\tmv\ta0, t6\n\tcall\tftrace_return_to_handler\n\tjalr\ta2\nENDPROC(return_to_handler)\n",
		"v6.3-v6.4", trampolines.SiteT0},
	{"pt_regs-ops", "\t.macro SAVE_X\n\tREG_S\tt0, PT_EPC(sp)\n\t.endm\n\t.macro ARGS\n\taddi\ta0, t0, -8\n\t.endm\n" +
		"#ifndef CONFIG_DYNAMIC_FTRACE_WITH_REGS\nSYM_FUNC_START(ftrace_caller)\n\taddi\ta0, t0, -8\nSYM_INNER_LABEL(ftrace_graph_call, SYM_L_GLOBAL)\n\tjr\tt0\nSYM_FUNC_END(ftrace_caller)\n" +
		"#else\nSYM_FUNC_START(ftrace_caller)\n\tSAVE_X\n\tARGS\n\tjr\tt0\nSYM_FUNC_END(ftrace_caller)\n#endif\n" +
		"SYM_CODE_START(ftrace_stub_direct_tramp)\n\tjr\tt0\nSYM_CODE_END(ftrace_stub_direct_tramp)\n" +
		"SYM_FUNC_START(return_to_handler)\n\taddi\tsp, sp, -4*SZREG\n\tmv\ta0, sp\n\tcall\tftrace_return_to_handler\n\tjalr\ta2\nSYM_FUNC_END(return_to_handler)\n",
		"v6.8-v6.10", trampolines.SiteT0},
	{"fregs-t0", "\t.macro SAVE_X\n\tREG_S\tt0, FREGS_EPC(sp)\n\t.endm\n#ifndef CONFIG_DYNAMIC_FTRACE_WITH_ARGS\nSYM_FUNC_START(ftrace_caller)\n\tSAVE_ABI\n" +
		"SYM_INNER_LABEL(ftrace_graph_call, SYM_L_GLOBAL)\n\tjr\tt0\nSYM_FUNC_END(ftrace_caller)\n#else\nSYM_FUNC_START(ftrace_caller)\n\tSAVE_X\n" +
		"\taddi\ta0, t0, -8\n\tbnez\tt1, 1f\n\tjr\tt0\n1:\n\tjr\tt1\nSYM_FUNC_END(ftrace_caller)\n#endif\n" +
		"SYM_FUNC_START(return_to_handler)\n\taddi\tsp, sp, -ABI_SIZE_ON_STACK\n\tREG_S\ta0, 10*SZREG(sp)\n\tmv\ta0, sp\n\tcall\tftrace_return_to_handler\n\tjalr\ta2\nSYM_FUNC_END(return_to_handler)\n",
		"v6.14-v6.15", trampolines.SiteT0},
	{"jalr", "\t.macro ARGS\n\taddi\ta0, t0, -MCOUNT_JALR_SIZE\n\t.endm\nSYM_FUNC_START(ftrace_caller)\n#ifdef CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS\n\tREG_L\tt1, -16(t0)\n#endif\n" +
		"\tREG_S\tt0, FREGS_EPC(sp)\n\tARGS\n\tbnez\tt1, 1f\n\tjr\tt0\n1:\n\tjr\tt1\nSYM_FUNC_END(ftrace_caller)\n" +
		"SYM_FUNC_START(return_to_handler)\n\tREG_S\ta0, FREGS_A0(sp)\n\tmv\ta0, sp\n\tcall\tftrace_return_to_handler\n\tjalr\ta2\nSYM_FUNC_END(return_to_handler)\n",
		"v6.16+", trampolines.SiteJalr},
	{"jalr-draft", "#define OFF 8\nSYM_FUNC_START(ftrace_caller)\n#ifdef CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS\n\tREG_L\tt1, FTRACE_OPS_DIRECT_CALL(t1)\n#endif\n" +
		"\tREG_S\tt0, FREGS_EPC(sp)\n\taddi\ta0, t0, -OFF\n\tREG_L\tra, ftrace_call_dest\n\tjalr\tra\n\tjr\tt0\nSYM_FUNC_END(ftrace_caller)\n",
		"v6.16+", trampolines.SiteJalrDraft},
}

// TestRISCV64Eras: each era's constructs give its model and call site;
// the -pg code fits none.
func TestRISCV64Eras(t *testing.T) {
	for _, e := range riscvEras {
		t.Run(e.name, func(t *testing.T) {
			c, err := Resolve("riscv64", e.name+".S", []byte(e.text), Version{})
			if e.model == "" {
				if err == nil || !strings.Contains(err.Error(), "_mcount") {
					t.Fatalf("want an error naming the -pg _mcount code, got %v (%v)", err, c.Model)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Model.Name != e.model || c.Site != e.site {
				t.Errorf("model %s site %q, want %s %q (%s)", c.Model.Name, c.Site, e.model, e.site, c.Reason)
			}
			for _, p := range c.Properties {
				if p.Name == PropSite && p.Value != string(e.site) {
					t.Errorf("property %s = %q, want %q", p.Name, p.Value, e.site)
				}
			}
		})
	}
}

// TestRISCV64ModelsCoverEveryVersion: from v5.11 on, each version has one
// model, and its partners are registry variants.
func TestRISCV64ModelsCoverEveryVersion(t *testing.T) {
	names := map[string]bool{}
	for _, v := range trampolines.Variants {
		if v.Arch == "riscv64" {
			names[string(v.Role)+"/"+v.Name] = true
		}
	}
	for minor := 11; minor <= 19; minor++ {
		if _, err := ModelFor("riscv64", Version{5, minor}); err != nil && minor <= 19 {
			t.Errorf("v5.%d: %v", minor, err)
		}
	}
	for minor := 0; minor <= 19; minor++ {
		m, err := ModelFor("riscv64", Version{6, minor})
		if err != nil {
			t.Errorf("v6.%d: %v", minor, err)
			continue
		}
		if len(m.Sites) == 0 {
			t.Errorf("%s: no call site", m.Name)
		}
		for role, name := range m.Partner {
			if len(names) > 0 && !names[string(role)+"/"+name] {
				t.Errorf("%s: partner %s %s is no riscv64 registry variant", m.Name, role, name)
			}
		}
	}
	if _, err := ModelFor("riscv64", Version{5, 10}); err == nil {
		t.Error("v5.10 (the -pg _mcount code) has a model")
	}
}

// TestRISCV64BlankBranch: the branch a build with the option does not
// assemble is blanked, lines keep their numbers.
func TestRISCV64BlankBranch(t *testing.T) {
	src := "a\n#ifndef CONFIG_DYNAMIC_FTRACE_WITH_ARGS\nold\n#ifdef X\nx\n#endif\n#else\nnew\n#endif\n#ifdef CONFIG_DYNAMIC_FTRACE_WITH_ARGS\nm\n#else\nn\n#endif\nz\n"
	got := blankBranch(src, riscvArgsIf)
	want := "a\n#ifndef CONFIG_DYNAMIC_FTRACE_WITH_ARGS\n\n\n\n\n#else\nnew\n#endif\n#ifdef CONFIG_DYNAMIC_FTRACE_WITH_ARGS\nm\n#else\n\n#endif\nz\n"
	if got != want {
		t.Errorf("blankBranch:\n%q\nwant\n%q", got, want)
	}
}

// TestRISCV64TreeCompanions: --tree finds mcount-dyn.S and mcount.S
// together.
func TestRISCV64TreeCompanions(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("Makefile", "VERSION = 6\nPATCHLEVEL = 12\n")
	write("arch/riscv/kernel/mcount-dyn.S", riscvEras[4].text)
	write("arch/riscv/kernel/mcount.S", "SYM_FUNC_START(return_to_handler)\n\tmv\ta0, sp\n\tcall\tftrace_return_to_handler\nSYM_FUNC_END(return_to_handler)\n")
	write("arch/x86/kernel/ftrace_64.S", "SYM_FUNC_START(ftrace_caller)\nSYM_FUNC_END(ftrace_caller)\n")
	tr, err := OpenTree(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := tr.Companions["riscv64"]; len(got) != 1 || got[0] != "arch/riscv/kernel/mcount.S" {
		t.Errorf("companions %v, want [arch/riscv/kernel/mcount.S]", got)
	}
}

// FuzzBlankBranch: any text keeps its line count and never grows.
func FuzzBlankBranch(f *testing.F) {
	f.Add("#ifndef CONFIG_DYNAMIC_FTRACE_WITH_ARGS\na\n#else\nb\n#endif\n")
	f.Add("#if defined(CONFIG_DYNAMIC_FTRACE_WITH_REGS)\n#else\n#elif\n")
	f.Fuzz(func(t *testing.T, s string) {
		for _, re := range []*regexp.Regexp{riscvArgsIf, riscvRegsIf} {
			got := blankBranch(s, re)
			if strings.Count(got, "\n") != strings.Count(s, "\n") || len(got) > len(s) {
				t.Fatalf("blankBranch(%q) = %q", s, got)
			}
		}
		_, _ = Resolve("riscv64", "f.S", []byte(s), Version{})
	})
}

// TestRiscvDefines: every "#define NAME VALUE" of the file is kept, and a
// name resolves through up to four of them (FENTRY_RA_OFFSET -> 12), a
// longer chain stopping at the fourth, a cycle ending.
func TestRiscvDefines(t *testing.T) {
	d := riscvDefines("#define A 12\n#define B A\n#define C B\n#define D C\n#define E D\n#define X Y\n#define Y X\n")
	if len(d) != 7 {
		t.Fatalf("defines %v, want 7", d)
	}
	for name, want := range map[string]string{"A": "12", "D": "12", "E": "A", "Z": "Z", "X": "X"} {
		if got := d.value(name); got != want {
			t.Errorf("value(%s) = %s, want %s", name, got, want)
		}
	}
}
