package tests

import (
	"testing"

	"trampemu/check"
	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
)

// TestIPModifyingUsers: through every registry entry variant of both
// arches, the live patch redirects klp_target to klp_target_new (the
// replacement's result comes back, the original body's does not) and the
// error-injection kprobe makes fei_target return -ENOMEM where the variant
// hands over full pt_regs; a variant the kernel would not give an
// IPMODIFY ops (x86-64 v5.10 ftrace_caller, regs = NULL) gets neither, and
// the kprobe skips partial regs as kprobe_ftrace_handler does. The check
// itself must find nothing. Not vacuous: every redirect is counted.
func TestIPModifyingUsers(t *testing.T) {
	for _, a := range regs.Arches {
		for _, v := range harness.VariantsOf(a, trampolines.Entry) {
			a, v := a, v
			t.Run(a.Name+"/"+v.Name, func(t *testing.T) {
				t.Parallel()
				counts := map[string]int{}
				calls := map[string]int{}
				obs := func(c *harness.Call) {
					calls[c.Workload]++
					var mod *harness.IPMod
					for _, inv := range c.Invocations {
						if inv.Role == trampolines.Entry && len(inv.IPMods) > 0 {
							mod = &inv.IPMods[len(inv.IPMods)-1]
						}
					}
					if mod == nil {
						return
					}
					counts[mod.User]++
					want := c.Args[0] + c.Args[1] + harness.KLPMark
					if mod.SetRet {
						want = harness.FaultInjected
					}
					if !c.Done || len(c.Results) == 0 || c.Results[0] != want {
						t.Errorf("%s after %s: results %#x, want %#x", c.Workload, mod.User, c.Results, want)
					}
				}
				rs := runCheck(t, check.Config{Arch: a, Tramp: variant(t, a, v.Name), Workloads: []string{"klp_target", "fei_target"},
					Calls: 3, Seed: 5, Observe: obs})
				for _, r := range rs {
					if r.Errors() > 0 {
						t.Errorf("%s: %s", r.Workload, findings(r))
					}
				}
				wantKLP, wantFEI := calls["klp_target"], 0
				if v.NoIPModify {
					wantKLP = 0
				}
				if v.Symbol == "ftrace_regs_caller" {
					wantFEI = calls["fei_target"]
				}
				if counts["livepatch"] != wantKLP || counts["kprobe-override"] != wantFEI {
					t.Errorf("redirects: live patch %d of %d calls (want %d), error injection %d of %d (want %d)",
						counts["livepatch"], calls["klp_target"], wantKLP, counts["kprobe-override"], calls["fei_target"], wantFEI)
				}
			})
		}
	}
}
