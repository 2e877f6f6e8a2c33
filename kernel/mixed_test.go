package kernel

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"trampemu/regs"
	"trampemu/trampolines"
)

// mixedCase is a test file of our own whose entry and return_to_handler
// are of different eras, as a stable tree's backport makes them, with the
// model and properties it must get alone (--file) and in a tree whose
// Makefile says makefile.
type mixedCase struct {
	arch, file string
	model      string            // alone and in the tree
	props      map[string]string // property -> value, each decided by the file
	makefile   Version
	note       string // in the tree's note ("" none)
	// treeModel is the model in the tree when it is not model: the
	// Makefile's era fills what the file does not decide (its CONFIG
	// options).
	treeModel string
}

// mixedCases: an old graph path with a new exit and a new entry with an
// old exit, on every arch (regs.Arches). On x86-64 a new entry with an
// old exit is an era of its own (v5.16-v6.4): the era name stays.
var mixedCases = []mixedCase{
	{"x86_64", "x86_64_mixed_old_graph.S", "v5.11-v5.15 entry, v6.14+ exit",
		map[string]string{PropGraph: "ftrace_graph_caller", PropPrepare: "(ip, parent, frame_pointer)", PropExit: "struct ftrace_regs",
			PropArgs: "yes (struct ftrace_regs)", PropDirect: "yes"},
		Version{5, 15}, "Makefile says v5.15; its return_to_handler is v6.14+-style: a stable backport", ""},
	{"x86_64", "x86_64_mixed_new_entry.S", "v5.16-v6.4",
		map[string]string{PropGraph: "ftrace_graph_func", PropPrepare: "not called", PropExit: "frame_pointer", PropArgs: "yes (struct ftrace_regs)"},
		Version{6, 14}, "Makefile says v6.14; its return_to_handler is v5.16-v6.4-style: older code than the Makefile's version",
		"v6.14+ entry, v5.16-v6.4 exit"},
	{"s390x", "s390x_mixed_old_graph.S", "v6.5-v6.12 entry, v6.14+ exit",
		map[string]string{PropGraph: "ftrace_graph_caller", PropPrepare: "(ra, sp, ip)", PropExit: "struct ftrace_regs", PropRegsCaller: "its own code"},
		Version{6, 12}, "Makefile says v6.12; its return_to_handler is v6.14+-style: a stable backport", ""},
	{"s390x", "s390x_mixed_new_entry.S", "v6.14+ entry, v5.14-v6.4 exit",
		map[string]string{PropGraph: "ftrace_graph_func", PropExit: "frame_pointer", PropRegsCaller: "its own code"},
		Version{6, 14}, "Makefile says v6.14; its return_to_handler is v5.14-v6.4-style: older code", ""},
	{"arm64", "arm64_mixed_old_graph.S", "v5.5-v5.19 entry, v6.14+ exit",
		map[string]string{PropGraph: "ftrace_graph_caller", PropPrepare: "(ip, parent, frame_pointer)", PropExit: "struct ftrace_regs",
			PropArgs: "no (struct pt_regs)", PropCallOps: "no", PropDirect: "no"},
		Version{5, 10}, "Makefile says v5.10; its return_to_handler is v6.14+-style: a stable backport", ""},
	{"arm64", "arm64_mixed_new_entry.S", "v6.2 entry, v6.5-v6.13 exit",
		map[string]string{PropGraph: "ftrace_graph_func", PropExit: "struct fgraph_ret_regs", PropArgs: "yes (struct ftrace_regs)",
			PropCallOps: "no", PropDirect: "no"},
		Version{6, 2}, "Makefile says v6.2; its return_to_handler is v6.5-v6.13-style: a stable backport", ""},
	{"riscv64", "riscv64_mixed_old_graph.S", "v6.5-v6.7 entry, v6.14-v6.15 exit",
		map[string]string{PropSite: "t0", PropGraph: "ftrace_graph_caller", PropPrepare: "(parent, ip, frame_pointer)", PropExit: "struct ftrace_regs",
			PropArgs: "no (struct pt_regs)", PropCallOps: "no", PropDirect: "no"},
		Version{6, 7}, "Makefile says v6.7; its return_to_handler is v6.14-v6.15-style: a stable backport", ""},
	{"riscv64", "riscv64_mixed_new_entry.S", "v6.14-v6.15 entry, v6.3-v6.4 exit",
		map[string]string{PropSite: "t0", PropGraph: "ftrace_graph_func", PropExit: "frame_pointer", PropArgs: "yes (struct ftrace_regs)",
			PropCallOps: "no", PropDirect: "yes"},
		Version{6, 14}, "Makefile says v6.14; its return_to_handler is v6.3-v6.4-style: older code than the Makefile's version", ""},
}

func TestMixedEras(t *testing.T) {
	seen := map[string]int{}
	for _, c := range mixedCases {
		seen[c.arch]++
		t.Run(c.file, func(t *testing.T) {
			path := filepath.Join("../tests/testdata/kernel", c.file)
			text, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			alone, err := Resolve(c.arch, c.file, text, Version{})
			if err != nil {
				t.Fatal(err)
			}
			tree, err := Resolve(c.arch, "arch/x/"+c.file, text, c.makefile)
			if err != nil {
				t.Fatal(err)
			}
			for i, ch := range []Choice{alone, tree} {
				want := c.model
				if i == 1 && c.treeModel != "" {
					want = c.treeModel
				}
				if ch.Model.Name != want {
					t.Errorf("model %s (%s), want %s", ch.Model.Name, ch.Reason, want)
				}
				got := map[string]Property{}
				for _, p := range ch.Properties {
					got[p.Name] = p
				}
				for name, want := range c.props {
					p, ok := got[name]
					switch {
					case !ok:
						t.Errorf("no property %s", name)
					case p.Value != want || p.From != fromFile:
						t.Errorf("%s = %q from %s (%s), want %q from the file", name, p.Value, p.From, p.Evidence, want)
					}
				}
				for _, name := range archHooks[c.arch].props {
					if _, ok := got[name]; !ok {
						t.Errorf("property %s missing", name)
					}
				}
			}
			// Every property the file decides cites its file:line.
			for _, p := range tree.Properties {
				if p.From == fromFile && p.Name != PropPrepare && !strings.Contains(p.Evidence, "arch/x/"+c.file+":") {
					t.Errorf("%s: evidence %q names no arch/x/%s:LINE", p.Name, p.Evidence, c.file)
				}
			}
			if !strings.Contains(tree.Note, c.note) || tree.Makefile != c.makefile {
				t.Errorf("tree note %q (Makefile %s), want %q", tree.Note, tree.Makefile, c.note)
			}
			if alone.Note != "" {
				t.Errorf("alone: note %q, want none", alone.Note)
			}
			// The composed model builds what both halves need: the exit
			// era's exit options, the entry era's others.
			for _, m := range ModelsOf(c.arch) {
				if m == tree.Model {
					return // an era: nothing composed
				}
			}
			for k, v := range archHooks[c.arch].exitOptions[tree.Model.ExitABI] {
				if tree.Model.Config[k] != v {
					t.Errorf("composed config lacks %s=%s", k, v)
				}
			}
		})
	}
	for _, a := range regs.Arches {
		// An arch whose models have no old graph path (riscv64 so far:
		// v6.11+ only; its older eras are to come) has no mixed era of
		// that kind.
		if seen[a.Name] < 2 && hasGraphViaCaller(a.Name) {
			t.Errorf("%s: %d mixed-era cases, want an old graph path with a new exit and a new entry with an old exit", a.Name, seen[a.Name])
		}
	}
}

// hasGraphViaCaller reports whether one of the arch's models starts the
// graph through ftrace_graph_caller.
func hasGraphViaCaller(arch string) bool {
	for _, m := range ModelsOf(arch) {
		if m.Graph == trampolines.GraphViaCaller {
			return true
		}
	}
	return false
}

// TestTreeAgreesWithFile: a file that fits one era gets that era in a tree
// whose Makefile says so, without a note, and undecided properties say
// they come from the Makefile.
func TestTreeAgreesWithFile(t *testing.T) {
	for _, a := range regs.Arches {
		text := []byte("SYM_CODE_START(return_to_handler)\n1:\tnop\nSYM_CODE_END(return_to_handler)\n")
		// v6.1, or the arch's first era when it has none for v6.1
		// (riscv64's models start at v6.11).
		v := Version{6, 1}
		if _, err := ModelFor(a.Name, v); err != nil {
			v = ModelsOf(a.Name)[0].From
		}
		c, err := Resolve(a.Name, "F.S", text, v)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := ModelFor(a.Name, v)
		if c.Model != want || c.Note != "" || c.Reason != "the tree's Makefile says "+v.String() {
			t.Errorf("%s: %s (%s) note %q, want %s without a note", a.Name, c.Model.Name, c.Reason, c.Note, want.Name)
		}
		for _, p := range c.Properties {
			if p.Name == PropGraph && (p.From != fromMakefile || !strings.Contains(p.Evidence, "Makefile says "+v.String())) {
				t.Errorf("%s: %+v, want it from the Makefile", a.Name, p)
			}
		}
		// A Makefile no model covers: the file decides, the note says so.
		c, err = Resolve(a.Name, "F.S", text, Version{3, 10})
		if err != nil || !strings.Contains(c.Note, "Makefile says v3.10, which no") {
			t.Errorf("%s v3.10: %v, note %q", a.Name, err, c.Note)
		}
	}
}

// FuzzResolve: any text, alone or in a tree of any version, gets a model
// of its arch with every property of the arch and evidence for each, or an
// error; a property the file decides names a line the file has.
func FuzzResolve(f *testing.F) {
	// Small seeds in the shapes of the mixed files (whole files make each
	// execution milliseconds of regexp work).
	f.Add("x86_64", "SYM_FUNC_START(ftrace_caller)\n\tmovq %rcx, RSP(%rsp)\nSYM_INNER_LABEL(ftrace_call, SYM_L_GLOBAL)\nSYM_INNER_LABEL(ftrace_graph_call, SYM_L_GLOBAL)\n"+
		"SYM_FUNC_START(ftrace_graph_caller)\n\tcall prepare_ftrace_return\nSYM_CODE_START(return_to_handler)\n\tsubq $(FRAME_SIZE), %rsp\n\tcall ftrace_return_to_handler\n", 5, 15)
	f.Add("s390x", "SYM_CODE_START(ftrace_regs_caller)\nSYM_CODE_START(ftrace_caller)\nSYM_INNER_LABEL(ftrace_graph_caller, SYM_L_GLOBAL)\n\tlmg %r2,%r3,(STACK_FREGS_PTREGS_GPRS+14*8)(%r15)\n"+
		"\tbrasl %r14,prepare_ftrace_return\nSYM_FUNC_START(return_to_handler)\n\taghi %r15,-STACK_FRAME_SIZE_FREGS\n\tbrasl %r14,ftrace_return_to_handler\n", 6, 12)
	f.Add("arm64", "#ifdef CONFIG_DYNAMIC_FTRACE_WITH_REGS\nSYM_CODE_START(ftrace_caller)\n\tstp x0, x1, [sp, #S_X0]\nSYM_INNER_LABEL(ftrace_graph_call, SYM_L_GLOBAL)\n#endif\n"+
		"SYM_CODE_START(return_to_handler)\n\tstr x29, [sp, #FREGS_FP]\n\tbl ftrace_return_to_handler\n", 5, 10)
	f.Add("s390x", "ENTRY(ftrace_caller)\nSYM_INNER_LABEL(ftrace_graph_caller, SYM_L_GLOBAL)\n\tlmg %r2,%r3,(X)(%r15)\n\tbrasl %r14,prepare_ftrace_return\n", 0, 0)
	f.Add("arm64", "/* a\ncomment */\n#ifdef CONFIG_DYNAMIC_FTRACE_WITH_ARGS\nSYM_CODE_START(ftrace_caller)\n#else\nftrace_graph_call:\n#endif\n", 6, 12)
	f.Fuzz(func(t *testing.T, arch, text string, major, minor int) {
		if len(text) > 2048 {
			return // bounded: the regexps are linear, the budget is not
		}
		mk := Version{}
		if major > 0 && major < 100 && minor >= 0 && minor < 100 {
			mk = Version{major, minor}
		}
		c, err := Resolve(arch, "F.S", []byte(text), mk)
		if err != nil {
			return
		}
		if c.Model == nil || c.Model.Arch != arch || c.Reason == "" || len(c.Properties) != len(archHooks[arch].props) {
			t.Fatalf("Resolve(%q) = %+v", arch, c)
		}
		lines := strings.Count(text, "\n") + 1
		for _, p := range c.Properties {
			if p.Value == "" || p.Evidence == "" || p.From == "" {
				t.Fatalf("property %+v incomplete", p)
			}
			for _, m := range regexpFileLine.FindAllStringSubmatch(p.Evidence, -1) {
				if n := atoi(m[1]); n < 1 || n > lines {
					t.Fatalf("%s cites line %d of a %d-line file: %s", p.Name, n, lines, p.Evidence)
				}
			}
		}
	})
}

// FuzzBlankElseOf: blanking keeps every line where it was.
func FuzzBlankElseOf(f *testing.F) {
	f.Add("x\n#ifdef CONFIG_DYNAMIC_FTRACE_WITH_ARGS\na\n#else\nb\n#endif\ny\n")
	f.Add("#ifdef CONFIG_DYNAMIC_FTRACE_WITH_REGS\n#else\nlast")
	f.Fuzz(func(t *testing.T, s string) {
		got := blankElseOf(s, arm64EntryIf)
		if strings.Count(got, "\n") != strings.Count(s, "\n") || len(got) > len(s) {
			t.Fatalf("%q blanked to %q: lines moved", s, got)
		}
		if d := dropElseOf(s, arm64EntryIf); strings.ReplaceAll(got, "\n", "") != strings.ReplaceAll(d, "\n", "") {
			t.Fatalf("%q: blanked %q and dropped %q differ in text", s, got, d)
		}
	})
}

var regexpFileLine = regexp.MustCompile(`F\.S:(\d+)`)

func atoi(s string) int {
	n := 0
	for _, r := range s {
		n = n*10 + int(r-'0')
		if n > 1<<30 {
			return n
		}
	}
	return n
}
