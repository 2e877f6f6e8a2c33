package trace_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"trampemu/asm"
	"trampemu/emu"
	"trampemu/regs"
	"trampemu/trace"
)

// guestMachine loads emu's test program (guest_add calls host_add) into a
// new machine, closed when the test ends.
func guestMachine(t *testing.T, a *regs.Arch) (*emu.Machine, *asm.Image) {
	t.Helper()
	path := filepath.Join("..", "emu", "testdata", a.Name+".S")
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	im, err := asm.Build(asm.Options{Arch: a, HostFuncs: []string{"host_add", "host_count"}}, asm.Source{Name: path, Text: text})
	if err != nil {
		t.Fatal(err)
	}
	m, err := emu.New(a)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	if err := m.Load(im); err != nil {
		t.Fatal(err)
	}
	return m, im
}

// The recorder sees every instruction of guest_add (a host call in the
// middle) with the registers it changed and the memory it wrote; the host
// step carries what the Go function changed. Both arches.
func TestRecorderFollowsGuestAdd(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			m, im := guestMachine(t, a)
			if err := m.Bind("host_add", func(m *emu.Machine) error { m.SetReturn(m.Arg(0) + m.Arg(1)); return nil }, true); err != nil {
				t.Fatal(err)
			}
			rec := trace.NewRecorder(im)
			if err := m.Trace(rec, a.Memory.Text.Base, a.Memory.Text.End()); err != nil {
				t.Fatal(err)
			}
			fn, _ := im.Symbol("guest_add")
			done, _ := im.Symbol("done")
			sp := a.Memory.Stack.End() - 4096
			if err := m.Call(fn, done, sp, []uint64{40, 1}, emu.RunOptions{}); err != nil {
				t.Fatal(err)
			}
			var host *trace.Step
			stores := 0
			for i := range rec.Steps {
				s := &rec.Steps[i]
				if s.Host == "host_add" {
					host = s
				}
				for _, st := range s.Stores {
					if s.Done && st.Bytes == nil {
						t.Errorf("%#x: store to %#x without its value", s.PC, st.Addr)
					}
					stores++
				}
			}
			if host == nil {
				t.Fatalf("no host step in %d steps", len(rec.Steps))
			}
			ret := a.Ret[0]
			setRet := false
			for _, c := range host.Changed {
				if c.Reg == ret && c.New == 41 {
					setRet = true
				}
			}
			if !setRet {
				t.Errorf("host step changes %+v, want %s = 41", host.Changed, a.Regs[ret].Name)
			}
			// x86-64: call pushes the return address; s390x: stmg saves r6-r15.
			if stores == 0 {
				t.Error("no store recorded")
			}
			if first := rec.Steps[0]; first.PC != fn || !strings.Contains(first.Inst.Text, map[string]string{"x86_64": "call", "s390x": "stmg"}[a.Name]) {
				t.Errorf("first step %#x %q, want guest_add's first instruction", first.PC, first.Inst.Text)
			}
			var out strings.Builder
			if err := rec.Render(&out, trace.RenderOptions{Image: im}); err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"-> Go host_add(", "<guest_add>", "store [sp"} {
				if !strings.Contains(out.String(), want) {
					t.Errorf("render lacks %q:\n%s", want, out.String())
				}
			}
		})
	}
}

// A full recorder counts what it drops instead of growing.
func TestRecorderLimit(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			m, im := guestMachine(t, a)
			rec := trace.NewRecorder(im)
			rec.Max = 10
			if err := m.Trace(rec, a.Memory.Text.Base, a.Memory.Text.End()); err != nil {
				t.Fatal(err)
			}
			fn, _ := im.Symbol("guest_stores")
			done, _ := im.Symbol("done")
			if err := m.Call(fn, done, a.Memory.Stack.End()-4096, []uint64{100}, emu.RunOptions{}); err != nil {
				t.Fatal(err)
			}
			if len(rec.Steps) != 10 || rec.Dropped == 0 {
				t.Errorf("%d steps kept, %d dropped; want 10 and more than 0", len(rec.Steps), rec.Dropped)
			}
		})
	}
}
