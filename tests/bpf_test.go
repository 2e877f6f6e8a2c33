package tests

import (
	"fmt"
	"testing"

	"trampemu/check"
	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
)

// TestBPFStackID: the BPF kprobe_multi user (user sets bpf and bpf-prefix)
// runs on every traced call of every arch and reads what bpf_get_stackid
// reads. arm64 before fd2f74f8f3d3 (bpf-prefix) copies no pstate into its
// pt_regs, so user_mode reads a slot nothing wrote: the stale-read finding
// the fix removes (bpf: pstate = PSR_MODE_EL1h, the walk reads pc, sp and
// fp, all written). x86-64 hands the trampoline's pt_regs over (CS = 0
// from ftrace_caller: kernel mode) either way; s390x's ftrace_caller never
// stores psw.mask, which user_mode reads (a finding under both), while
// ftrace_regs_caller does. Not vacuous: every entry invocation must show
// user_mode's read, and each walk's reads must be there unless user_mode
// stopped it.
func TestBPFStackID(t *testing.T) {
	// want is the one slot a stale-read finding names, "" for none; with
	// none, user_mode must say kernel and the walk must run every time
	// (with a stale mode field, whether it runs depends on the garbage).
	type want = string
	cases := []struct {
		arch           *regs.Arch
		variant        string
		preFix, postFx want
	}{
		{regs.X86_64, "ftrace_caller", "", ""},
		{regs.X86_64, "ftrace_regs_caller", "", ""},
		{regs.S390X, "ftrace_caller", "psw.mask", "psw.mask"},
		{regs.S390X, "ftrace_regs_caller", "", ""},
		{regs.ARM64, "ftrace_caller", "pstate", ""},
		{regs.ARM64, "ftrace_caller-v6.2", "pstate", ""},
		// riscv's ftrace_partial_regs (arch/riscv/include/asm/ftrace.h,
		// linux-riscv/linux@3818d86a651e) copies a0-a7, epc, ra, sp, s0
		// and t1, never status, which user_mode reads: arm64's pstate
		// bug, with no riscv fix known.
		{regs.RISCV64, "ftrace_caller", "status", "status"},
	}
	seen := map[string]bool{}
	for _, c := range cases {
		seen[c.arch.Name] = true
		for _, set := range []string{"bpf-prefix", "bpf"} {
			w := c.postFx
			if set == "bpf-prefix" {
				w = c.preFix
			}
			c, set := c, set
			t.Run(fmt.Sprintf("%s/%s/%s", c.arch.Name, c.variant, set), func(t *testing.T) {
				t.Parallel()
				us, err := harness.FindUserSet(set)
				if err != nil {
					t.Fatal(err)
				}
				entries, modes, walks := 0, 0, 0
				obs := func(call *harness.Call) {
					for _, inv := range call.Invocations {
						if inv.Role != trampolines.Entry {
							continue
						}
						entries++
						walk := map[string]bool{}
						for _, rd := range inv.Reads {
							switch rd.Caller {
							case "user_mode":
								modes++
							case harness.BPFUser:
								walk[rd.Slot] = true
								if rd.Stale {
									t.Errorf("the stack walk read %s stale", rd.Slot)
								}
							}
						}
						acc := c.arch.Frame.Accessors
						if c.arch.PtRegs != nil {
							acc = c.arch.PtRegs.Accessors
						}
						if walk[acc.IP] && walk[acc.SP] && walk[acc.FP] {
							walks++
						}
					}
				}
				rs := runCheck(t, check.Config{Arch: c.arch, Tramp: variant(t, c.arch, c.variant), Workloads: []string{"add", "six"},
					Scenario: us, Calls: 2, Seed: 3, Observe: obs})
				if entries == 0 || modes != entries {
					t.Fatalf("user_mode read in %d of %d entry invocations: the BPF user did not run on each", modes, entries)
				}
				if w == "" && walks != entries {
					t.Errorf("the stack walk read ip, sp and fp in %d of %d invocations, want all", walks, entries)
				}
				for _, r := range rs {
					var stale []string
					for _, f := range r.Findings {
						if f.Severity == "error" && f.Kind == check.StaleRead {
							stale = append(stale, f.Slot)
						} else if f.Severity == "error" {
							t.Errorf("%s: unexpected %s", r.Workload, findings(r))
						}
					}
					if w == "" && len(stale) > 0 || w != "" && (len(stale) != 1 || stale[0] != w) {
						t.Errorf("%s: stale reads of %v, want %q only:%s", r.Workload, stale, w, findings(r))
					}
				}
			})
		}
	}
	for _, a := range regs.Arches {
		if !seen[a.Name] {
			t.Errorf("no case for %s", a.Name)
		}
	}
}
