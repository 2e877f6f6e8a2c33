package check

import (
	"fmt"
	"strings"
	"testing"

	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
)

// The riscv64 shape of the hand observations (analyze_test.go): the call
// site "auipc t0; jalr t0" enters with t0 = ip+8 and ra = parent, a0 is
// an argument, the trampoline leaves with ra = parent, and at the call
// into C the frame records from s0 (kept by the trampoline: the caller's)
// go caller -> driver.
func init() {
	handArch[regs.RISCV64.Name] = func(a *regs.Arch, inv *harness.Invocation, ret, parent uint64) {
		t0 := a.MustReg("t0")
		inv.Before[a.Args[0]] = uint64(0xc0)<<56 | 0x1234_5678
		inv.Before[t0], inv.Before[a.Link] = ret, parent
		sp := inv.Before[a.SP]
		driverRec := inv.DriverSP + 32
		inv.DriverRecord = driverRec
		callerRec := sp + 0x40
		inv.Before[a.FP] = callerRec
		inv.After = inv.Before
		hc := &inv.Calls[0]
		r := inv.Before
		r[a.SP] = sp - 256
		r[a.Args[0]], r[a.Args[1]], r[a.Args[2]] = ret-uint64(a.McountInsnSize), parent, handOps
		hc.Regs = r
		hc.Backchain = []uint64{callerRec, a.Memory.Text.Base + 0x10, driverRec, 0}
	}
}

// The riscv64 frame-record check: a chain that skips the caller's record
// or ends before the driver's is named, a sound one passes.
func TestRISCV64FrameRecords(t *testing.T) {
	a := regs.RISCV64
	cases := []struct {
		name   string
		change func(*harness.HostCall)
		want   string
	}{
		{"sound", func(*harness.HostCall) {}, ""},
		{"caller's record skipped", func(hc *harness.HostCall) { hc.Backchain[0] = 0x8 }, "the caller's frame record"},
		{"chain ends early", func(hc *harness.HostCall) { hc.Backchain = hc.Backchain[:2] }, "the driver's frame record"},
		// The driver's fp read and no ra: no record.
		{"an fp without its ra at the end", func(hc *harness.HostCall) { hc.Backchain = hc.Backchain[:3] }, "the driver's frame record"},
		{"s0 moved off the chain", func(hc *harness.HostCall) { hc.Backchain = []uint64{hc.Regs[a.SP], 0} }, "the caller's frame record"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			inv := handInvocation(t, a)
			hc := &inv.Calls[0]
			c.change(hc)
			summary, example := riscv64FrameRecords(a, inv, hc)
			if c.want == "" {
				if summary != "" {
					t.Fatalf("sound chain: %s (%s)", summary, example)
				}
				return
			}
			if !strings.Contains(summary, c.want) || !strings.Contains(summary, "s0") {
				t.Errorf("summary %q, want it to name %q", summary, c.want)
			}
		})
	}
}

// An exit's own records before the caller's (return_to_handler's
// fgraph_ret_regs {.., s0, ra}, v6.5-v6.13) must hold a kernel text ra
// (text or the host stubs): walk_stackframe stops at one that is not
// (arch/riscv/kernel/stacktrace.c); an entry's records, and the records
// from the caller's on, are not held to it.
func TestRISCV64ExitRecordRA(t *testing.T) {
	a := regs.RISCV64
	bad := "the caller: a record before the caller's holds an ra that is no kernel text"
	for _, c := range []struct {
		name     string
		exit     bool
		ra       func(a *regs.Arch) uint64 // the own record's ra
		atCaller bool                      // the bad ra in the caller's record instead
		want     string
	}{
		{"exit, text ra", true, func(a *regs.Arch) uint64 { return a.Memory.Text.Base + 0x20 }, false, ""},
		{"exit, last text byte", true, func(a *regs.Arch) uint64 { return a.Memory.Text.End() - 1 }, false, ""},
		{"exit, stub ra", true, func(a *regs.Arch) uint64 { return a.Memory.Stubs.Base }, false, ""},
		{"exit, stack ra", true, func(a *regs.Arch) uint64 { return a.Memory.Stack.Base + 0x100 }, false, bad},
		{"exit, ra past the text", true, func(a *regs.Arch) uint64 { return a.Memory.Text.End() }, false, bad},
		{"entry, stack ra", false, func(a *regs.Arch) uint64 { return a.Memory.Stack.Base + 0x100 }, false, ""},
		{"exit, stack ra in the caller's record", true, func(a *regs.Arch) uint64 { return a.Memory.Stack.Base + 0x100 }, true, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			inv := handInvocation(t, a)
			if c.exit {
				inv.Role = trampolines.Exit
			}
			hc := &inv.Calls[0]
			own := hc.Regs[a.SP] + 16
			rec := []uint64{own, c.ra(a)}
			if c.atCaller {
				rec[1] = a.Memory.Text.Base + 0x20
				hc.Backchain[1] = c.ra(a)
			}
			hc.Backchain = append(rec, hc.Backchain...)
			summary, example := riscv64FrameRecords(a, inv, hc)
			if want := c.want; want != "" {
				want = "the frame-record chain from s0 at the call to " + hc.Name + " does not reach " + want
				if summary != want || example == "" {
					t.Errorf("summary %q (example %q), want %q", summary, example, want)
				}
			} else if summary != "" {
				t.Errorf("sound chain: %s (%s)", summary, example)
			}
		})
	}
}

// TestClangEntryKeepsT2ToT6: built with CONFIG_CC_IS_CLANG (riscv64 clang's
// fastcc passes arguments in t2-t6, f8693f6dffcd), an entry trampoline
// must keep t2-t6 as well; without the option, and in an exit with it,
// t3 is scratch.
func TestClangEntryKeepsT2ToT6(t *testing.T) {
	a := regs.RISCV64
	t3 := a.MustReg("t3")
	clang := map[string]string{"CONFIG_CC_IS_CLANG": "1"}
	for _, c := range []struct {
		name    string
		exit    bool
		defines map[string]string
		want    bool
	}{
		{"entry, clang", false, clang, true},
		{"entry, gcc", false, nil, false},
		{"exit, clang", true, clang, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			inv, s := handInvocation(t, a), handSubject(a)
			if c.exit {
				inv, s = handExit(t, a)
			}
			s.Tramp.Source.Defines = c.defines
			before := inv.Before[t3]
			inv.After[t3] = before ^ 0x40
			r := analyzeHand(t, s, handBatch(inv))
			if !c.want {
				for _, f := range r.Findings {
					if f.Kind == Clobber || f.Severity == Error {
						t.Errorf("t3 is scratch here: %v", f)
					}
				}
				return
			}
			expectFindings(t, r, want{kind: Clobber, reg: "t3", message: fmt.Sprintf("%%t3 changed across the entry trampoline (first seen: %#x -> %#x)", before, before^0x40)})
		})
	}
}
