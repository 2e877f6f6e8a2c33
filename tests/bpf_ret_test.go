package tests

import (
	"strings"
	"testing"

	"trampemu/check"
	"trampemu/harness"
	"trampemu/regs"
)

// TestBPFRetStackWalk: a kretprobe_multi-style BPF program at every
// traced return (scenario bpf-ret) walks the stack with x86-64's ORC
// unwinder from ftrace_partial_regs of return_to_handler's ftrace_regs.
// The v6.14-v6.18 form (UNWIND_HINT_UNDEFINED throughout, no RSP store)
// cuts the chain at return_to_handler; v6.19's 20a0bc10272f (the FUNC
// hint, RSP = the frame base) walks through it but reports the caller
// twice (first_frame too low); with 8bc11700e0d2 (RSP = the caller's sp)
// the chain is the true one. Workloads add (called from the driver) and
// chain (deep nesting, hooked returns translated through the shadow
// stack); the walks must have run.
func TestBPFRetStackWalk(t *testing.T) {
	a := regs.X86_64
	sc, err := harness.FindUserSet("bpf-ret")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		variant string
		want    string // "" = no unwind finding; else a part of its message
	}{
		{"rth-merged", "the unwinder: unreliable stack: no ORC data (undefined)"},
		{"rth-v6.19", "got [trampemu_return trampemu_return], want [trampemu_return]"},
		{"rth-fixed", ""},
	} {
		t.Run(c.variant, func(t *testing.T) {
			t.Parallel()
			walks := 0
			rs := runCheck(t, check.Config{Arch: a, Tramp: variant(t, a, c.variant), Workloads: []string{"add", "chain"}, Scenario: sc, Calls: 2, NoInterrupts: true,
				Observe: func(call *harness.Call) {
					for _, inv := range call.Invocations {
						walks += len(inv.StackWalks)
					}
				}})
			if walks == 0 {
				t.Fatal("the return probe walked no stack")
			}
			for _, r := range rs {
				var got []string
				for _, f := range r.Findings {
					if f.Kind == check.Unwind {
						got = append(got, f.Message)
					}
				}
				if c.want == "" {
					if len(got) != 0 {
						t.Errorf("%s: %v", r.Workload, got)
					}
					continue
				}
				if len(got) == 0 {
					t.Errorf("%s: no unwind finding%s", r.Workload, findings(r))
				} else if r.Workload == "add" && !strings.Contains(got[0], c.want) {
					t.Errorf("%s: %s, want %q", r.Workload, got[0], c.want)
				}
			}
		})
	}
}

// TestBPFRetEveryArch: the return-probe walk runs on x86-64 (ORC) and
// arm64 (frame records), where the current exit variant gives the true
// chain and the walks ran; on s390x it is not modelled and asking for it
// is an error, not a silent run.
func TestBPFRetEveryArch(t *testing.T) {
	sc, err := harness.FindUserSet("bpf-ret")
	if err != nil {
		t.Fatal(err)
	}
	modelled := map[string]bool{"x86_64": true, "arm64": true}
	for _, a := range regs.Arches {
		exit, err := harness.Current(a, "exit")
		if err != nil {
			t.Fatal(err)
		}
		walks := 0
		rs, err := check.Run(check.Config{Arch: a, Tramp: exit, Workloads: []string{"add", "chain"}, Scenario: sc, Calls: 2, NoInterrupts: true,
			Observe: func(call *harness.Call) {
				for _, inv := range call.Invocations {
					walks += len(inv.StackWalks)
				}
			}})
		if !modelled[a.Name] {
			if err == nil {
				t.Errorf("%s: bpf-ret ran without a modelled walk", a.Name)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", a.Name, err)
		}
		if walks == 0 {
			t.Errorf("%s: no walk ran", a.Name)
		}
		for _, r := range rs {
			if r.Errors() > 0 {
				t.Errorf("%s %s: %s", a.Name, r.Workload, findings(r))
			}
		}
	}
}
