package check

import (
	"strings"
	"testing"

	"trampemu/asm"
	"trampemu/harness"
	"trampemu/regs"
)

// withoutLastReturn is the variant's source with the line before its
// SYM_*_END (the final return) deleted.
func withoutLastReturn(t *testing.T, a *regs.Arch, name string) harness.Tramp {
	t.Helper()
	v, err := harness.FindVariant(a, "", name)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := harness.FromVariant(v)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(tr.Source.Text), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "SYM_FUNC_END(") || strings.HasPrefix(l, "SYM_CODE_END(") {
			lines = append(lines[:i-1:i-1], lines[i:]...)
			tr.Source.Text = []byte(strings.Join(lines, "\n"))
			return tr
		}
	}
	t.Fatalf("%s: no SYM_*_END line", name)
	return tr
}

// TestFallingOffTheEndIsAControlError: return_to_handler without its final
// return runs on past its end, on x86-64 into the padding and ftrace_stub
// (whose ret happens to return where the deleted RET would have), on s390x
// and arm64 into padding that traps; on every arch it is a control error
// naming the symbol and the address past its end, and the unbroken
// variant has none.
func TestFallingOffTheEndIsAControlError(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			for _, broken := range []bool{false, true} {
				tr := withoutLastReturn(t, a, mergedExit(a))
				if !broken {
					v, _ := harness.FindVariant(a, "", mergedExit(a))
					tr, _ = harness.FromVariant(v)
				}
				rs, err := Run(Config{Arch: a, Tramp: tr, Workloads: []string{"add"}, Calls: 2, NoInterrupts: true})
				if err != nil {
					t.Fatal(err)
				}
				var got []Finding
				for _, f := range rs[0].Findings {
					if f.Kind == Control && strings.Contains(f.Summary, "ran off the end of return_to_handler") {
						got = append(got, f)
					}
				}
				if !broken {
					if len(got) > 0 || !rs[0].OK {
						t.Errorf("unbroken rth-merged: %v", rs[0].Findings)
					}
					continue
				}
				if len(got) != 1 || got[0].Severity != Error || got[0].Count != 1 {
					t.Fatalf("want one control error for running off the end, got %v (all: %v)", got, rs[0].Findings)
				}
				if !strings.Contains(got[0].Summary, "into return_to_handler+0x") || !strings.Contains(got[0].Message, "then return_to_handler+0x") {
					t.Errorf("the finding does not say where control went: %s", got[0].Message)
				}
			}
		})
	}
}

func TestFallsThrough(t *testing.T) {
	for f, want := range map[asm.Flow]bool{asm.FlowNone: true, asm.FlowCall: true, asm.FlowIndirectCall: true, asm.FlowCondJump: true,
		asm.FlowCondIndirectJump: true, asm.FlowJump: false, asm.FlowIndirectJump: false, asm.FlowReturn: false, asm.FlowTrap: false} {
		if fallsThrough(f) != want {
			t.Errorf("fallsThrough(%v) = %v, want %v", f, !want, want)
		}
	}
}

// mergedExit is the arch's return_to_handler that passes struct
// ftrace_regs (v6.14+) and passes every check: rth-merged, and on riscv64
// rth-retval (its v6.14 one is broken and its fixed one builds no frame
// record, trampolines.Variants).
func mergedExit(a *regs.Arch) string {
	if a == regs.RISCV64 {
		return "rth-retval"
	}
	return "rth-merged"
}
