package emu

import (
	"testing"

	"trampemu/asm"
	"trampemu/regs"
)

// TestFastHostCall: a host function on the C fast path counts its calls
// and keeps the last one's arguments without entering Go, leaves the
// registers exactly as the same function run in Go does (the clobber),
// sends a call whose required argument differs to Go, and runs in Go again
// once turned off; every arch.
func TestFastHostCall(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			run := func(fast *Fast, n uint64) (*Machine, uint64, regs.RegFile) {
				m := newTestMachine(t, a)
				var goCalls uint64
				if err := m.Bind("host_count", func(*Machine) error { goCalls++; return nil }, true); err != nil {
					t.Fatal(err)
				}
				if err := m.SetFast("host_count", fast); err != nil {
					t.Fatal(err)
				}
				if err := m.Call(sym(t, m, "guest_loop"), sym(t, m, "done"), stackTop(a), []uint64{n}, RunOptions{}); err != nil {
					t.Fatal(err)
				}
				return m, goCalls, m.Regs()
			}
			const n = 100
			_, goCalls, inGo := run(nil, n)
			if goCalls != n {
				t.Fatalf("%d Go calls, want %d", goCalls, n)
			}
			m, goCalls, inC := run(&Fast{Args: 1, RequireArg: -1}, n)
			if goCalls != 0 {
				t.Errorf("the fast path entered Go %d times", goCalls)
			}
			if m.HostCalls("host_count") != n {
				t.Errorf("HostCalls %d before TakeFast, want %d", m.HostCalls("host_count"), n)
			}
			calls, last := m.TakeFast("host_count")
			if calls != n || last[0] != 1 || m.HostCalls("host_count") != n {
				t.Errorf("TakeFast: %d calls, last argument %d, HostCalls %d; want %d, 1 (the loop counts down), %d", calls, last[0], m.HostCalls("host_count"), n, n)
			}
			if inC != inGo {
				t.Errorf("registers after the loop differ:\nGo: %s\nC:  %s", a.FormatRegs(&inGo), a.FormatRegs(&inC))
			}
			// Argument 0 must be 7: only the call of i = 7 runs in Go.
			m, goCalls, _ = run(&Fast{Args: 1, RequireArg: 0, Require: 7}, n)
			if calls, _ := m.TakeFast("host_count"); goCalls != n-1 || calls != 1 {
				t.Errorf("with argument 0 required to be 7: %d in Go, %d in C; want %d and 1", goCalls, calls, n-1)
			}
			m, _, _ = run(&Fast{Args: 1, RequireArg: -1}, 3)
			if err := m.SetFast("host_count", nil); err != nil {
				t.Fatal(err)
			}
			if err := m.Call(sym(t, m, "guest_loop"), sym(t, m, "done"), stackTop(a), []uint64{3}, RunOptions{}); err != nil {
				t.Fatal(err)
			}
			if calls, _ := m.TakeFast("host_count"); m.HostCalls("host_count") != 6 || calls != 3 {
				t.Errorf("after SetFast(nil): %d calls, %d of them in C; want 6 and the first run's 3", m.HostCalls("host_count"), calls)
			}
			if err := m.SetFast("nope", nil); err == nil {
				t.Error("SetFast of an unbound name: no error")
			}
		})
	}
}

// TestClobberRoutine: the clobber routine decodes as one load per routine
// register and a return, its blocks count nothing (the host function's
// work), and a clobbering host call leaves ClobberValue in every volatile
// register but the link register and a return register the function set;
// every arch.
func TestClobberRoutine(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			m := newTestMachine(t, a)
			if err := m.Bind("host_count", func(*Machine) error { return nil }, true); err != nil {
				t.Fatal(err)
			}
			if m.hooks.clobberCode == nil {
				if m.routineMask != 0 {
					t.Errorf("no clobber routine, but routine registers %#x", m.routineMask)
				}
			} else {
				checkRoutineDecodes(t, m)
			}
			m.SetCounting(true)
			if err := m.Call(sym(t, m, "guest_loop"), sym(t, m, "done"), stackTop(a), []uint64{2}, RunOptions{}); err != nil {
				t.Fatal(err)
			}
			for _, b := range m.Blocks() {
				if b.Addr >= m.routineAddr() && b.Addr < a.Memory.Stubs.End() {
					t.Errorf("routine block %#x counted", b.Addr)
				}
			}
			r := m.Regs()
			for _, i := range a.Volatile {
				if i == a.Link || i == a.Flags {
					continue
				}
				if r[i] != ClobberValue(i) {
					// guest_loop itself may have changed a register after the
					// last call: only the routine's must hold the pattern.
					if (m.routineMask&(1<<uint(i)) != 0 || m.hooks.clobberCode == nil) && !loopWrites(a, i) {
						t.Errorf("%s = %#x after the host calls, want %#x", a.Regs[i].Name, r[i], ClobberValue(i))
					}
				}
			}
		})
	}
}

// loopWrites names the registers guest_loop (testdata) writes after its
// last host call: its counter and the argument register.
func loopWrites(a *regs.Arch, i int) bool {
	for _, j := range a.Args[:1] {
		if i == j {
			return true
		}
	}
	return false
}

// checkRoutineDecodes: the clobber routine is loads and one return.
func checkRoutineDecodes(t *testing.T, m *Machine) {
	t.Helper()
	code := m.Mem(m.routineAddr(), 512)
	insns := 0
	for off := 0; ; {
		in, err := m.dis.Decode(code[off:], m.routineAddr()+uint64(off))
		if err != nil {
			t.Fatalf("routine +%d: %v", off, err)
		}
		insns++
		if in.Flow != 0 {
			break
		}
		off += in.Len
	}
	if insns < 2 {
		t.Errorf("routine of %d instructions", insns)
	}
}

// FuzzClobberCode: the clobber routine's encoder, on every arch, for any
// set of routine registers and values, writes code the disassembler reads
// back as one load of an immediate per register (two on s390x when the
// low half is not 0, up to four on arm64) and one return at the end, with
// no byte left over; and the stub's branch to it decodes as a jump to the
// routine.
func FuzzClobberCode(f *testing.F) {
	f.Add(uint8(0), uint32(0xffff), uint64(0xc10bbe4e00000000))
	f.Add(uint8(1), uint32(0x3f), uint64(0))
	f.Add(uint8(2), uint32(0x3ffff), uint64(0xffffffffffffffff))
	f.Fuzz(func(t *testing.T, which uint8, mask uint32, base uint64) {
		a := regs.Arches[int(which)%len(regs.Arches)]
		h, err := machineArchOf(a)
		if err != nil {
			t.Fatal(err)
		}
		var rs []int
		var vals []uint64
		for _, i := range a.Volatile {
			if i == a.Link || i == a.Flags || mask&(1<<uint(i%32)) == 0 {
				continue
			}
			rs, vals = append(rs, i), append(vals, base^uint64(i)<<uint(i%61))
		}
		code := h.clobberCode(rs, vals)
		dis := asm.NewDisassembler(a, nil)
		pc := a.Memory.Stubs.End() - routineSize
		insns := 0
		for off := 0; off < len(code); {
			in, err := dis.Decode(code[off:], pc+uint64(off))
			if err != nil || in.Len <= 0 {
				t.Fatalf("%s: % x at +%d: %v", a.Name, code, off, err)
			}
			insns++
			off += in.Len
			if last := off == len(code); (in.Flow != asm.FlowNone) != last {
				t.Fatalf("%s: +%d %s: flow %v, last %v", a.Name, off-in.Len, in.Text, in.Flow, last)
			}
		}
		// At most 8 per register: riscv64 builds a 64-bit constant with
		// lui, addiw and three slli/addi pairs (riscv64ClobberCode).
		if insns < len(rs)+1 || insns > 8*len(rs)+1 {
			t.Errorf("%s: %d instructions for %d registers", a.Name, insns, len(rs))
		}
		stub := a.Memory.Stubs.Base + 16*uint64(mask%64)
		in, err := dis.Decode(h.jump(stub, pc), stub)
		if err != nil || in.Target != pc || in.Flow == asm.FlowNone {
			t.Errorf("%s: the stub's branch decodes as %q (target %#x, flow %v, %v), want a jump to %#x", a.Name, in.Text, in.Target, in.Flow, err, pc)
		}
	})
}
