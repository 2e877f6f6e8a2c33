package tests

import (
	"slices"
	"testing"

	"trampemu/check"
	"trampemu/regs"
)

// TestUnwindability: the interrupt model visits every executed boundary of
// the trampoline under test, and the arch's unwinder rule gives the known
// windows: x86-64 ftrace_caller keeps the caller's return slot above sp
// throughout; return_to_handler has lost the caller at its first
// instruction (the popped slot is below sp) and after
// ftrace_return_to_handler popped the shadow stack, and has it back at its
// final ret; s390x ftrace_caller stores r14 first and has a window
// between "aghi %r15,-352" and the back chain store, the v4.x form never
// lets the back-chain unwinder see the caller, and return_to_handler's
// only window is before its back chain store.
func TestUnwindability(t *testing.T) {
	cases := []struct {
		arch, variant string
		lost, kept    []string // boundaries that must be / must not be unrecoverable
		all           bool     // every boundary unrecoverable
	}{
		{arch: "x86_64", variant: "ftrace_caller", kept: []string{"ftrace_caller", "ftrace_call", "ftrace_caller_end"}},
		{arch: "x86_64", variant: "ftrace_regs_caller", kept: []string{"ftrace_regs_caller", "ftrace_regs_call", "ftrace_regs_caller_end"}},
		{arch: "x86_64", variant: "rth-merged", lost: []string{"return_to_handler", "return_to_handler+0x1e"}, kept: []string{"return_to_handler+0x7", "return_to_handler+0x3c"}},
		{arch: "x86_64", variant: "rth-fixed", lost: []string{"return_to_handler", "return_to_handler+0x3"}, kept: []string{"return_to_handler+0x7", "return_to_handler+0x4b"}},
		{arch: "s390x", variant: "ftrace_caller", lost: []string{"ftrace_caller+0x24", "ftrace_caller+0x40"}, kept: []string{"ftrace_caller+0x6", "ftrace_caller+0x46", "ftrace_common"}},
		{arch: "s390x", variant: "ftrace_caller-v4", all: true},
		{arch: "s390x", variant: "rth-merged", lost: []string{"return_to_handler+0xe"}, kept: []string{"return_to_handler", "return_to_handler+0x14", "return_to_handler+0x38"}},
	}
	for _, c := range cases {
		t.Run(c.arch+"/"+c.variant, func(t *testing.T) {
			t.Parallel()
			a, _ := regs.ArchByName(c.arch)
			r := runCheck(t, check.Config{Arch: a, Tramp: variant(t, a, c.variant), Workloads: []string{"add"}, Calls: 4, Seed: 1})[0]
			m := r.Metrics
			if m.Boundaries == 0 || m.UnrecoverableInsns != len(m.Unrecoverable) {
				t.Fatalf("boundaries %d, unrecoverable %d %v", m.Boundaries, m.UnrecoverableInsns, m.Unrecoverable)
			}
			// add takes one path through the trampoline: every instruction
			// of it is a boundary the model visited
			if float64(m.Boundaries) != m.Instructions {
				t.Errorf("%d boundaries visited, the path has %v instructions", m.Boundaries, m.Instructions)
			}
			if c.all && m.UnrecoverableInsns != m.Boundaries {
				t.Errorf("unrecoverable at %d of %d boundaries, want all: %v", m.UnrecoverableInsns, m.Boundaries, m.Unrecoverable)
			}
			for _, w := range c.lost {
				if !slices.Contains(m.Unrecoverable, w) {
					t.Errorf("%s: want unrecoverable, got %v", w, m.Unrecoverable)
				}
			}
			for _, w := range c.kept {
				if slices.Contains(m.Unrecoverable, w) {
					t.Errorf("%s: want the caller recoverable, got %v", w, m.Unrecoverable)
				}
			}
			if c.variant == "ftrace_caller" && c.arch == "x86_64" && m.UnrecoverableInsns != 0 {
				t.Errorf("x86-64 ftrace_caller: %d unrecoverable, want 0: %v", m.UnrecoverableInsns, m.Unrecoverable)
			}
		})
	}
}
