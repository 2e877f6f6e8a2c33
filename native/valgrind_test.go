package native_test

import (
	"fmt"
	"strings"
	"testing"

	"trampemu/check"
	"trampemu/harness"
	"trampemu/native"
	"trampemu/regs"
	"trampemu/trampolines"
)

// TestValgrindMatchesEmulator: for every x86-64 registry variant (in its
// intended pairing), the instructions per traced call that callgrind
// counts running the code natively equal the emulator's exact count
// (check.Metrics.Instructions, block counters). The counts must tell
// variants apart: rth-merged and rth-merged-jmp differ by two
// instructions, in both counts. arch_rethook_trampoline is among them, with
// the runtime's stand-in for its callback.
func TestValgrindMatchesEmulator(t *testing.T) {
	vg, err := native.ValgrindCounts(5)
	if err != nil {
		t.Fatal(err)
	}
	emulated := map[string]float64{}
	var diffs []string
	for _, v := range harness.VariantsOf(regs.X86_64, "") {
		if v.Role == trampolines.Rethook && !v.Kernel {
			continue // the rethook twins are not run natively (RegistryJobs)
		}
		tr, err := harness.FromVariant(v)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := check.Run(check.Config{Arch: regs.X86_64, Tramp: tr, Workloads: []string{"add"}, Calls: 2})
		if err != nil {
			t.Fatal(err)
		}
		m := rs[0].Metrics
		emulated[v.Name] = m.Instructions
		got, ok := vg[v.Name]
		switch {
		case !ok:
			t.Errorf("%s: no valgrind count", v.Name)
		case got.Instructions <= 0 || got.Instructions != m.Instructions:
			t.Errorf("%s: valgrind counts %v instructions per traced call, the emulator %v", v.Name, got.Instructions, m.Instructions)
		}
		if got.Loads != m.Loads || got.Stores != m.Stores {
			diffs = append(diffs, fmt.Sprintf("%s: valgrind %v loads %v stores, emulator %v loads %v stores", v.Name, got.Loads, got.Stores, m.Loads, m.Stores))
		}
	}
	for _, d := range diffs {
		t.Error(d)
	}
	if d, e := vg["rth-merged"].Instructions-vg["rth-merged-jmp"].Instructions, emulated["rth-merged"]-emulated["rth-merged-jmp"]; d != 2 || e != 2 {
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
