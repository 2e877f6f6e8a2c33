package tests

import (
	"strings"
	"testing"

	"trampemu/check"
	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
)

// TestORCLostEntries: every x86-64 entry variant of an ORC kernel (no
// CONFIG_FRAME_POINTER) lets the kernel's ORC unwinder, over the table
// objtool generated, reach the traced function's caller and the driver's
// end of stack from an interrupt at every boundary; the frame-pointer
// builds have no ORC walk at all.
func TestORCLostEntries(t *testing.T) {
	a := regs.X86_64
	for _, name := range []string{"ftrace_caller", "ftrace_regs_caller", "ftrace_caller-v5.10", "ftrace_caller-fp"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := runCheck(t, check.Config{Arch: a, Tramp: variant(t, a, name), Workloads: []string{"add"}, Calls: 2})[0].Metrics
			if m.Boundaries == 0 {
				t.Fatal("the interrupt model visited no boundary")
			}
			if strings.HasSuffix(name, "-fp") {
				if m.HasORC {
					t.Errorf("a frame-pointer build walked ORC")
				}
				return
			}
			if !m.HasORC || m.ORCUnrecoverableInsns != 0 {
				t.Errorf("ORC walks %v, lost %d/%d at %v", m.HasORC, m.ORCUnrecoverableInsns, m.Boundaries, m.ORCUnrecoverable)
			}
		})
	}
}

// TestORCReturnToHandler: the v6.14 to 6.18-rc5 return_to_handler
// (UNWIND_HINT_UNDEFINED throughout) loses the caller at every boundary
// under ORC, which the old rule did not see; with 20a0bc10272f's
// UNWIND_HINT_FUNC after subq $8 (v6.19, and after the RSP fix) ORC loses
// exactly the boundaries the rule does (before the hint and after the
// frame is popped); dropping that hint of our own brings every boundary
// back.
func TestORCReturnToHandler(t *testing.T) {
	a := regs.X86_64
	const hint = "\tUNWIND_HINT_FUNC"
	for _, c := range []struct {
		name    string
		drop    bool
		allLost bool
	}{
		{"rth-merged", false, true},
		{"rth-v6.19", false, false},
		{"rth-fixed", false, false},
		{"rth-fixed", true, true},
	} {
		t.Run(c.name+map[bool]string{true: "-no-func-hint"}[c.drop], func(t *testing.T) {
			t.Parallel()
			tr := variant(t, a, c.name)
			if c.drop {
				text := string(tr.Source.Text)
				if !strings.Contains(text, hint) {
					t.Fatal("no UNWIND_HINT_FUNC to drop")
				}
				tr.Name += "-no-func-hint"
				tr.Source.Text = []byte(strings.Replace(text, hint, "\t/* dropped */", 1))
			}
			m := runCheck(t, check.Config{Arch: a, Tramp: tr, Workloads: []string{"add"}, Calls: 2})[0].Metrics
			if !m.HasORC || m.Boundaries == 0 {
				t.Fatalf("no ORC walks (%d boundaries)", m.Boundaries)
			}
			if c.allLost {
				if m.ORCUnrecoverableInsns != m.Boundaries || m.UnrecoverableInsns >= m.Boundaries {
					t.Errorf("ORC lost %d, rule lost %d of %d: want ORC all, the rule fewer", m.ORCUnrecoverableInsns, m.UnrecoverableInsns, m.Boundaries)
				}
				return
			}
			if m.ORCUnrecoverableInsns != m.UnrecoverableInsns || strings.Join(m.ORCUnrecoverable, " ") != strings.Join(m.Unrecoverable, " ") {
				t.Errorf("ORC lost %v, the rule %v", m.ORCUnrecoverable, m.Unrecoverable)
			}
			if m.ORCUnrecoverableInsns >= m.Boundaries {
				t.Errorf("ORC lost every boundary")
			}
		})
	}
}

// TestORCIPModifyingUsers: where a user changed the regs' ip (the live
// patch of klp_target, the error injection on fei_target) the entry
// trampoline copies the new ip over its own return-address slot
// ("Handlers can change the RIP", arch/x86/kernel/ftrace_64.S v5.11+);
// from there until its ret, ORC takes the new target for a return address
// and looks up the entry before it (orc_find(ip - 1), unwind_orc.c), the
// undefined one objtool ends the preceding code with: the walk is
// unreliable, while the old rule, which looks only for the traced
// function's caller's own slot, loses nothing. On add (no ip change) both
// lose nothing.
func TestORCIPModifyingUsers(t *testing.T) {
	a := regs.X86_64
	for _, c := range []struct {
		variant, workload string
		lost              bool
	}{
		{"ftrace_caller", "add", false},
		{"ftrace_caller", "klp_target", true},
		{"ftrace_regs_caller", "klp_target", true},
		{"ftrace_regs_caller", "fei_target", true},
	} {
		t.Run(c.variant+"/"+c.workload, func(t *testing.T) {
			t.Parallel()
			m := runCheck(t, check.Config{Arch: a, Tramp: variant(t, a, c.variant), Workloads: []string{c.workload}, Calls: 2})[0].Metrics
			if !m.HasORC || m.Boundaries == 0 {
				t.Fatalf("no ORC walks (%d boundaries)", m.Boundaries)
			}
			if m.UnrecoverableInsns != 0 {
				t.Errorf("the rule lost %v", m.Unrecoverable)
			}
			if !c.lost {
				if m.ORCUnrecoverableInsns != 0 {
					t.Errorf("ORC lost %v", m.ORCUnrecoverable)
				}
				return
			}
			// The ORC-lost boundaries are the tail: from after the RIP copy
			// to the trampoline's last instruction, none before the call.
			if m.ORCUnrecoverableInsns == 0 || m.ORCUnrecoverableInsns >= m.Boundaries/2 {
				t.Errorf("ORC lost %d of %d: %v", m.ORCUnrecoverableInsns, m.Boundaries, m.ORCUnrecoverable)
			}
			for _, w := range m.ORCUnrecoverable {
				if !strings.Contains(w, "_call+") && !strings.Contains(w, "_end") && !strings.Contains(w, "_jmp") {
					t.Errorf("ORC lost %s, before the callback's return", w)
				}
			}
		})
	}
}

// TestORCEveryMergedVariant: every merged x86-64 registry variant, on
// add: the ORC walk over the kernel objtool's table gives no error where
// a correct table can have none (every entry trampoline: 0 lost;
// arch_rethook_trampoline: 0, the rule 1, since unwind_recover_rethook
// translates the rethook trampoline's address, the fake return address it
// pushes and, for an interrupt at its entry, the ip of the interrupt's
// regs frame with sp - 8), and a return_to_handler loses exactly the rule's
// boundaries once it has 20a0bc10272f's UNWIND_HINT_FUNC and every
// boundary without it (UNWIND_HINT_EMPTY or UNDEFINED throughout, the
// kernel's own state before v6.18). Frame-pointer builds have no ORC walk.
func TestORCEveryMergedVariant(t *testing.T) {
	a := regs.X86_64
	n := 0
	for _, v := range harness.VariantsOf(a, "") {
		if !v.Kernel || v.Bug != "" {
			continue
		}
		n++
		t.Run(v.Name+"/"+string(v.Role), func(t *testing.T) {
			t.Parallel()
			tr, err := harness.FromVariant(v)
			if err != nil {
				t.Fatal(err)
			}
			m := runCheck(t, check.Config{Arch: a, Tramp: tr, Workloads: []string{"add"}, Calls: 2})[0].Metrics
			if m.Boundaries == 0 {
				t.Fatal("the interrupt model visited no boundary")
			}
			if _, fp := tr.Source.Defines["CONFIG_FRAME_POINTER"]; fp {
				if m.HasORC {
					t.Error("a frame-pointer build walked ORC")
				}
				return
			}
			if !m.HasORC {
				t.Fatal("no ORC walk")
			}
			want := 0
			switch {
			case v.Role == trampolines.Exit && strings.Contains(string(tr.Source.Text), "UNWIND_HINT_FUNC"):
				want = m.UnrecoverableInsns
			case v.Role == trampolines.Exit:
				want = m.Boundaries
			}
			if m.ORCUnrecoverableInsns != want {
				t.Errorf("ORC lost %d of %d (%v), want %d; the rule %d (%v)", m.ORCUnrecoverableInsns, m.Boundaries, m.ORCUnrecoverable, want, m.UnrecoverableInsns, m.Unrecoverable)
			}
		})
	}
	if n < 8 {
		t.Errorf("%d merged x86-64 variants, want 8 at least", n)
	}
}
