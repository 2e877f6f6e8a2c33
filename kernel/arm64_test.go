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

// TestARM64Models: every version of v4.19..v6.19 (v4.20 was followed by
// v5.0, v5.19 by v6.0) has exactly one arm64 model, each with partners and
// the distribution defaults of its era: the -pg eras (v4.19-v5.4) without
// WITH_REGS/WITH_ARGS and BTI (v5.8+), their callbacks without registers.
func TestARM64Models(t *testing.T) {
	for maj := 4; maj <= 6; maj++ {
		for min := 0; min <= 20; min++ {
			v := Version{maj, min}
			if v.Less(Version{4, 19}) || (Version{6, 19}).Less(v) || (v.Major == 5 && v.Minor == 20) {
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
		opts := []string{"CONFIG_DYNAMIC_FTRACE", "CONFIG_FUNCTION_GRAPH_TRACER", "CONFIG_FRAME_POINTER", "CONFIG_ARM64"}
		if !m.Pg {
			opts = append(opts, "CONFIG_ARM64_BTI_KERNEL")
		}
		for _, o := range append(opts, want[m.Name]...) {
			if m.Config[o] != "y" {
				t.Errorf("%s: %s not in the distribution defaults", m.Name, o)
			}
		}
		if m.Pg {
			for _, o := range []string{"CONFIG_DYNAMIC_FTRACE_WITH_REGS", "CONFIG_DYNAMIC_FTRACE_WITH_ARGS", "CONFIG_ARM64_BTI_KERNEL"} {
				if m.Config[o] != "" {
					t.Errorf("%s: %s in a -pg era's defaults", m.Name, o)
				}
			}
			if m.WithArgs || m.PtRegs || !m.NoFullRegs || m.Graph != trampolines.GraphViaCaller || m.From.Less(Version{4, 19}) || (Version{5, 4}).Less(m.To) {
				t.Errorf("%s: %+v, want a v4.19-v5.4 era whose callbacks get no registers, graph through ftrace_graph_caller", m.Name, m)
			}
			continue
		}
		if m.PtRegs == (m.Config["CONFIG_DYNAMIC_FTRACE_WITH_ARGS"] != "") {
			t.Errorf("%s: PtRegs %v with WITH_ARGS %q", m.Name, m.PtRegs, m.Config["CONFIG_DYNAMIC_FTRACE_WITH_ARGS"])
		}
	}
	if m, err := ModelFor("arm64", Version{6, 3}); err != nil || m.Config["CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS"] != "" {
		t.Errorf("v6.3: %v, %v: direct calls came with v6.4", m, err)
	}
	if _, err := ModelFor("arm64", Version{4, 18}); err == nil || !strings.Contains(err.Error(), "v4.19-v4.20") {
		t.Errorf("arm64 v4.18: %v, want an error listing the models", err)
	}
	for v, p := range map[Version]ftrace.PrepareABI{{4, 19}: ftrace.PrepareParentIPFP, {5, 0}: ftrace.PrepareIPParentFP, {5, 4}: ftrace.PrepareIPParentFP} {
		if m, err := ModelFor("arm64", v); err != nil || !m.Pg || m.Prepare != p {
			t.Errorf("arm64 %s: %v %v, want a -pg model with prepare_ftrace_return ABI %d", v, m, err, p)
		}
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
		{"arm64_v4.19.S", "v4.19-v4.20", []string{"-pg call site", "(ip, parent_ip) only", "prepare_ftrace_return(&lr, ip, fp)", "passes x29"}},
		{"arm64_v5.0.S", "v5.0-v5.4", []string{"-pg call site", "(ip, parent_ip) only", "prepare_ftrace_return(ip, &lr, fp)", "passes x29"}},
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
	const pgEntry = "ENTRY(_mcount)\n\tret\nENDPROC(_mcount)\nENTRY(ftrace_caller)\n\tmcount_enter\nGLOBAL(ftrace_graph_call)\n\tnop\nENDPROC(ftrace_caller)\n"
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
		// the -pg era: _mcount and an ftrace_caller opening with
		// mcount_enter, no patchable-entry #ifdef; ftrace_graph_caller's
		// first argument tells v4.19 from v5.0
		{pgEntry + "ENTRY(ftrace_graph_caller)\n\tmcount_get_pc x0\n\tmcount_get_lr_addr x1\n", "v5.0-v5.4"},
		{pgEntry + "ENTRY(ftrace_graph_caller)\n\tmcount_get_lr_addr x0\n\tmcount_get_pc x1\n", "v4.19-v4.20"},
		{pgEntry, "v5.0-v5.4"},
		// the same -pg code in the #else of a patchable entry does not count
		{"#ifdef CONFIG_DYNAMIC_FTRACE_WITH_REGS\nSYM_CODE_START(ftrace_caller)\n\tstp x0, x1, [sp, #S_X0]\nSYM_INNER_LABEL(ftrace_graph_call, SYM_L_GLOBAL)\n#else\n" + pgEntry + "#endif\n", "v5.5-v5.19"},
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
