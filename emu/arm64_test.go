package emu

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"trampemu/asm"
	"trampemu/regs"
)

// The default CPU runs kernel addresses with the MMU off, executes bti c,
// paciasp and autiasp as hints, and returns through the stub's ret.
func TestARM64HostCall(t *testing.T) {
	a := regs.ARM64
	m := newTestMachine(t, a)
	var got [2]uint64
	var lr uint64
	m.Bind("host_add", func(m *Machine) error {
		got = [2]uint64{m.Arg(0), m.Arg(1)}
		lr = m.Reg(a.Link)
		m.SetReturn(m.Arg(0) + m.Arg(1))
		return nil
	}, true)
	sp := stackTop(a)
	m.SetReg(a.MustReg("x29"), 0x29)
	if err := m.Call(sym(t, m, "guest_add"), sym(t, m, "done"), sp, []uint64{40, 1}, RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if got != [2]uint64{40, 1} {
		t.Errorf("host saw arguments %v, want [40 1]", got)
	}
	if want := sym(t, m, "guest_add") + 0x14; lr != want {
		t.Errorf("x30 in the host function = %#x, want the bl's return address %#x", lr, want)
	}
	r := m.Regs()
	if r[a.Ret[0]] != 42 {
		t.Errorf("x0 = %d, want 42 (host result 41 + 1)", r[a.Ret[0]])
	}
	if r[a.SP] != sp || r[a.FP] != 0x29 {
		t.Errorf("sp %#x x29 %#x after the call, want %#x and 0x29 restored", r[a.SP], r[a.FP], sp)
	}
	if r[a.PC] != sym(t, m, "done") {
		t.Errorf("pc %#x, want done", r[a.PC])
	}
	if n := m.Executed(); n != 9+1 {
		t.Errorf("%d instructions executed, want 9 of guest_add and the stub's ret", n)
	}
}

func TestARM64TenThousandHostCalls(t *testing.T) {
	a := regs.ARM64
	m := newTestMachine(t, a)
	var sum, calls uint64
	m.Bind("host_count", func(m *Machine) error {
		calls++
		sum += m.Arg(0)
		return nil
	}, true)
	m.SetCounting(true)
	const n = 10000
	if err := m.Call(sym(t, m, "guest_loop"), sym(t, m, "done"), stackTop(a), []uint64{n}, RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if calls != n || m.HostCalls("host_count") != n || sum != n*(n+1)/2 {
		t.Errorf("%d calls (machine: %d), arguments summed to %d; want %d calls, sum %d", calls, m.HostCalls("host_count"), sum, n, n*(n+1)/2)
	}
	var stub uint64
	for _, b := range m.Blocks() {
		if b.Addr == m.Image.HostFuncs["host_count"] {
			stub = b.Count
			if b.Insns != 1 {
				t.Errorf("stub block of %d bytes counts %d instructions, want 1", b.Size, b.Insns)
			}
		}
	}
	if stub != n {
		t.Errorf("host stub block ran %d times, want %d", stub, n)
	}
	// 4, then 4 per iteration, 3, and the stub's ret per call.
	if want := uint64(4 + 4*n + 3 + n); m.Executed() != want {
		t.Errorf("%d instructions executed, want %d", m.Executed(), want)
	}
}

// A clobbering host function leaves the pattern in x0-x17 (x0 is the
// result), flips NZCV and keeps x18 (the shadow call stack pointer),
// x19-x29, sp and x30, the stub's return address.
func TestARM64Clobber(t *testing.T) {
	a := regs.ARM64
	m := newTestMachine(t, a)
	m.Bind("host_add", func(m *Machine) error { m.SetReturn(7); return nil }, true)
	stub := m.Image.HostFuncs["host_add"]
	var in regs.RegFile
	for i := range a.Regs {
		in[i] = 0xc000000000000000 | uint64(i)
	}
	in[a.SP] = stackTop(a)
	in[a.Flags] = 0x60000000 // Z and C
	ret := sym(t, m, "done")
	in[a.Link] = ret
	m.SetRegs(&in)
	if err := m.Run(stub, ret, RunOptions{}); err != nil {
		t.Fatal(err)
	}
	out := m.Regs()
	for i, r := range a.Regs {
		want := in[i]
		switch {
		case i == a.Ret[0]:
			want = 7
		case i == a.PC:
			want = ret
		case i == a.Flags:
			want = 0x90000000 // N and V
		case a.IsVolatile(i) && i != a.Link:
			want = ClobberValue(i)
		}
		if out[i] != want {
			t.Errorf("%s = %#x after the host call, want %#x", r.Name, out[i], want)
		}
	}
	for i := len(a.Regs); i < regs.NumRegs; i++ {
		if out[i] != 0 {
			t.Errorf("register file entry %d past arm64's %d registers = %#x", i, len(a.Regs), out[i])
		}
	}
}

// Faults, an undefined instruction, brk and a runaway loop are errors with
// the arch, the faulting instruction's pc (Unicorn's arm64 reports the
// translated block's start; Run moves it), its disassembly, the faulting
// address and the registers; none hangs.
func TestARM64FaultsAreErrors(t *testing.T) {
	a := regs.ARM64
	cases := []struct {
		fn     string
		kind   Kind
		off    uint64 // pc - fn
		addr   uint64 // faulting address, 0: none, 1: the function itself
		detail string
		insn   string // in the disassembly
	}{
		{"bad_read", KindFault, 4, 0x1000, "READ_UNMAPPED", "ldr x0, [x1]"},
		{"bad_write", KindFault, 4, 0x1000, "WRITE_UNMAPPED", "str x0, [x1]"},
		{"text_write", KindFault, 4, 1, "WRITE_PROT", "str x0, [x1]"},
		{"bad_fetch", KindFault, 0, 0x1000, "FETCH_UNMAPPED", "pc not in mapped memory"},
		{"bad_insn", KindInvalid, 0, 0, "undefined instruction", "udf"},
		{"trap", KindTrap, 0, 0, "brk", "brk #0x800"},
		{"spin", KindLimit, 0, 0, "instruction limit", "b "},
	}
	for _, c := range cases {
		t.Run(c.fn, func(t *testing.T) {
			m := newTestMachine(t, a)
			fn := sym(t, m, c.fn)
			start := time.Now()
			err := m.Call(fn, sym(t, m, "done"), stackTop(a), nil, RunOptions{Limit: 1_000_000, Timeout: 5 * time.Second})
			if d := time.Since(start); d > time.Second {
				t.Errorf("took %v, want under a second", d)
			}
			e, ok := AsError(err)
			if !ok {
				t.Fatalf("got %v, want an *emu.Error", err)
			}
			wantPC := fn + c.off
			if c.fn == "bad_fetch" {
				wantPC = 0x1000
			}
			if e.Kind != c.kind || e.Arch != "arm64" || e.PC != wantPC || e.Regs[a.PC] != wantPC || e.Note != "" {
				t.Errorf("kind %q arch %s pc %#x (registers %#x) note %q, want %q arm64 %#x\n%v",
					e.Kind, e.Arch, e.PC, e.Regs[a.PC], e.Note, c.kind, wantPC, e)
			}
			if !strings.Contains(e.Detail, c.detail) || !strings.Contains(e.Insn, c.insn) {
				t.Errorf("detail %q insn %q, want them to name %q and %q", e.Detail, e.Insn, c.detail, c.insn)
			}
			wantAddr := c.addr
			if wantAddr == 1 {
				wantAddr = fn
			}
			if wantAddr != 0 && (!e.HasAddr || e.Addr != wantAddr) {
				t.Errorf("fault address %#x (known %v), want %#x", e.Addr, e.HasAddr, wantAddr)
			}
			msg := e.Error()
			for _, w := range []string{"arm64", string(c.kind), fmt.Sprintf("%#x", e.PC), c.insn, "x30", "nzcv", "sp "} {
				if !strings.Contains(msg, w) {
					t.Errorf("message lacks %q:\n%s", w, msg)
				}
			}
			if e.Regs[a.SP] != stackTop(a) {
				t.Errorf("sp in the error %#x, want %#x", e.Regs[a.SP], stackTop(a))
			}
		})
	}
}

// noMemFacts hides the memory facts of a disassembler: faultingInsn can
// then not tell the faulting instruction.
type noMemFacts struct{ d asm.Disassembler }

func (n noMemFacts) Decode(code []byte, pc uint64) (asm.Inst, error) {
	in, err := n.d.Decode(code, pc)
	in.MemKnown, in.Mem = false, nil
	return in, err
}

// faultingInsn keeps the block start, and says so, when it cannot find
// the access: without memory facts, or with none of the fault's kind.
func TestARM64FaultingInsnUnknown(t *testing.T) {
	a := regs.ARM64
	for _, c := range []struct {
		fn    string
		facts bool // the disassembler's facts, the access kind flipped
		note  string
	}{
		{"bad_read", false, "the faulting instruction is at or after it"},
		{"bad_read", true, "no instruction of it accesses"},
		{"bad_write", true, "no instruction of it accesses"},
	} {
		m := newTestMachine(t, a)
		fn := sym(t, m, c.fn)
		if !c.facts {
			m.dis = noMemFacts{m.dis}
		}
		err := m.Call(fn, sym(t, m, "done"), stackTop(a), nil, RunOptions{})
		e, ok := AsError(err)
		if !ok || e.Kind != KindFault {
			t.Fatalf("%s: got %v, want a memory fault", c.fn, err)
		}
		if c.facts {
			// The same fault judged as the other kind of access.
			e.PC, e.Note = fn, ""
			m.faultingInsn(e, c.fn == "bad_read")
		}
		if e.PC != fn || !strings.Contains(e.Note, c.note) || !strings.Contains(e.Error(), c.note) {
			t.Errorf("%s (facts %v): pc %#x note %q, want the block start %#x and %q", c.fn, c.facts, e.PC, e.Note, fn, c.note)
		}
	}
}
