package emu

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"trampemu/asm"
	"trampemu/regs"
)

// newTestMachine builds testdata/<arch>.S with host functions host_add and
// host_count and returns a loaded machine.
func newTestMachine(t testing.TB, a *regs.Arch) *Machine {
	t.Helper()
	path := filepath.Join("testdata", a.Name+".S")
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return loadMachine(t, a, asm.Options{Arch: a, HostFuncs: []string{"host_add", "host_count"}},
		asm.Source{Name: path, Text: text})
}

// loadMachine builds the sources and returns a machine with the image
// loaded, closed when the test ends.
func loadMachine(t testing.TB, a *regs.Arch, opt asm.Options, srcs ...asm.Source) *Machine {
	t.Helper()
	im, err := asm.Build(opt, srcs...)
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(a)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	if err := m.Load(im); err != nil {
		t.Fatal(err)
	}
	return m
}

func sym(t testing.TB, m *Machine, name string) uint64 {
	t.Helper()
	a, ok := m.Image.Symbol(name)
	if !ok {
		t.Fatalf("no symbol %s", name)
	}
	return a
}

func stackTop(a *regs.Arch) uint64 { return a.Memory.Stack.End() - 4096 }

func TestRegisterIDsMatchUnicornHeaders(t *testing.T) {
	for _, a := range regs.Arches {
		if len(a.Regs) > regs.NumRegs {
			t.Errorf("%s tracks %d registers, RegFile holds %d", a.Name, len(a.Regs), regs.NumRegs)
		}
		if got := UnicornRegID(a, len(a.Regs)); got != -1 {
			t.Errorf("%s: unicorn.h table has an id (%d) past the %d registers regs tracks", a.Name, got, len(a.Regs))
		}
		for i, r := range a.Regs {
			if got := UnicornRegID(a, i); got != r.UC {
				t.Errorf("%s %s: regs says Unicorn id %d, unicorn.h says %d", a.Name, r.Name, r.UC, got)
			}
		}
	}
}

func TestHostCallArgumentsAndReturn(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			m := newTestMachine(t, a)
			var got [2]uint64
			if err := m.Bind("host_add", func(m *Machine) error {
				got = [2]uint64{m.Arg(0), m.Arg(1)}
				m.SetReturn(m.Arg(0) + m.Arg(1))
				return nil
			}, true); err != nil {
				t.Fatal(err)
			}
			err := m.Call(sym(t, m, "guest_add"), sym(t, m, "done"), stackTop(a), []uint64{40, 1}, RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got != [2]uint64{40, 1} {
				t.Errorf("host saw arguments %v, want [40 1]", got)
			}
			if r := m.Reg(a.Ret[0]); r != 42 {
				t.Errorf("guest returned %d, want 42 (host result 41 + 1)", r)
			}
		})
	}
}

func TestTenThousandHostCallsInOneRun(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			m := newTestMachine(t, a)
			var sum, calls uint64
			m.Bind("host_count", func(m *Machine) error {
				calls++
				sum += m.Arg(0)
				return nil
			}, true)
			const n = 10000
			if err := m.Call(sym(t, m, "guest_loop"), sym(t, m, "done"), stackTop(a), []uint64{n}, RunOptions{}); err != nil {
				t.Fatal(err)
			}
			if calls != n || m.HostCalls("host_count") != n {
				t.Errorf("counted %d calls (machine says %d), want %d", calls, m.HostCalls("host_count"), n)
			}
			if sum != n*(n+1)/2 {
				t.Errorf("arguments summed to %d, want %d", sum, n*(n+1)/2)
			}
		})
	}
}

func TestClobberLeavesPatternInVolatileRegisters(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			m := newTestMachine(t, a)
			var after regs.RegFile
			m.Bind("host_add", func(m *Machine) error { m.SetReturn(7); return nil }, true)
			// Stop right after the stub returns: run until the instruction
			// after the call in guest_add.
			start := sym(t, m, "guest_add")
			ins, _ := asm.Listing(m.Image, asm.ForImage(m.Image), start, start+32)
			var after1 uint64
			for _, in := range ins {
				// riscv64's call is auipc ra + jalr ra (an indirect call).
				if in.Flow == asm.FlowCall || in.Flow == asm.FlowIndirectCall {
					after1 = in.Addr + uint64(in.Len)
					break
				}
			}
			if a.Name == "s390x" {
				// the call is after the prologue: set up as a call would
				m.SetReg(a.Link, sym(t, m, "done"))
			}
			m.SetReg(a.SP, stackTop(a))
			if a.Link < 0 {
				m.SetReg(a.SP, stackTop(a)-8)
			}
			if err := m.Run(start, after1, RunOptions{}); err != nil {
				t.Fatal(err)
			}
			after = m.Regs()
			if after[a.Ret[0]] != 7 {
				t.Errorf("return register = %#x, want 7", after[a.Ret[0]])
			}
			for _, i := range a.Volatile {
				if i == a.Ret[0] || i == a.Flags || i == a.Link {
					continue
				}
				if after[i] != ClobberValue(i) {
					t.Errorf("%s = %#x after the host call, want clobber pattern %#x", a.Regs[i].Name, after[i], ClobberValue(i))
				}
			}
		})
	}
}

func TestFaultsAreErrors(t *testing.T) {
	cases := []struct {
		fn   string
		kind Kind
		insn map[string]string // arch -> substring of the disassembly
	}{
		{"bad_read", KindFault, map[string]string{"x86_64": "mov 0x1000", "s390x": "lg %r2,0(%r1)", "arm64": "ldr x0, [x1]", "riscv64": "ld a0,0(a1)"}},
		{"bad_write", KindFault, map[string]string{"x86_64": "mov %rax,0x1000", "s390x": "stg %r2,0(%r1)", "arm64": "str x0, [x1]", "riscv64": "sd a0,0(a1)"}},
		{"bad_insn", KindInvalid, map[string]string{"x86_64": "ud2", "s390x": ".short 0x0000", "arm64": "udf", "riscv64": "unimp"}},
		{"spin", KindLimit, map[string]string{"x86_64": "jmp", "s390x": "j", "arm64": "b ", "riscv64": "j "}},
	}
	for _, a := range regs.Arches {
		for _, c := range cases {
			t.Run(a.Name+"/"+c.fn, func(t *testing.T) {
				m := newTestMachine(t, a)
				start := time.Now()
				err := m.Call(sym(t, m, c.fn), sym(t, m, "done"), stackTop(a), nil, RunOptions{Limit: 1_000_000, Timeout: 5 * time.Second})
				if d := time.Since(start); d > time.Second {
					t.Errorf("took %v, want under a second", d)
				}
				e, ok := AsError(err)
				if !ok {
					t.Fatalf("got %v, want an *emu.Error", err)
				}
				if e.Kind != c.kind {
					t.Errorf("kind %q, want %q\n%v", e.Kind, c.kind, e)
				}
				if e.Arch != a.Name || !strings.HasPrefix(e.Where, c.fn) {
					t.Errorf("error names %s at %s, want %s in %s", e.Arch, e.Where, a.Name, c.fn)
				}
				want, ok := c.insn[a.Name]
				if !ok {
					t.Fatalf("no expected disassembly for %s", a.Name)
				}
				if !strings.Contains(e.Insn, want) {
					t.Errorf("instruction %q, want it to contain %q", e.Insn, want)
				}
				if e.Regs[a.SP] == 0 {
					t.Errorf("register file missing from the error")
				}
				msg := e.Error()
				for _, want := range []string{a.Name, string(c.kind), c.fn, a.Regs[a.SP].Name} {
					if !strings.Contains(msg, want) {
						t.Errorf("message lacks %q:\n%s", want, msg)
					}
				}
			})
		}
	}
}

func TestTimeout(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			m := newTestMachine(t, a)
			err := m.Call(sym(t, m, "spin"), sym(t, m, "done"), stackTop(a), nil,
				RunOptions{Limit: 1 << 62, Timeout: 50 * time.Millisecond})
			e, ok := AsError(err)
			if !ok || e.Kind != KindTimeout {
				t.Fatalf("got %v, want a timeout error", err)
			}
		})
	}
}

func TestHostErrorStopsRun(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			m := newTestMachine(t, a)
			m.Bind("host_count", func(m *Machine) error {
				if m.Arg(0) == 3 {
					m.ReadWord(0x10) // a fault inside a host function
				}
				return nil
			}, false)
			err := m.Call(sym(t, m, "guest_loop"), sym(t, m, "done"), stackTop(a), []uint64{5}, RunOptions{})
			e, ok := AsError(err)
			if !ok || e.Kind != KindHost || !strings.Contains(e.Error(), "host_count") || !strings.Contains(e.Error(), "0x10") {
				t.Fatalf("got %v, want a host-function error naming host_count and the address", err)
			}
		})
	}
}

func TestBlockCounts(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			m := newTestMachine(t, a)
			m.Bind("host_count", func(m *Machine) error { return nil }, false)
			m.SetCounting(true)
			if err := m.Call(sym(t, m, "guest_loop"), sym(t, m, "done"), stackTop(a), []uint64{100}, RunOptions{}); err != nil {
				t.Fatal(err)
			}
			var stub uint64
			for _, b := range m.Blocks() {
				if b.Addr == m.Image.HostFuncs["host_count"] {
					stub = b.Count
				}
			}
			if stub != 100 {
				t.Errorf("host stub block ran %d times, want 100", stub)
			}
		})
	}
}
