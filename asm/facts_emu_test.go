package asm_test

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"trampemu/asm"
	"trampemu/emu"
	"trampemu/ftrace"
	"trampemu/regs"
)

// factsEmuSkip are the facts-file instructions the emulator cross-check does
// not run, with the reason: their operands would fault or change the
// machine's mode with every register pointing at the same scratch page.
var factsEmuSkip = map[string]string{
	"div": "divides by a scratch word (#DE)", "idiv": "divides by a scratch word (#DE)",
	"popf": "loads the flags from scratch memory (TF)", "popfq": "loads the flags from scratch memory (TF)",
	"dsgr": "divides by a register (fixed-point divide)", "dlgr": "divides by a register (fixed-point divide)",
	"ex": "executes scratch memory", "exrl": "executes the next instruction",
	"stosm": "changes the PSW system mask", "stnsm": "changes the PSW system mask", "spm": "changes the program mask from a register",
	"msr":  "writes a system register",
	"movq": "SSE is off in the machine (#UD)", "movd": "SSE is off in the machine (#UD)",
	"movaps": "SSE is off in the machine (#UD)", "movups": "SSE is off in the machine (#UD)",
	"movdqa": "SSE is off in the machine (#UD)", "movdqu": "SSE is off in the machine (#UD)",
	"movbe": "not in the emulated CPU model (#UD)",
	// QEMU runs the storage-to-storage instructions in helpers whose
	// accesses Unicorn 2.1.1's memory hooks do not see (mvc, xc, nc, oc:
	// none; clc: one load of both operands).
	"mvc": "SS format: its helper's accesses bypass the memory hooks", "xc": "SS format: its helper's accesses bypass the memory hooks",
	"nc": "SS format: its helper's accesses bypass the memory hooks", "oc": "SS format: its helper's accesses bypass the memory hooks",
	"clc": "SS format: its helper's accesses bypass the memory hooks",
	// QEMU implements a store-exclusive as a compare-and-swap against the
	// exclusive monitor: no access, or a load and a store, never the one
	// store the architecture makes when it succeeds.
	"stxr": "store-exclusive: QEMU's cmpxchg", "stlxr": "store-exclusive: QEMU's cmpxchg",
}

// TestFactsMatchEmulator runs every instruction of testdata/facts_<arch>.S
// that stays in line (no control flow, memory facts known) alone in the
// emulator, every general register pointing at a scratch page, and
// compares its loads and stores with what Unicorn's memory hooks saw
// (emu.CountExact, which joins accesses that continue each other: the
// facts' accesses are joined the same way before comparing).
func TestFactsMatchEmulator(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			name := filepath.Join("testdata", "facts_"+a.Name+".S")
			text, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			im, err := asm.Build(asm.Options{Arch: a, HostFuncs: []string{ftrace.SymFtraceStub}}, asm.Source{Name: name, Text: text})
			if err != nil {
				t.Fatal(err)
			}
			m, err := emu.New(a)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			if err := m.Load(im); err != nil {
				t.Fatal(err)
			}
			u := im.Units[0]
			ins, err := asm.Listing(im, asm.ForImage(im), u.Start, u.End)
			if err != nil {
				t.Fatal(err)
			}
			ec, err := m.CountExact(emu.Range{Lo: u.Start, Hi: u.End})
			if err != nil {
				t.Fatal(err)
			}
			defer ec.Close()
			scratch := a.Memory.Stack.Base + a.Memory.Stack.Size/2
			fill := make([]byte, 0x2000)
			for i := range fill {
				fill[i] = 0x01
			}
			ran, skipped := 0, map[string]int{}
			for _, in := range ins {
				if in.Flow != asm.FlowNone || !in.MemKnown || factsEmuSkip[in.Op] != "" {
					skipped[in.Op]++
					continue
				}
				if err := m.WriteMem(scratch-0x1000, fill); err != nil {
					t.Fatal(err)
				}
				// Index registers are 0 so that base+index stays on the page.
				val := make([]uint64, len(a.Regs))
				for i := range val {
					val[i] = scratch
				}
				for _, r := range in.Mem {
					if r.Index >= 0 && r.Index != r.Base {
						val[r.Index] = 0
					}
				}
				for i := range a.Regs {
					if i != a.PC && i != a.Flags {
						m.SetReg(i, val[i])
					}
				}
				reg := func(i int) uint64 { return val[i] }
				before := ec.Counts()[0]
				if err := m.Run(in.Addr, in.Addr+uint64(in.Len), emu.RunOptions{Limit: 10}); err != nil {
					t.Errorf("%s: %v", in.Text, err)
					continue
				}
				after := ec.Counts()[0]
				got := emu.ExactCount{Instructions: after.Instructions - before.Instructions, Loads: after.Loads - before.Loads,
					Stores: after.Stores - before.Stores, LoadBytes: after.LoadBytes - before.LoadBytes, StoreBytes: after.StoreBytes - before.StoreBytes}
				want := joinedFacts(in, reg)
				if got != want {
					t.Errorf("%s (% x): the emulator did %+v, the facts say %+v", in.Text, in.Bytes, got, want)
				}
				ran++
			}
			if ran < 20 {
				t.Fatalf("only %d instructions ran", ran)
			}
			ops := make([]string, 0, len(skipped))
			for op := range skipped {
				ops = append(ops, op)
			}
			sort.Strings(ops)
			t.Logf("%s: %d instructions agree with the emulator; not run (control flow, unknown memory or factsEmuSkip): %v", a.Name, ran, ops)
		})
	}
}

// joinedFacts is the instruction's facts as emu.ExactCount counts them:
// accesses in one direction that continue each other are one.
func joinedFacts(in asm.Inst, reg func(int) uint64) emu.ExactCount {
	c := emu.ExactCount{Instructions: 1}
	var lastEnd [2]uint64
	var have [2]bool
	for _, r := range in.Mem {
		addr := r.Addr(reg)
		for d, on := range [2]bool{r.Load, r.Store} {
			if !on {
				continue
			}
			if !have[d] || addr != lastEnd[d] {
				if d == 0 {
					c.Loads++
				} else {
					c.Stores++
				}
			}
			if d == 0 {
				c.LoadBytes += uint64(r.Size)
			} else {
				c.StoreBytes += uint64(r.Size)
			}
			have[d], lastEnd[d] = true, addr+uint64(r.Size)
		}
	}
	return c
}
