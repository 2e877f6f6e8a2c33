package native_test

import (
	"strings"
	"testing"

	"trampemu/check"
	"trampemu/harness"
	"trampemu/native"
	"trampemu/regs"
)

// TestValgrindMatchesEmulator: for every x86-64 registry variant (in its
// intended pairing), the instructions, data reads and data writes per
// traced call that callgrind counts running the code natively equal the
// emulator's exact counts (check.Metrics: instructions, loads, stores). The counts must tell
// variants apart: rth-merged and rth-merged-jmp differ by two
// instructions, in both counts.
func TestValgrindMatchesEmulator(t *testing.T) {
	costs, err := native.ValgrindCosts(5)
	if err != nil {
		t.Fatal(err)
	}
	vg := map[string]float64{}
	for name, c := range costs {
		vg[name] = c.Instructions
	}
	emulated := map[string]float64{}
	for _, v := range harness.VariantsOf(regs.X86_64, "") {
		tr, err := harness.FromVariant(v)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := check.Run(check.Config{Arch: regs.X86_64, Tramp: tr, Workloads: []string{"add"}, Calls: 2})
		if err != nil {
			t.Fatal(err)
		}
		emulated[v.Name] = rs[0].Metrics.Instructions
		// callgrind's data reads and writes are the published loads and
		// stores per call (check's per(), as every table).
		if c := costs[v.Name]; c.Loads != rs[0].Metrics.Loads || c.Stores != rs[0].Metrics.Stores {
			t.Errorf("%s: valgrind counts %v data reads and %v writes per traced call, the emulator %v loads and %v stores",
				v.Name, c.Loads, c.Stores, rs[0].Metrics.Loads, rs[0].Metrics.Stores)
		}
		got, ok := vg[v.Name]
		switch {
		case !ok:
			t.Errorf("%s: no valgrind count", v.Name)
		case got <= 0 || got != emulated[v.Name]:
			t.Errorf("%s: valgrind counts %v instructions per traced call, the emulator %v", v.Name, got, emulated[v.Name])
		}
	}
	if d, e := vg["rth-merged"]-vg["rth-merged-jmp"], emulated["rth-merged"]-emulated["rth-merged-jmp"]; d != 2 || e != 2 {
		t.Errorf("rth-merged minus rth-merged-jmp: valgrind %v, emulator %v instructions, want 2", d, e)
	}
}

// ParseCallgrind reads self costs per address, absolute and compressed
// positions, and skips the inclusive cost line after calls=; what is not
// a callgrind profile with instruction addresses is an error.
func TestParseCallgrind(t *testing.T) {
	good := "version: 1\npositions: instr\nevents: Ir\nfn=0x60000000\n0x60000000 3\n+4 2\n* 1\ncalls=1 0x60001000\n+2 100\n-6 5\nfn=(1)\n0x61000000 7\ntotals: 118\n"
	costs, err := native.ParseCallgrind(strings.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	want := map[uint64]uint64{0x60000000: 8, 0x60000004: 3, 0x61000000: 7}
	if len(costs) != len(want) {
		t.Errorf("got %v, want %v", costs, want)
	}
	for a, c := range want {
		if costs[a] != c {
			t.Errorf("%#x: cost %d, want %d (all: %v)", a, costs[a], c, costs)
		}
	}
	lines, err := native.ParseCallgrind(strings.NewReader("positions: line\nevents: Ir\n12 3\n"))
	if err == nil || !strings.Contains(err.Error(), "--dump-instr=yes") {
		t.Errorf("a profile without addresses: %v, %v", lines, err)
	}
	for _, bad := range []string{"", "hello\n", "positions: instr\nevents: Ir\n0xzz 1\n", "positions: instr\nevents: Ir\n0x10 x\n"} {
		if _, err := native.ParseCallgrind(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func FuzzParseCallgrind(f *testing.F) {
	f.Add("positions: instr\nevents: Ir\nfn=x\n0x60000000 3\n+4 2\n* 1\ncalls=1 0x60001000\n+2 100\n-6 5\n")
	f.Add("positions: instr line\nevents: Ir Dr\n0x10 1 2 3\n")
	f.Fuzz(func(t *testing.T, s string) {
		costs, err := native.ParseCallgrind(strings.NewReader(s))
		if err == nil && costs == nil {
			t.Fatal("nil costs without an error")
		}
	})
}

// ParseCallgrindEvents keeps every event's self cost per address, a short
// cost line leaving the rest 0; more costs than events is an error.
func TestParseCallgrindEvents(t *testing.T) {
	in := "positions: instr\nevents: Ir Dr Dw\nfn=f\n0x10 3 1 2\n+4 1\n* 2 0 1\ncalls=1 0x20\n+2 100 100 100\n"
	events, costs, err := native.ParseCallgrindEvents(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(events, " ") != "Ir Dr Dw" {
		t.Errorf("events %v", events)
	}
	want := map[uint64][]uint64{0x10: {3, 1, 2}, 0x14: {3, 0, 1}}
	if len(costs) != len(want) {
		t.Fatalf("costs %v, want %v", costs, want)
	}
	for a, w := range want {
		if g := costs[a]; len(g) != 3 || g[0] != w[0] || g[1] != w[1] || g[2] != w[2] {
			t.Errorf("%#x: %v, want %v", a, g, w)
		}
	}
	for _, bad := range []string{"positions: instr\nevents: Ir\n0x10 1 2\n", "positions: instr\nevents:\n", "positions: instr\n0x10 1\nevents: Ir\n"} {
		if _, _, err := native.ParseCallgrindEvents(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func FuzzParseCallgrindEvents(f *testing.F) {
	f.Add("positions: instr\nevents: Ir Dr Dw\nfn=f\n0x10 3 1 2\n+4 1\n* 2 0 1\ncalls=1 0x20\n+2 100 100 100\n")
	f.Add("positions: instr line\nevents: Ir\n0x10 1 2\nevents: Ir Dr Dw\n0x10 1 2 3 4\n")
	f.Fuzz(func(t *testing.T, s string) {
		events, costs, err := native.ParseCallgrindEvents(strings.NewReader(s))
		if err != nil {
			return
		}
		if costs == nil || len(events) == 0 {
			t.Fatalf("no error, yet events %v costs %v", events, costs)
		}
		for addr, c := range costs {
			if len(c) > len(events) {
				t.Fatalf("%#x: %d costs for %d events", addr, len(c), len(events))
			}
		}
	})
}
