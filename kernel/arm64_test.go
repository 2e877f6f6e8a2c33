package kernel

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"trampemu/ftrace"
	"trampemu/trampolines"
)

// TestARM64Models: every version of v5.5..v6.19 (v5.19 was followed by
// v6.0) has exactly one arm64
// model, each with partners and the distribution defaults of its era.
func TestARM64Models(t *testing.T) {
	for maj := 5; maj <= 6; maj++ {
		for min := 0; min <= 20; min++ {
			v := Version{maj, min}
			if v.Less(Version{5, 5}) || (Version{6, 19}).Less(v) || (v.Major == 5 && v.Minor == 20) {
				continue
			}
			n := 0
			for _, m := range ModelsOf("arm64") {
				if m.Contains(v) {
					n++
				}
			}
			if n != 1 {
				t.Errorf("arm64 %s: %d models", v, n)
			}
		}
	}
	want := map[string][]string{
		"v5.5-v5.19": {"CONFIG_DYNAMIC_FTRACE_WITH_REGS"},
		"v6.2":       {"CONFIG_DYNAMIC_FTRACE_WITH_ARGS"},
		"v6.3":       {"CONFIG_DYNAMIC_FTRACE_WITH_ARGS", "CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS"},
		"v6.4":       {"CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS", "CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS"},
		"v6.14+":     {"CONFIG_HAVE_FUNCTION_GRAPH_FREGS", "CONFIG_FUNCTION_GRAPH_RETVAL"},
	}
	for _, m := range ModelsOf("arm64") {
		for _, r := range []trampolines.Role{trampolines.Entry, trampolines.Exit} {
			if m.Partner[r] == "" {
				t.Errorf("%s: no partner for %s", m.Name, r)
			}
		}
		for _, o := range append([]string{"CONFIG_DYNAMIC_FTRACE", "CONFIG_FUNCTION_GRAPH_TRACER", "CONFIG_FRAME_POINTER",
			"CONFIG_ARM64_BTI_KERNEL", "CONFIG_ARM64"}, want[m.Name]...) {
			if m.Config[o] != "y" {
				t.Errorf("%s: %s not in the distribution defaults", m.Name, o)
			}
		}
		if m.PtRegs == (m.Config["CONFIG_DYNAMIC_FTRACE_WITH_ARGS"] != "") {
			t.Errorf("%s: PtRegs %v with WITH_ARGS %q", m.Name, m.PtRegs, m.Config["CONFIG_DYNAMIC_FTRACE_WITH_ARGS"])
		}
	}
	if m, err := ModelFor("arm64", Version{6, 3}); err != nil || m.Config["CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS"] != "" {
		t.Errorf("v6.3: %v, %v: direct calls came with v6.4", m, err)
	}
	if _, err := ModelFor("arm64", Version{5, 4}); err == nil || !strings.Contains(err.Error(), "v5.5-v5.19") {
		t.Errorf("arm64 v5.4: %v, want an error listing the models", err)
	}
}

// TestDetectARM64Files: the test files of tests/testdata/kernel written in
// the shape of each era's entry-ftrace.S (whole files: includes, the
// WITH_REGS/WITH_ARGS #ifdef with the -pg code in its #else, both roles)
// are found as their model, with the reason.
func TestDetectARM64Files(t *testing.T) {
	cases := []struct {
		file, model string
		reason      []string
	}{
		{"arm64_v5.10.S", "v5.5-v5.19", []string{"pt_regs", "ftrace_graph_call branches", "passes x29"}},
		{"arm64_v6.1.S", "v6.0-v6.1", []string{"pt_regs", "ftrace_graph_func", "passes x29"}},
		{"arm64_v6.2.S", "v6.2", []string{"struct ftrace_regs", "without CALL_OPS", "passes x29"}},
		{"arm64_v6.13.S", "v6.5-v6.13", []string{"CALL_OPS (v6.3+)", "x17", "fgraph_ret_regs"}},
		{"arm64_v6.14.S", "v6.14+", []string{"CALL_OPS (v6.3+)", "x17", "over struct ftrace_regs"}},
	}
	files, err := filepath.Glob("../tests/testdata/kernel/arm64_v*.S")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(cases) { // the mixed-era and no_model files: TestMixedEras
		t.Errorf("tests/testdata/kernel has %d arm64 era files, the table %d: keep them in step", len(files), len(cases))
	}
	for _, c := range cases {
		text, err := os.ReadFile(filepath.Join("../tests/testdata/kernel", c.file))
		if err != nil {
			t.Fatal(err)
		}
		ch, err := Detect("arm64", text)
		if err != nil {
			t.Errorf("%s: %v", c.file, err)
			continue
		}
		if ch.Model.Name != c.model {
			t.Errorf("%s: %s (%s), want %s", c.file, ch.Model.Name, ch.Reason, c.model)
		}
		for _, r := range c.reason {
			if !strings.Contains(ch.Reason, r) {
				t.Errorf("%s: reason %q does not say %q", c.file, ch.Reason, r)
			}
		}
	}
	text, err := os.ReadFile("../tests/testdata/kernel/arm64_no_model.S")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Detect("arm64", text); err == nil || !strings.Contains(err.Error(), "fits no arm64 kernel model") ||
		!strings.Contains(err.Error(), "fills a struct ftrace_regs") || !strings.Contains(err.Error(), "ftrace_graph_call branches") {
		t.Errorf("arm64_no_model.S: %v, want an error naming the evidence", err)
	}
}

// TestDetectARM64: the constructs one by one, including the -pg code's
// ftrace_graph_call in the #else branch, which must not count.
func TestDetectARM64(t *testing.T) {
	const fregsEntry = "SYM_CODE_START(ftrace_caller)\n\tstr x29, [sp, #FREGS_FP]\n"
	cases := []struct {
		text, model string
	}{
		{"SYM_CODE_START(return_to_handler)\n\tmov x0, x29\n\tbl ftrace_return_to_handler\n", "v6.4"},
		{"SYM_CODE_START(return_to_handler)\n\tstr x29, [sp, #FGRET_REGS_FP]\n\tmov x0, sp\n\tbl ftrace_return_to_handler\n", "v6.5-v6.13"},
		{"SYM_CODE_START(return_to_handler)\n\tstr x29, [sp, #FREGS_FP] // FGRET_REGS_FP in a comment\n\tmov x0, sp\n\tbl ftrace_return_to_handler\n", "v6.14+"},
		{"#ifdef CONFIG_DYNAMIC_FTRACE_WITH_REGS\nSYM_CODE_START(ftrace_caller)\n\tstp x0, x1, [sp, #S_X0]\nSYM_INNER_LABEL(ftrace_graph_call, SYM_L_GLOBAL)\n#endif\n", "v5.5-v5.19"},
		{"#ifdef CONFIG_DYNAMIC_FTRACE_WITH_REGS\nSYM_CODE_START(ftrace_caller)\n\tstp x0, x1, [sp, #S_X0]\n#else\nSYM_FUNC_START(ftrace_caller)\nSYM_INNER_LABEL(ftrace_graph_call, SYM_L_GLOBAL)\n#endif\n", "v6.0-v6.1"},
		{"#ifdef CONFIG_DYNAMIC_FTRACE_WITH_ARGS\n" + fregsEntry + "#ifdef CONFIG_X\n#else\n#endif\n#else\nSYM_INNER_LABEL(ftrace_graph_call, SYM_L_GLOBAL)\n#endif\n", "v6.2"},
		{fregsEntry + "#ifdef CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS\n#endif\n", "v6.3"},
		{fregsEntry + "#ifdef CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS\n\tldr x17, [x11, #FTRACE_OPS_DIRECT_CALL]\n#endif\n", "v6.14+"},
	}
	for _, c := range cases {
		ch, err := Detect("arm64", []byte(c.text))
		if err != nil {
			t.Errorf("%q: %v", c.text, err)
			continue
		}
		if ch.Model.Name != c.model || ch.Reason == "" {
			t.Errorf("%q: %s (%s), want %s", c.text, ch.Model.Name, ch.Reason, c.model)
		}
	}
	// Outside any conditional the graph call counts, and an ftrace_regs
	// entry with it fits no era.
	if ch, err := Detect("arm64", []byte(fregsEntry+"SYM_INNER_LABEL(ftrace_graph_call, SYM_L_GLOBAL)\n")); err == nil {
		t.Errorf("ftrace_regs entry with ftrace_graph_call: %s, want no model", ch.Model.Name)
	}
	if m, _ := ModelFor("arm64", Version{5, 10}); m == nil || m.Prepare != ftrace.PrepareIPParentFP || m.Graph != trampolines.GraphViaCaller {
		t.Errorf("v5.10: %+v, want prepare_ftrace_return(ip, parent, fp) through ftrace_graph_caller", m)
	}
	if _, err := Detect("arm64", []byte("nothing")); err == nil || !strings.Contains(err.Error(), "defines neither") {
		t.Errorf("empty file: %v", err)
	}
}

func TestDropElseOf(t *testing.T) {
	open := regexp.MustCompile(`^#ifdef A$`)
	cases := []struct{ in, want string }{
		{"x\n#ifdef A\na\n#else\nb\n#endif\ny\n", "x\n#ifdef A\na\n#endif\ny\n"},
		{"#ifdef A\na\n#ifdef B\nb\n#else\nc\n#endif\n#elif C\nd\n#endif\n#else\nz\n", "#ifdef A\na\n#ifdef B\nb\n#else\nc\n#endif\n#endif\n#else\nz\n"},
		{"#ifdef B\nb\n#else\nc\n#endif\n", "#ifdef B\nb\n#else\nc\n#endif\n"},
		{"#ifdef A\na\n#else\nb\n", "#ifdef A\na\n"},
	}
	for _, c := range cases {
		if got := dropElseOf(c.in, open); got != c.want {
			t.Errorf("dropElseOf(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzDropElseOf: the result is never longer than the input, is the input
// when the conditional is absent, and keeps every line outside it.
func FuzzDropElseOf(f *testing.F) {
	f.Add("x\n#ifdef CONFIG_DYNAMIC_FTRACE_WITH_ARGS\na\n#else\nb\n#endif\ny\n")
	f.Add("#if defined(CONFIG_DYNAMIC_FTRACE_WITH_REGS)\n#if X\n#elif Y\n#endif\n#elif Z\n")
	f.Add("no conditional")
	f.Fuzz(func(t *testing.T, s string) {
		got := dropElseOf(s, arm64EntryIf)
		if len(got) > len(s) {
			t.Fatalf("%q grew to %q", s, got)
		}
		if !strings.Contains(s, "CONFIG_DYNAMIC_FTRACE_WITH_") && got != s {
			t.Fatalf("%q changed to %q without the conditional", s, got)
		}
		if first, _, _ := strings.Cut(s, "\n"); !strings.HasPrefix(got, first) {
			t.Fatalf("%q lost its first line: %q", s, got)
		}
	})
}
