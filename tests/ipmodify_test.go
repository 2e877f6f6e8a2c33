package tests

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"trampemu/check"
	"trampemu/ftrace"
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
// the kprobe skips partial regs as kprobe_ftrace_handler does; an arch
// without kprobes on ftrace (arm64) has no error injection there. The check
// itself must find nothing. Not vacuous: every redirect is counted. A
// broken twin that never returns (Bug and NoReturn) must be caught instead.
func TestIPModifyingUsers(t *testing.T) {
	for _, a := range regs.Arches {
		for _, v := range harness.VariantsOf(a, trampolines.Entry) {
			a, v := a, v
			t.Run(a.Name+"/"+v.Name, func(t *testing.T) {
				t.Parallel()
				if v.Bug != "" && v.NoReturn {
					// a broken twin that never gets the traced call back
					// (riscv64 ftrace_caller-v6.16-no-t0 and -no-ra, the
					// ops read at the wrong offset): no redirect can come
					// through, and the check must say so
					for _, r := range runCheck(t, check.Config{Arch: a, Tramp: variant(t, a, v.Name), Workloads: []string{"klp_target"}, Calls: 3, Seed: 5}) {
						if r.Errors() == 0 {
							t.Errorf("%s: no error finding from a twin that never returns (%s)", r.Workload, v.Bug)
						}
					}
					return
				}
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
					if r.Errors() > 0 && v.Bug == "" { // a known bug's findings: TestVariantsInTheirPairing
						t.Errorf("%s: %s", r.Workload, findings(r))
					}
				}
				wantKLP, wantFEI := calls["klp_target"], 0
				if v.NoIPModify || v.NoLivePatch {
					// no IPMODIFY ops here, or no live patching in the era
					// (riscv64 v5.11-v6.2: no HAVE_LIVEPATCH)
					wantKLP = 0
				}
				if v.Symbol == "ftrace_regs_caller" && ftrace.MustOps(a).KprobesOnFtrace {
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

// TestRedirectLostThroughRegsCaller: ftrace_regs_caller with the redirect
// dropped (x86-64: RIP not copied back over the return slot; s390x:
// returning through a saved r0 instead of psw.addr) loses both the live
// patch and the error injection: a control finding on klp_target and on
// fei_target (arm64, riscv64, without kprobes on ftrace: klp_target
// only), on every arch; riscv64, which has no regs caller, through its
// WITH_ARGS ftrace_caller.
func TestRedirectLostThroughRegsCaller(t *testing.T) {
	cases := []struct {
		arch          string
		file, old, nw string // the edit: in the source (file "") or in a header
	}{
		{"x86_64", "", "\tmovq\tRIP(%rsp), %rax\t\t\t/* a callback may change RIP */\n\tmovq\t%rax, MCOUNT_REG_SIZE+8(%rsp)\n", ""},
		{"s390x", "ftrace_regs_entry.h", "\tstmg\t%r2,%r14,(STACK_FREGS_PTREGS_GPRS+2*8)(%r15)\n",
			"\tstmg\t%r2,%r14,(STACK_FREGS_PTREGS_GPRS+2*8)(%r15)\n\tstg\t%r0,(STACK_FREGS_PTREGS_GPRS)(%r15)\n"},
		{"s390x", "", "\tlg\t%r0,(STACK_FREGS_PTREGS_PSW+8)(%r15)\n", "\tlg\t%r0,(STACK_FREGS_PTREGS_GPRS)(%r15)\n"},
		// arm64: continue at the bl + 4 its own frame record holds, not at
		// pt_regs.pc.
		{"arm64", "pt_regs_entry.h", "\tldr\tx9, [sp, #S_PC]\n", "\tldr\tx9, [sp, #(S_STACKFRAME + 8)]\n"},
		// riscv64: continue at a copy of the entry's t0 (the call site +
		// 8) kept in the frame's padding word, not at fregs->epc.
		{"riscv64", "", "\tREG_S\tt0, FREGS_EPC(sp)\n", "\tREG_S\tt0, FREGS_EPC(sp)\n\tREG_S\tt0, (FREGS_SIZE_ON_STACK - 8)(sp)\n"},
		{"riscv64", "", "\tREG_L\tt0, FREGS_EPC(sp)\t\t/* a live patch may have moved it */\n", "\tREG_L\tt0, (FREGS_SIZE_ON_STACK - 8)(sp)\n"},
	}
	// riscv64 has no regs caller (regsCaller): from v6.11 its WITH_ARGS
	// ftrace_caller is the entry that redirects, reloading t0 from
	// fregs->epc (ftrace_regs_set_instruction_pointer, the live patch's
	// klp_arch_set_pc; arch/riscv/include/asm/ftrace.h), and no kprobe
	// runs through it (ftrace.ArchOps.KprobesOnFtrace).
	redirectCaller := func(a *regs.Arch) string {
		if v := archVariant(t, regsCaller, a); v != "" {
			return v
		}
		return archVariant(t, partialCaller, a)
	}
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			tr := variant(t, a, redirectCaller(a))
			tr.Name += "-redirect-lost"
			tr.Headers = maps.Clone(tr.Headers)
			edits := 0
			for _, c := range cases {
				if c.arch != a.Name {
					continue
				}
				text := string(tr.Source.Text)
				if c.file != "" {
					text = string(tr.Headers[c.file])
				}
				if !strings.Contains(text, c.old) {
					t.Fatalf("%s %s: the text to edit is not there: %q", a.Name, c.file, c.old)
				}
				text = strings.Replace(text, c.old, c.nw, 1)
				if c.file != "" {
					tr.Headers[c.file] = []byte(text)
				} else {
					tr.Source.Text = []byte(text)
				}
				edits++
			}
			if edits == 0 {
				t.Fatal("no edit for this arch")
			}
			// Each source is built with its own headers
			// (harness.Setup.BuildWith): the edit reaches tr alone.
			partner, err := harness.Pair(a, variant(t, a, redirectCaller(a)))
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range runCheck(t, check.Config{Arch: a, Tramp: tr, Partner: &partner, Workloads: []string{"klp_target", "fei_target", "add"}, Calls: 3, Seed: 9}) {
				want := []check.Kind{check.Control}
				if r.Workload == "add" || r.Workload == "fei_target" && !ftrace.MustOps(a).KprobesOnFtrace {
					want = nil // nobody redirects add; no error injection through ftrace on arm64
				}
				if got := errorKinds(r); !slices.Equal(got, want) {
					t.Errorf("%s: error kinds %s, want %s%s", r.Workload, kindsText(got), kindsText(want), findings(r))
				}
			}
		})
	}
}
