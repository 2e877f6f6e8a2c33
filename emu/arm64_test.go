package emu

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"trampemu/asm"
	"trampemu/regs"
)

// arm64Prog is testdata/arm64.S built with GNU binutils alone
// (aarch64-linux-gnu-as and -ld), the host functions placed at stub
// addresses with --defsym: package asm does not build arm64 yet.
type arm64Prog struct {
	text []byte
	syms map[string]uint64
}

var arm64HostFuncs = []string{"host_add", "host_count"}

func buildARM64Prog(t testing.TB) *arm64Prog {
	t.Helper()
	a := regs.ARM64
	dir := t.TempDir()
	obj, exe := filepath.Join(dir, "t.o"), filepath.Join(dir, "t.elf")
	run := func(name string, args ...string) {
		t.Helper()
		out, err := exec.Command(name, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s\n(install %s: scripts/deps.sh)", name, strings.Join(args, " "), err, out, a.BinutilsPkg)
		}
	}
	run(a.Triple+"-as", "-o", obj, filepath.Join("testdata", "arm64.S"))
	ld := []string{"-o", exe, "-e", "done", fmt.Sprintf("-Ttext=%#x", a.Memory.Text.Base)}
	for i, h := range arm64HostFuncs {
		ld = append(ld, "--defsym", fmt.Sprintf("%s=%#x", h, asm.HostAddr(a, i)))
	}
	run(a.Triple+"-ld", append(ld, obj)...)
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Machine != elf.EM_AARCH64 {
		t.Fatalf("ELF machine %v", f.Machine)
	}
	p := &arm64Prog{syms: map[string]uint64{}}
	text := f.Section(".text")
	if text == nil || text.Addr != a.Memory.Text.Base {
		t.Fatalf("no .text at %#x", a.Memory.Text.Base)
	}
	if p.text, err = text.Data(); err != nil {
		t.Fatal(err)
	}
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range syms {
		p.syms[s.Name] = s.Value
	}
	return p
}

// newARM64Machine loads the program into a fresh arm64 machine with a
// return stub at every host-function address.
func newARM64Machine(t testing.TB, p *arm64Prog) *Machine {
	t.Helper()
	a := regs.ARM64
	m, err := New(a)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	if err := m.WriteMem(a.Memory.Text.Base, p.text); err != nil {
		t.Fatal(err)
	}
	for i := range arm64HostFuncs {
		if err := m.WriteMem(asm.HostAddr(a, i), a.ReturnStubCode); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.FlushCode(a.Memory.Text.Base, a.Memory.Stubs.End()); err != nil {
		t.Fatal(err)
	}
	return m
}

func (p *arm64Prog) sym(t testing.TB, name string) uint64 {
	t.Helper()
	v, ok := p.syms[name]
	if !ok {
		t.Fatalf("no symbol %s", name)
	}
	return v
}

// The default CPU runs kernel addresses with the MMU off, executes bti c,
// paciasp and autiasp as hints, and returns through the stub's ret.
func TestARM64HostCall(t *testing.T) {
	a := regs.ARM64
	p := buildARM64Prog(t)
	m := newARM64Machine(t, p)
	var got [2]uint64
	var lr uint64
	m.BindAddr(asm.HostAddr(a, 0), "host_add", func(m *Machine) error {
		got = [2]uint64{m.Arg(0), m.Arg(1)}
		lr = m.Reg(a.Link)
		m.SetReturn(m.Arg(0) + m.Arg(1))
		return nil
	}, true)
	sp := stackTop(a)
	m.SetReg(a.MustReg("x29"), 0x29)
	if err := m.Call(p.sym(t, "guest_add"), p.sym(t, "done"), sp, []uint64{40, 1}, RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if got != [2]uint64{40, 1} {
		t.Errorf("host saw arguments %v, want [40 1]", got)
	}
	if want := p.sym(t, "guest_add") + 0x14; lr != want {
		t.Errorf("x30 in the host function = %#x, want the bl's return address %#x", lr, want)
	}
	r := m.Regs()
	if r[a.Ret[0]] != 42 {
		t.Errorf("x0 = %d, want 42 (host result 41 + 1)", r[a.Ret[0]])
	}
	if r[a.SP] != sp || r[a.FP] != 0x29 {
		t.Errorf("sp %#x x29 %#x after the call, want %#x and 0x29 restored", r[a.SP], r[a.FP], sp)
	}
	if r[a.PC] != p.sym(t, "done") {
		t.Errorf("pc %#x, want done", r[a.PC])
	}
	if n := m.Executed(); n != 9+1 {
		t.Errorf("%d instructions executed, want 9 of guest_add and the stub's ret", n)
	}
}

func TestARM64TenThousandHostCalls(t *testing.T) {
	a := regs.ARM64
	p := buildARM64Prog(t)
	m := newARM64Machine(t, p)
	var sum, calls uint64
	m.BindAddr(asm.HostAddr(a, 1), "host_count", func(m *Machine) error {
		calls++
		sum += m.Arg(0)
		return nil
	}, true)
	m.SetCounting(true)
	const n = 10000
	if err := m.Call(p.sym(t, "guest_loop"), p.sym(t, "done"), stackTop(a), []uint64{n}, RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if calls != n || m.HostCalls("host_count") != n || sum != n*(n+1)/2 {
		t.Errorf("%d calls (machine: %d), arguments summed to %d; want %d calls, sum %d", calls, m.HostCalls("host_count"), sum, n, n*(n+1)/2)
	}
	var stub uint64
	for _, b := range m.Blocks() {
		if b.Addr == asm.HostAddr(a, 1) {
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
	p := buildARM64Prog(t)
	m := newARM64Machine(t, p)
	m.BindAddr(asm.HostAddr(a, 0), "host_add", func(m *Machine) error { m.SetReturn(7); return nil }, true)
	stub := asm.HostAddr(a, 0)
	var in regs.RegFile
	for i := range a.Regs {
		in[i] = 0xc000000000000000 | uint64(i)
	}
	in[a.SP] = stackTop(a)
	in[a.Flags] = 0x60000000 // Z and C
	ret := p.sym(t, "done")
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
// the arch, pc, the instruction word and the registers; none hangs.
func TestARM64FaultsAreErrors(t *testing.T) {
	a := regs.ARM64
	p := buildARM64Prog(t)
	cases := []struct {
		fn     string
		kind   Kind
		off    uint64 // pc - fn
		addr   uint64 // faulting address, 0: none
		detail string
		text   string // in the disassembly
	}{
		{"bad_read", KindFault, 4, 0x1000, "READ_UNMAPPED", ""},
		{"bad_write", KindFault, 4, 0x1000, "WRITE_UNMAPPED", ""},
		{"text_write", KindFault, 4, 1, "WRITE_PROT", ""}, // addr 1: the function's own address
		{"bad_fetch", KindFault, 0, 0x1000, "FETCH_UNMAPPED", ""},
		{"bad_insn", KindInvalid, 0, 0, "undefined instruction", ""},
		{"trap", KindTrap, 0, 0, "brk", "brk #0x800"},
		{"spin", KindLimit, 0, 0, "instruction limit", "b "},
	}
	for _, c := range cases {
		t.Run(c.fn, func(t *testing.T) {
			m := newARM64Machine(t, p)
			fn := p.sym(t, c.fn)
			start := time.Now()
			err := m.Call(fn, p.sym(t, "done"), stackTop(a), nil, RunOptions{Limit: 1_000_000, Timeout: 5 * time.Second})
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
			// Unicorn's arm64 leaves the pc of a memory fault at the block
			// start; without asm's memory facts for arm64 it stays there,
			// and the error says so.
			if c.off > 0 && strings.Contains(e.Note, "start of the translated block: the faulting instruction is at or after it") {
				wantPC = fn
			}
			if e.Kind != c.kind || e.Arch != "arm64" || e.PC != wantPC {
				t.Errorf("kind %q arch %s pc %#x, want %q arm64 %#x\n%v", e.Kind, e.Arch, e.PC, c.kind, wantPC, e)
			}
			if !strings.Contains(e.Detail, c.detail) {
				t.Errorf("detail %q, want it to name %q", e.Detail, c.detail)
			}
			wantAddr := c.addr
			if wantAddr == 1 {
				wantAddr = fn
			}
			if wantAddr != 0 && (!e.HasAddr || e.Addr != wantAddr) {
				t.Errorf("fault address %#x (known %v), want %#x", e.Addr, e.HasAddr, wantAddr)
			}
			msg := e.Error()
			want := []string{"arm64", string(c.kind), fmt.Sprintf("%#x", e.PC), "x30", "nzcv", "sp "}
			if c.fn != "bad_fetch" {
				word := binary.LittleEndian.Uint32(p.text[wantPC-a.Memory.Text.Base:])
				want = append(want, fmt.Sprintf("0x%08x", word), c.text)
			} else {
				want = append(want, "pc not in mapped memory")
			}
			for _, w := range want {
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

// testdata/arm64.S must keep assembling with plain GNU as (it has no
// prelude macros): a check of the build the tests above depend on.
func TestARM64TestProgram(t *testing.T) {
	p := buildARM64Prog(t)
	for _, n := range []string{"guest_add", "guest_loop", "guest_stores", "bad_read", "bad_write", "text_write",
		"bad_fetch", "bad_insn", "trap", "spin", "split_a", "split_b", "done", "host_add", "host_count"} {
		p.sym(t, n)
	}
	if b, err := os.ReadFile(filepath.Join("testdata", "arm64.S")); err != nil || strings.Contains(string(b), "SYM_") {
		t.Errorf("testdata/arm64.S: %v; it must not need the asm prelude", err)
	}
}

// memFactsDis is fixedWidthDis plus the memory facts of the two accesses
// of testdata/arm64.S's bad_read and bad_write (ldr/str x0, [x1]), enough
// to prove faultingInsn's walk before package asm decodes arm64.
type memFactsDis struct{ fixedWidthDis }

func (d memFactsDis) Decode(code []byte, pc uint64) (asm.Inst, error) {
	in, err := d.fixedWidthDis.Decode(code, pc)
	if err != nil {
		return in, err
	}
	in.MemKnown = true
	x1 := regs.ARM64.MustReg("x1")
	switch binary.LittleEndian.Uint32(code) {
	case 0xf9400020: // ldr x0, [x1]
		in.Mem = []asm.MemRef{{Base: x1, Index: -1, Scale: 1, Size: 8, Load: true}}
	case 0xf9000020: // str x0, [x1]
		in.Mem = []asm.MemRef{{Base: x1, Index: -1, Scale: 1, Size: 8, Store: true}}
	case 0xd65f03c0: // ret
		in.Flow = asm.FlowReturn
	}
	return in, nil
}

// With memory facts the pc of a memory fault moves from the block start to
// the faulting instruction, and only to an access of the fault's kind.
func TestARM64FaultingInsn(t *testing.T) {
	a := regs.ARM64
	p := buildARM64Prog(t)
	for _, c := range []struct {
		fn      string
		want    uint64 // offset of the faulting instruction
		flipped bool   // facts of the wrong kind: no instruction found
	}{
		{"bad_read", 4, false}, {"bad_write", 4, false}, {"bad_read", 0, true},
	} {
		m := newARM64Machine(t, p)
		m.dis = memFactsDis{fixedWidthDis{4}}
		fn := p.sym(t, c.fn)
		err := m.Call(fn, p.sym(t, "done"), stackTop(a), nil, RunOptions{})
		e, ok := AsError(err)
		if !ok || e.Kind != KindFault {
			t.Fatalf("%s: got %v, want a memory fault", c.fn, err)
		}
		if c.flipped {
			// The same fault judged as the other kind of access.
			e.PC, e.Note = fn, ""
			m.faultingInsn(e, c.fn == "bad_read")
			if e.PC != fn || !strings.Contains(e.Note, "no instruction of it accesses") {
				t.Errorf("%s with the access kind flipped: pc %#x note %q, want the block start and the note", c.fn, e.PC, e.Note)
			}
			continue
		}
		if e.PC != fn+c.want || e.Regs[a.PC] != e.PC || e.Note != "" {
			t.Errorf("%s: pc %#x (registers say %#x), note %q; want %#x and no note", c.fn, e.PC, e.Regs[a.PC], e.Note, fn+c.want)
		}
	}
}

// FuzzFixedWidthDis: the fallback arm64 decoder never panics, takes 4
// bytes per instruction and refuses shorter input.
func FuzzFixedWidthDis(f *testing.F) {
	for _, seed := range [][]byte{
		{0x5f, 0x24, 0x03, 0xd5}, {0x00, 0x00, 0x20, 0xd4}, {0, 0, 0, 0}, {0xc0, 0x03},
		{0xff, 0xff, 0xff, 0xff, 0x1f, 0x20, 0x03, 0xd5},
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, code []byte) {
		in, err := fixedWidthDis{4}.Decode(code, 0xffff800080000000)
		if len(code) < 4 {
			if err == nil {
				t.Fatalf("% x: decoded %d short bytes", code, len(code))
			}
			return
		}
		if err != nil || in.Len != 4 || in.Text == "" || in.MemKnown {
			t.Fatalf("% x: %+v, %v", code, in, err)
		}
	})
}
