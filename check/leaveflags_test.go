package check

import (
	"math/rand/v2"
	"slices"
	"testing"

	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
)

// A leave event reads the flags register only when a user gets full
// pt_regs (emu.Machine.SetLeaveFlags, harness Install): that is sound only
// while no rule but keepFullRegs compares the flags after a run. Every
// arch's keep lists (entry, exit, -pg) must leave them out; a checked run
// without a full-regs user has 0 there and reads them with one (the
// default users on an entry that hands full pt_regs), where x86-64 EFLAGS
// (reserved bit 1) and the s390x PSW mask (its addressing-mode bits) are
// never 0. Every arch with a flags register.
func TestLeaveFlagsOnlyForFullRegs(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			conv, err := conventionOf(a)
			if err != nil {
				t.Fatal(err)
			}
			if a.Flags < 0 {
				t.Logf("%s has no flags register: nothing to skip at a leave", a.Name)
				return
			}
			for role, keep := range conv.keep {
				if slices.Contains(keep, a.Flags) {
					t.Errorf("the %s keep list holds the flags register, which leave events do not read without a full-regs user", role)
				}
			}
			if slices.Contains(conv.pgKeep, a.Flags) {
				t.Errorf("the -pg keep list holds the flags register")
			}
			entry, exit := currentPair(t, a)
			if a.Name == regs.X86_64.Name {
				// the current entry (ftrace_caller) hands no full regs
				v, err := harness.FindVariant(a, trampolines.Entry, "ftrace_regs_caller")
				if err != nil {
					t.Fatal(err)
				}
				if entry, err = harness.FromVariant(v); err != nil {
					t.Fatal(err)
				}
			}
			for _, users := range []string{"function-graph", "default"} {
				sc, err := harness.FindUserSet(users)
				if err != nil {
					t.Fatal(err)
				}
				h, err := harness.Start(harness.Setup{Arch: a, Entry: entry, Exit: exit}, harness.Options{Checks: true}, sc)
				if err != nil {
					t.Fatal(err)
				}
				full := users == "default" && !entry.NoFullRegs()
				if users == "default" && a.Name == regs.X86_64.Name && !full {
					t.Fatalf("%s hands no full regs: the test lost its full-regs case", entry.Name)
				}
				if got := h.M.LeaveFlags(); got != full {
					t.Errorf("%s users on %s: leave events read the flags: %v, want %v", users, entry.Name, got, full)
				}
				rng := rand.New(rand.NewPCG(1, 2))
				b := h.RunBatch(2, func(int) *harness.Call {
					call, err := h.NewCall("add", rng)
					if err != nil {
						t.Fatal(err)
					}
					return call
				})
				runs := 0
				for _, call := range b.Calls {
					for _, inv := range call.Invocations {
						runs++
						got := inv.After[a.Flags]
						if !full && got != 0 {
							t.Errorf("%s users: %s run leaves %s = %#x, want 0 (not read)", users, inv.Role, a.Regs[a.Flags].Name, got)
						}
						if full && a.Name != regs.ARM64.Name && got == 0 {
							t.Errorf("%s users: %s run leaves %s = 0: not read", users, inv.Role, a.Regs[a.Flags].Name)
						}
					}
				}
				h.Close()
				if runs == 0 {
					t.Fatalf("%s users: no trampoline ran", users)
				}
			}
		})
	}
}
