package tests

import (
	"maps"
	"strings"
	"testing"

	"trampemu/check"
	"trampemu/regs"
)

// TestObjtoolFinding: ftrace_regs_caller without the UNWIND_HINT_FUNC
// before its direct-call RET (the return address of the direct trampoline
// sits one word above the frame objtool expects) gives objtool's warning
// as an objtool finding naming the file and line: info by default, an
// error with CONFIG_OBJTOOL_WERROR. The unchanged variant has none.
func TestObjtoolFinding(t *testing.T) {
	a := regs.X86_64
	const hint = "\tpopfq\n\tUNWIND_HINT_FUNC\n"
	for _, c := range []struct {
		name         string
		drop, werror bool
		wantSeverity string
		wantObjtool  bool
	}{
		{"clean", false, false, "", false},
		{"no-hint", true, false, check.Info, true},
		{"no-hint-werror", true, true, check.Error, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := variant(t, a, "ftrace_regs_caller")
			text := string(tr.Source.Text)
			if !strings.Contains(text, hint) {
				t.Fatalf("the hint to drop is not in the source")
			}
			if c.drop {
				tr.Name += "-no-hint"
				tr.Source.Text = []byte(strings.Replace(text, hint, "\tpopfq\n", 1))
			}
			if c.werror {
				tr.Source.Defines = maps.Clone(tr.Source.Defines)
				if tr.Source.Defines == nil {
					tr.Source.Defines = map[string]string{}
				}
				tr.Source.Defines["CONFIG_OBJTOOL_WERROR"] = ""
			}
			r := runCheck(t, check.Config{Arch: a, Tramp: tr, Workloads: []string{"add"}, Calls: 2, NoInterrupts: true})[0]
			var got []check.Finding
			for _, f := range r.Findings {
				if f.Kind == check.Objtool {
					got = append(got, f)
				}
			}
			if !c.wantObjtool {
				if len(got) != 0 {
					t.Fatalf("objtool findings on the unchanged variant: %v", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("objtool findings %v, want one%s", got, findings(r))
			}
			f := got[0]
			if f.Severity != c.wantSeverity || !strings.Contains(f.Message, "ftrace_regs_caller.S:") ||
				!strings.Contains(f.Message, "return with modified stack frame") {
				t.Errorf("finding %s %s", f.Severity, f.Message)
			}
			if c.werror != (r.Errors() > 0) {
				t.Errorf("errors %d with werror %v%s", r.Errors(), c.werror, findings(r))
			}
		})
	}
}
