package check

import (
	"strings"
	"testing"

	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
)

// The arm64 shape of the hand observations (analyze_test.go): the call
// site "mov x9, x30; bl ftrace_caller" enters with x30 = ip+4 and x9 =
// parent, the trampoline leaves with x30 = parent, and at the call into C
// the frame records go trampoline {ip+4} -> traced function {parent} ->
// caller -> driver.
func init() {
	handArch[regs.ARM64.Name] = func(a *regs.Arch, inv *harness.Invocation, ret, parent uint64) {
		x9 := a.MustReg("x9")
		inv.Before[0] = uint64(0xc0)<<56 | 0x1234_5678 // x0 is an argument here
		inv.Before[a.Link], inv.Before[x9] = ret, parent
		sp := inv.Before[a.SP]
		driverRec := inv.DriverSP + 16
		inv.DriverRecord = driverRec
		callerRec := sp + 0x40
		inv.Before[a.FP] = callerRec
		inv.After = inv.Before
		inv.After[a.Link] = parent
		hc := &inv.Calls[0]
		r := inv.Before
		r[a.SP] = sp - 256
		rec0, rec1 := sp-32, sp-16
		r[a.FP] = rec0
		r[a.Args[0]], r[a.Args[1]], r[a.Args[2]] = ret-uint64(a.McountInsnSize), parent, handOps
		hc.Regs = r
		hc.Backchain = []uint64{rec0, ret, rec1, parent, callerRec, a.Memory.Text.Base + 0x10, driverRec, 0}
	}
	// return_to_handler's call into C: its own record chains to the
	// caller's record and the driver's (no traced function's records).
	handExitArch[regs.ARM64.Name] = func(a *regs.Arch, inv *harness.Invocation) {
		hc := &inv.Calls[0]
		hc.Backchain = hc.Backchain[4:]
	}
}

// The arm64 frame-record check: each missing link is named, a sound chain
// passes (for an exit: the caller's record and the driver's).
func TestARM64FrameRecords(t *testing.T) {
	a := regs.ARM64
	for _, c := range []struct {
		name  string
		edit  func(inv *harness.Invocation, hc *harness.HostCall)
		wants string // "" = sound
	}{
		{"sound", func(*harness.Invocation, *harness.HostCall) {}, ""},
		{"no record with the traced function", func(_ *harness.Invocation, hc *harness.HostCall) { hc.Backchain[1] = 0x1 }, "the traced function"},
		{"parent missing", func(_ *harness.Invocation, hc *harness.HostCall) { hc.Backchain[3] = 0x1 }, "the traced function's caller"},
		{"caller's record skipped", func(_ *harness.Invocation, hc *harness.HostCall) { hc.Backchain[4] = 0x1 }, "the caller's frame record"},
		{"chain ends early", func(_ *harness.Invocation, hc *harness.HostCall) { hc.Backchain = hc.Backchain[:6] }, "the driver's frame"},
		// A walk that read the caller's fp and no lr: no record.
		{"an fp without its lr at the end", func(_ *harness.Invocation, hc *harness.HostCall) { hc.Backchain = hc.Backchain[:5] }, "the caller's frame record"},
		{"exit: sound", func(inv *harness.Invocation, hc *harness.HostCall) {
			inv.Role = trampolines.Exit
			hc.Backchain = hc.Backchain[4:]
		}, ""},
		{"exit: caller's record missing", func(inv *harness.Invocation, hc *harness.HostCall) {
			inv.Role = trampolines.Exit
			hc.Backchain = hc.Backchain[6:]
		}, "the caller's frame record"},
	} {
		t.Run(c.name, func(t *testing.T) {
			inv := handInvocation(t, a)
			hc := &inv.Calls[0]
			c.edit(inv, hc)
			summary, example := arm64FrameRecords(a, inv, hc)
			if c.wants == "" {
				if summary != "" {
					t.Fatalf("sound chain reported: %s (%s)", summary, example)
				}
				return
			}
			if !strings.Contains(summary, c.wants) || example == "" {
				t.Fatalf("summary %q (example %q), want it to name %q", summary, example, c.wants)
			}
		})
	}
}
