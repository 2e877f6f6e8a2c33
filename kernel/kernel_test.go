package kernel

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"trampemu/trampolines"
)

func TestParseVersion(t *testing.T) {
	cases := []struct {
		in   string
		want Version
		err  bool
	}{
		{"v6.14", Version{6, 14}, false},
		{"6.1", Version{6, 1}, false},
		{"5.10.198", Version{5, 10}, false},
		{"v6.19-rc2", Version{6, 19}, false},
		{"v6.14+", Version{6, 14}, false},
		{"v6.5-v6.13", Version{6, 5}, false},
		{"six", Version{}, true},
		{"v6", Version{}, true},
		{"v99999.1", Version{}, true},
	}
	for _, c := range cases {
		got, err := ParseVersion(c.in)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("ParseVersion(%q) = %v, %v; want %v, error %v", c.in, got, err, c.want, c.err)
		}
	}
}

// TestModelFor: every version of v4.19..v6.19 (arm64: from v5.5, its first
// DYNAMIC_FTRACE_WITH_REGS) has exactly one model per arch, and a version
// before the first model is an error listing them.
func TestModelFor(t *testing.T) {
	first := map[string]Version{"x86_64": {4, 19}, "s390x": {4, 19}, "arm64": {5, 5}}
	for _, arch := range []string{"x86_64", "s390x", "arm64"} {
		for maj := 4; maj <= 6; maj++ {
			for min := 0; min <= 20; min++ {
				v := Version{maj, min}
				if v.Less(first[arch]) || (Version{6, 19}).Less(v) || v == (Version{5, 20}) {
					continue // v5.19 was followed by v6.0
				}
				n := 0
				for _, m := range ModelsOf(arch) {
					if m.Contains(v) {
						n++
					}
				}
				if n != 1 {
					t.Errorf("%s %s: %d models", arch, v, n)
				}
			}
		}
		if _, err := ModelFor(arch, Version{3, 10}); err == nil || !strings.Contains(err.Error(), "v6.14+") {
			t.Errorf("%s v3.10: %v, want an error listing the models", arch, err)
		}
		for _, m := range ModelsOf(arch) {
			for _, r := range []trampolines.Role{trampolines.Entry, trampolines.Exit} {
				if m.Partner[r] == "" {
					t.Errorf("%s %s: no partner for %s", arch, m.Name, r)
				}
			}
			if m.Config["CONFIG_DYNAMIC_FTRACE"] != "y" || m.Config["CONFIG_FUNCTION_GRAPH_TRACER"] != "y" {
				t.Errorf("%s %s: distribution defaults lack dynamic ftrace or the graph tracer", arch, m.Name)
			}
		}
	}
}

func TestDetect(t *testing.T) {
	cases := []struct {
		arch, text, model string
	}{
		{"x86_64", "SYM_CODE_START(return_to_handler)\n\tsubq $24, %rsp\n\tmovq %rbp, %rdi\n\tcall ftrace_return_to_handler\n", "v5.16-v6.4"},
		{"x86_64", "SYM_CODE_START(return_to_handler)\n\tsubq $24, %rsp\n\tmovq %rsp, %rdi\n\tcall ftrace_return_to_handler\n", "v6.5-v6.13"},
		{"x86_64", "SYM_CODE_START(return_to_handler)\n\tmovq %rax, RAX(%rsp)\n\tmovq %rsp, %rdi\n\tcall ftrace_return_to_handler\n", "v6.14+"},
		{"x86_64", "ENTRY(ftrace_caller)\n\tmovq $0, %rcx\nGLOBAL(ftrace_call)\n\tcall ftrace_stub\nGLOBAL(ftrace_graph_call)\n", "v4.19-v5.10"},
		{"x86_64", "SYM_FUNC_START(ftrace_caller)\n\tmovq $0, CS(%rsp) /* $0, %rcx in a comment */\nSYM_INNER_LABEL(ftrace_call, SYM_L_GLOBAL)\nSYM_INNER_LABEL(ftrace_graph_call, SYM_L_GLOBAL)\n", "v5.11-v5.15"},
		{"s390x", "ENTRY(ftrace_caller)\n\t.set ftrace_regs_caller,ftrace_caller\nftrace_graph_caller:\n", "v5.2-v5.13"},
		{"s390x", "ENTRY(ftrace_caller)\n\t.set ftrace_regs_caller,ftrace_caller\nftrace_graph_caller:\n\tlg\t%r2,(STACK_PTREGS_GPRS+14*8)(%r15)\n\tlg\t%r3,(STACK_PTREGS_PSW+8)(%r15)\n\tbrasl\t%r14,prepare_ftrace_return\n", "v4.19-v5.1"},
		{"s390x", "ENTRY(ftrace_caller)\n\t.set ftrace_regs_caller,ftrace_caller\nftrace_graph_caller:\n\tlmg\t%r2,%r3,(STACK_PTREGS_GPRS+14*8)(%r15)\n\tlg\t%r4,(STACK_PTREGS_PSW+8)(%r15)\n\tbrasl\t%r14,prepare_ftrace_return\n", "v5.2-v5.13"},
		{"s390x", "SYM_CODE_START(ftrace_caller)\nSYM_CODE_START(ftrace_regs_caller)\nSYM_INNER_LABEL(ftrace_graph_caller, SYM_L_GLOBAL)\n", "v6.5-v6.12"},
		{"s390x", "SYM_FUNC_START(return_to_handler)\n\tstg %r1,__FGRAPH_RET_FP(%r3)\n\tbrasl %r14,ftrace_return_to_handler\n", "v6.13"},
		{"s390x", "SYM_FUNC_START(return_to_handler)\n# a comment naming __FGRAPH_RET_FP\n\tstg %r2,(STACK_FREGS_PTREGS_GPRS+2*8)(%r15)\n\tbrasl %r14,ftrace_return_to_handler\n", "v6.14+"},
	}
	for _, c := range cases {
		ch, err := Detect(c.arch, []byte(c.text))
		if err != nil {
			t.Errorf("%s %q: %v", c.arch, c.text, err)
			continue
		}
		if ch.Model.Name != c.model || ch.Reason == "" {
			t.Errorf("%s %q: %s (%s), want %s", c.arch, c.text, ch.Model.Name, ch.Reason, c.model)
		}
	}
	if _, err := Detect("x86_64", []byte("nothing here")); err == nil || !strings.Contains(err.Error(), "defines neither") {
		t.Errorf("empty file: %v", err)
	}
	if _, err := Detect("arm64", []byte("x")); err == nil {
		t.Error("arm64: want an error")
	}
}

func TestConfig(t *testing.T) {
	c, err := ParseConfig(".config", []byte("# comment\nCONFIG_A=y\nCONFIG_B=m\nCONFIG_C=\"str\"\nCONFIG_D=32\n# CONFIG_A is not set\nCONFIG_E=n\n"))
	if err != nil {
		t.Fatal(err)
	}
	d := c.Defines()
	want := map[string]string{"CONFIG_B_MODULE": "1", "CONFIG_C": "\"str\"", "CONFIG_D": "32"}
	if len(d) != len(want) {
		t.Errorf("defines %v, want %v", d, want)
	}
	for k, v := range want {
		if d[k] != v {
			t.Errorf("%s = %q, want %q", k, d[k], v)
		}
	}
	if _, err := ParseConfig("x.config", []byte("CONFIG_A=y\nnot a line\n")); err == nil || !strings.Contains(err.Error(), "x.config:2") {
		t.Errorf("bad line: %v", err)
	}
	o := Options{Define: []string{"CONFIG_FRAME_POINTER", "X=3"}, Undef: []string{"CONFIG_D"}}
	got, err := o.Apply(c)
	if err != nil {
		t.Fatal(err)
	}
	if got["CONFIG_FRAME_POINTER"] != "y" || got["X"] != "3" || got["CONFIG_D"] != "" || c["CONFIG_D"] != "32" {
		t.Errorf("Apply: %v (base %v)", got, c)
	}
	for _, bad := range []Options{{Define: []string{"1X"}}, {Undef: []string{"A B"}}} {
		if _, err := bad.Apply(c); err == nil {
			t.Errorf("%+v: want an error", bad)
		}
	}
}

func TestStandIns(t *testing.T) {
	// arm64's entry-ftrace.S calls no kernel function outside ftrace's
	// own (kernel/arm64.go), nor does s390x's mcount.S now that
	// arch_rethook_trampoline_callback is a host function: their
	// stand-ins are an empty .text.
	for arch, want := range map[string]bool{"x86_64": true, "s390x": false, "arm64": false} {
		s := StandIns(arch)
		if strings.Contains(s, ".weak") != want || !strings.HasPrefix(s, "\t.text\n") {
			t.Errorf("%s: stand-ins %v, want %v:\n%s", arch, strings.Contains(s, ".weak"), want, s)
		}
	}
}

func FuzzParseConfig(f *testing.F) {
	f.Add([]byte("CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C=\"x\"\n"))
	f.Add([]byte("garbage"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseConfig("fuzz", data)
		if err != nil {
			return
		}
		for k := range c.Defines() {
			if !defineName.MatchString(k) {
				t.Fatalf("define %q is not a name", k)
			}
		}
		again, err := ParseConfig("again", []byte(c.String()))
		if err != nil || len(again) != len(c) {
			t.Fatalf("round trip: %v, %d vs %d options", err, len(again), len(c))
		}
	})
}

func FuzzParseVersion(f *testing.F) {
	f.Add("v6.14")
	f.Add("5.10.198-rc1")
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseVersion(s)
		if err != nil {
			return
		}
		if w, err := ParseVersion(v.String()); err != nil || w != v {
			t.Fatalf("%q -> %v -> %v, %v", s, v, w, err)
		}
	})
}

func FuzzDetect(f *testing.F) {
	f.Add("x86_64", "SYM_CODE_START(return_to_handler)\n\tmovq %rax, RAX(%rsp)\n\tcall ftrace_return_to_handler\n")
	f.Add("s390x", "ENTRY(ftrace_caller)\n\t.set ftrace_regs_caller,ftrace_caller\n")
	f.Add("s390x", "ENTRY(ftrace_caller)\nftrace_graph_caller:\n\tlg\t%r3,(STACK_PTREGS_PSW+8)(%r15)\n\tbrasl\t%r14,prepare_ftrace_return\n")
	f.Add("s390x", "ENTRY(ftrace_caller)\nftrace_graph_caller:\n\tlmg\t%r2,%r3,(STACK_PTREGS_GPRS+14*8)(%r15)\n\tbrasl\t%r14,prepare_ftrace_return\n")
	f.Add("arm64", "#ifdef CONFIG_DYNAMIC_FTRACE_WITH_ARGS\nSYM_CODE_START(ftrace_caller)\n\tstr x9, [sp, #FREGS_LR]\n#else\nftrace_graph_call:\n#endif\n")
	f.Add("arm64", "SYM_CODE_START(return_to_handler)\n\tmov x0, x29\n\tbl ftrace_return_to_handler\n")
	f.Fuzz(func(t *testing.T, arch, text string) {
		ch, err := Detect(arch, []byte(text))
		if err == nil && (ch.Model == nil || ch.Reason == "" || ch.Model.Arch != arch) {
			t.Fatalf("Detect(%q) = %+v without an error", arch, ch)
		}
	})
}

func TestMakefileVersion(t *testing.T) {
	v, err := MakefileVersion([]byte("# SPDX\nVERSION = 6\nPATCHLEVEL = 14\nSUBLEVEL = 3\nEXTRAVERSION = -rc1\nNAME = Baby Opossum Posse\n"))
	if err != nil || v != (Version{6, 14}) {
		t.Errorf("got %v, %v; want v6.14", v, err)
	}
	if _, err := MakefileVersion([]byte("all:\n\techo\n")); err == nil {
		t.Error("a Makefile without VERSION: want an error")
	}
}

// TestOpenTree: a generated tree per arch, with and without a .config.
func TestOpenTree(t *testing.T) {
	for _, c := range []struct{ arch, file, config string }{
		{"x86_64", "arch/x86/kernel/ftrace_64.S", "CONFIG_X86_64=y\n"},
		{"s390x", "arch/s390/kernel/mcount.S", "CONFIG_S390=y\nCONFIG_64BIT=y\n"},
		{"s390x", "arch/s390/kernel/mcount.S", ""},
	} {
		dir := t.TempDir()
		for rel, text := range map[string]string{"Makefile": "VERSION = 6\nPATCHLEVEL = 1\n", c.file: "/* empty */\n", ".config": c.config} {
			if rel == ".config" && text == "" {
				continue
			}
			p := filepath.Join(dir, rel)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		tr, err := OpenTree(dir)
		if err != nil {
			t.Fatal(err)
		}
		if tr.Version != (Version{6, 1}) || tr.Files[c.arch] != c.file || len(tr.Arches()) != 1 {
			t.Errorf("%s: %+v", c.arch, tr)
		}
		if got := tr.ConfigFor(c.arch) != nil; got != (c.config != "") {
			t.Errorf("%s: config for the arch: %v, want %v", c.arch, got, c.config != "")
		}
	}
	if _, err := OpenTree(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no top Makefile") {
		t.Errorf("empty dir: %v", err)
	}
}

// TestOpenTreeRefuses: a tree whose trampoline file links out of it, or
// is a FIFO, is refused naming the file; VERSION up to 1000 is read, more
// is not a version.
func TestOpenTreeRefuses(t *testing.T) {
	const rel = "arch/x86/kernel/ftrace_64.S"
	for _, c := range []struct {
		name string
		make func(p string) error
		says string
	}{
		{"a link out", func(p string) error { return os.Symlink(filepath.Join(t.TempDir(), "secret.S"), p) }, rel + " is a symbolic link"},
		{"a FIFO", func(p string) error { return syscall.Mkfifo(p, 0o644) }, rel + " is not a regular file"},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "Makefile"), []byte("VERSION = 6\nPATCHLEVEL = 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := c.make(p); err != nil {
			t.Fatal(err)
		}
		if _, err := OpenTree(dir); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v, want it refused saying %q", c.name, err, c.says)
		}
	}
	for _, c := range []struct {
		mk string
		ok bool
	}{{"VERSION = 1000\nPATCHLEVEL = 1000\n", true}, {"VERSION = 1001\nPATCHLEVEL = 1\n", false}, {"VERSION = 6\nPATCHLEVEL = 1001\n", false}} {
		if _, err := MakefileVersion([]byte(c.mk)); (err == nil) != c.ok {
			t.Errorf("%q: %v, want ok %v", c.mk, err, c.ok)
		}
	}
	for _, c := range []struct {
		v  string
		ok bool
	}{{"v1000.1000", true}, {"v1001.0", false}, {"v6.1001", false}} {
		if _, err := ParseVersion(c.v); (err == nil) != c.ok {
			t.Errorf("ParseVersion(%s): %v, want ok %v", c.v, err, c.ok)
		}
	}
}

// TestNearest: the fitting model closest to the era in the arch's order,
// whichever side, in either order of the candidates; a tie (the
// candidates in the arch's order, as Resolve lists them) goes to the newer.
func TestNearest(t *testing.T) {
	ms := []*Model{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "d"}, {Name: "e"}}
	a, b, c, d := ms[0], ms[1], ms[2], ms[3]
	for _, tc := range []struct {
		fit  []*Model
		want *Model
	}{{[]*Model{a, d}, d}, {[]*Model{d, a}, d}, {[]*Model{b, d}, d}, {[]*Model{a, c}, c}} {
		if got := nearest(ms, tc.fit, c); got != tc.want {
			t.Errorf("nearest to c of %s, %s: %s, want %s", tc.fit[0].Name, tc.fit[1].Name, got.Name, tc.want.Name)
		}
	}
}

func FuzzMakefileVersion(f *testing.F) {
	f.Add([]byte("VERSION = 6\nPATCHLEVEL = 19\n"))
	f.Add([]byte("VERSION = 99999999999999999999\nPATCHLEVEL = 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := MakefileVersion(data)
		if err == nil && (v.Major > 1000 || v.Minor > 1000) {
			t.Fatalf("version %v accepted", v)
		}
	})
}
