package tests

import (
	"fmt"
	"testing"

	"trampemu/check"
	"trampemu/ftrace"
	"trampemu/harness"
	"trampemu/regs"
)

// btiSite checks the arm64 add_bti workload's call site in a started
// harness: the record is the BL at entry + 8, after "bti c; mov x9, x30"
// (arch/arm64/kernel/ftrace.c ftrace_call_adjust, v6.3+), enabled as a
// "bl" to the entry trampoline, and with CALL_OPS its ops literal is the
// 8 bytes before the function, ALIGN_DOWN(BL - 12, 8) = BL - 16
// (ftrace_rec_update_ops, v6.3+), holding the ops.
func btiSite(h *harness.Harness, callOps bool) error {
	fn, ok := h.Image.Symbol("add_bti")
	if !ok {
		return fmt.Errorf("no add_bti in the image")
	}
	var site uint64
	for _, s := range h.Sites {
		if s.Func == "add_bti" {
			site = s.Addr
		}
	}
	if site != fn+8 {
		return fmt.Errorf("add_bti's call site is %s, want add_bti+8", h.Describe(site))
	}
	var w [4]byte
	if err := h.M.ReadMem(site, w[:]); err != nil {
		return err
	}
	entry, _ := h.Image.Symbol(h.Setup.Entry.Symbol)
	target, link, ok := ftrace.ARM64DecodeBranch(site, regs.ARM64.ByteOrder.Uint32(w[:]))
	if !ok || !link || target != entry {
		return fmt.Errorf("add_bti+8 holds % x, want bl %s (%#x)", w, h.Setup.Entry.Symbol, entry)
	}
	if callOps {
		lit := ftrace.ARM64CallOpsLiteral(site)
		if lit != fn-8 || lit != site-16 {
			return fmt.Errorf("the ops literal of add_bti is at %s, want add_bti-8 (BL - 16)", h.Describe(lit))
		}
		if got := h.M.ReadWord(lit); got != h.K.FunctionTraceOp {
			return fmt.Errorf("the ops literal of add_bti holds %#x, want the ops %#x", got, h.K.FunctionTraceOp)
		}
	}
	return nil
}

// TestARM64BTICallSite: a traced function behind "bti c"
// (CONFIG_ARM64_BTI_KERNEL) checks clean on the CALL_OPS + direct
// ftrace_caller (default and direct users) and on v6.2's, with the site at
// +8 and the ops literal where the kernel puts it. Must catch: an ops
// literal that does not hold the ops (as if placed at BL - 12 unaligned,
// the non-BTI distance) makes the CALL_OPS ftrace_caller's check fail.
func TestARM64BTICallSite(t *testing.T) {
	a := regs.ARM64
	for _, c := range []struct {
		variant, scenario string
		callOps           bool
	}{
		{"ftrace_caller", "default", true},
		{"ftrace_caller", "direct", true},
		{"ftrace_caller-v6.2", "default", false},
	} {
		t.Run(c.variant+"/"+c.scenario, func(t *testing.T) {
			checked := 0
			rs := runCheck(t, check.Config{Arch: a, Tramp: variant(t, a, c.variant), Scenario: scenario(t, c.scenario),
				Workloads: []string{"add_bti"}, Calls: 3, Seed: 5, Started: func(h *harness.Harness) error {
					checked++
					return btiSite(h, c.callOps)
				}})
			if checked != 1 || len(rs) != 1 {
				t.Fatalf("site checked %d times, %d results, want 1 and 1", checked, len(rs))
			}
			r := rs[0]
			if !r.OK || r.Errors() > 0 || r.Metrics.Calls == 0 {
				t.Errorf("add_bti on %s: ok %v, %d errors, %d trampoline runs: %s", c.variant, r.OK, r.Errors(), r.Metrics.Calls, findings(r))
			}
		})
	}
	t.Run("ops literal missing", func(t *testing.T) {
		rs, err := check.Run(check.Config{Arch: a, Tramp: variant(t, a, "ftrace_caller"), Scenario: scenario(t, "default"),
			Workloads: []string{"add_bti"}, Calls: 3, Seed: 5, Started: func(h *harness.Harness) error {
				fn, _ := h.Image.Symbol("add_bti")
				return h.M.WriteMem(fn-8, make([]byte, 8))
			}})
		if err == nil && len(rs) == 1 && rs[0].OK {
			t.Fatalf("an empty ops literal before add_bti checked clean: %s", findings(rs[0]))
		}
	})
}
