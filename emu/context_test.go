package emu

import (
	"testing"

	"trampemu/regs"
)

// TestContextRegs: on an arch whose registers are read from a saved CPU
// context (machineArch.contextRegs) every general register was found in
// it, and a register file read that way equals the engine's own reads,
// outside a run and inside a host function (the values the guest loop
// left, the clobber's included); an arch without it reads every register
// through the engine. Every arch.
func TestContextRegs(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			m := newTestMachine(t, a)
			// every plain register (all but pc and the flags, if the
			// arch has them) from the engine's own state
			want := len(a.Regs) - 1
			if a.Flags >= 0 {
				want--
			}
			if got := m.LiveRegs(); got != want {
				t.Fatalf("%d registers read from the engine's state, want %d", got, want)
			}
			if got := m.ContextRegs(); got != 0 {
				t.Fatalf("%d registers read from a saved context as well", got)
			}
			same := func(where string) {
				t.Helper()
				r := m.Regs()
				for i := range a.Regs {
					if v := m.regThroughEngine(i); r[i] != v && i != a.PC {
						t.Errorf("%s: %s = %#x read at once, %#x through the engine", where, a.Regs[i].Name, r[i], v)
					}
				}
			}
			for i := range a.Regs {
				if i != a.PC && i != a.Flags {
					m.SetReg(i, 0x1111111111111111*uint64(i%15+1)^uint64(i))
				}
			}
			same("after SetReg")
			calls := 0
			if err := m.Bind("host_count", func(m *Machine) error { calls++; same("in a host call"); return nil }, true); err != nil {
				t.Fatal(err)
			}
			if err := m.Call(sym(t, m, "guest_loop"), sym(t, m, "done"), stackTop(a), []uint64{3}, RunOptions{}); err != nil {
				t.Fatal(err)
			}
			if calls != 3 {
				t.Fatalf("%d host calls, want 3", calls)
			}
			same("after the run")
		})
	}
}

// TestLiveLayoutKept: the engine's CPU state is searched for once per arch
// and process; every later machine checks the kept layout and uses it (a
// search per machine would cost each about 5 ms). Every arch.
func TestLiveLayoutKept(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			for i := 0; i < 4; i++ {
				if m := newTestMachine(t, a); m.LiveRegs() == 0 {
					t.Fatalf("machine %d reads no register from the engine's state", i)
				}
			}
			if n := LiveSearches(a.Name); n != 1 {
				t.Errorf("%d searches for the %s CPU state, want 1", n, a.Name)
			}
		})
	}
}
