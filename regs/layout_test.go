package regs_test

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"

	"trampemu/regs"
)

// slotRef is one row of a reference layout table.
type slotRef struct {
	name  string // display name
	field string // C field name
	asm   string // asm-offsets name, "" when the kernel has none
	off   int
	size  int
	reg   string // register the slot mirrors, "" for none
}

// The layouts of /work/shared/reference/x86_64.md ("struct pt_regs
// (x86-64), FRAME_SIZE = 168") and s390x.md ("struct pt_regs (s390x),
// __PT_SIZE = 192"), and struct fgraph_ret_regs (x86-64 {ax, dx, bp},
// s390x {gpr2, fp}), written out as literals.
var x86PtRegs = []slotRef{
	{"R15", "r15", "R15", 0, 8, "r15"},
	{"R14", "r14", "R14", 8, 8, "r14"},
	{"R13", "r13", "R13", 16, 8, "r13"},
	{"R12", "r12", "R12", 24, 8, "r12"},
	{"RBP", "bp", "RBP", 32, 8, "rbp"},
	{"RBX", "bx", "RBX", 40, 8, "rbx"},
	{"R11", "r11", "R11", 48, 8, "r11"},
	{"R10", "r10", "R10", 56, 8, "r10"},
	{"R9", "r9", "R9", 64, 8, "r9"},
	{"R8", "r8", "R8", 72, 8, "r8"},
	{"RAX", "ax", "RAX", 80, 8, "rax"},
	{"RCX", "cx", "RCX", 88, 8, "rcx"},
	{"RDX", "dx", "RDX", 96, 8, "rdx"},
	{"RSI", "si", "RSI", 104, 8, "rsi"},
	{"RDI", "di", "RDI", 112, 8, "rdi"},
	{"ORIG_RAX", "orig_ax", "ORIG_RAX", 120, 8, ""},
	{"RIP", "ip", "RIP", 128, 8, "rip"},
	{"CS", "cs", "CS", 136, 8, ""},
	{"EFLAGS", "flags", "EFLAGS", 144, 8, "rflags"},
	{"RSP", "sp", "RSP", 152, 8, "rsp"},
	{"SS", "ss", "SS", 160, 8, ""},
}

var s390PtRegs = func() []slotRef {
	out := []slotRef{
		{"args[0]", "args[0]", "__PT_ARGS", 0, 8, ""},
		{"psw.mask", "psw.mask", "__PT_PSW", 8, 8, "pswm"},
		{"psw.addr", "psw.addr", "", 16, 8, "pc"},
	}
	for n := 0; n < 16; n++ {
		g := fmt.Sprintf("gprs[%d]", n)
		out = append(out, slotRef{g, g, fmt.Sprintf("__PT_R%d", n), 24 + 8*n, 8, fmt.Sprintf("r%d", n)})
	}
	return append(out,
		slotRef{"orig_gpr2", "orig_gpr2", "__PT_ORIG_GPR2", 152, 8, ""},
		slotRef{"int_code", "int_code", "__PT_INT_CODE", 160, 4, ""},
		slotRef{"int_parm", "int_parm", "__PT_INT_PARM", 164, 4, ""},
		slotRef{"int_parm_long", "int_parm_long", "__PT_INT_PARM_LONG", 168, 8, ""},
		slotRef{"flags", "flags", "__PT_FLAGS", 176, 8, ""},
		slotRef{"last_break", "last_break", "__PT_LAST_BREAK", 184, 8, ""},
	)
}()

// arm64 (/work/shared/reference/arm64.md "Layouts"): struct ftrace_regs /
// __arch_ftrace_regs (112 bytes), struct pt_regs (336 bytes, v5.10..v6.1)
// and struct fgraph_ret_regs (80 bytes, v6.5..v6.13).
func arm64Xs(n int, asm string) []slotRef {
	var out []slotRef
	for i := 0; i < n; i++ {
		a := ""
		if i%2 == 0 && asm != "" {
			a = fmt.Sprintf("%s%d", asm, i)
		}
		out = append(out, slotRef{fmt.Sprintf("x%d", i), fmt.Sprintf("regs[%d]", i), a, 8 * i, 8, fmt.Sprintf("x%d", i)})
	}
	return out
}

var arm64Fregs = append(arm64Xs(9, "FREGS_X"),
	slotRef{"direct_tramp", "direct_tramp", "FREGS_DIRECT_TRAMP", 72, 8, ""},
	slotRef{"fp", "fp", "FREGS_FP", 80, 8, "x29"},
	slotRef{"lr", "lr", "FREGS_LR", 88, 8, "x30"},
	slotRef{"sp", "sp", "FREGS_SP", 96, 8, "sp"},
	slotRef{"pc", "pc", "FREGS_PC", 104, 8, "pc"},
)

var arm64PtRegs = append(arm64Xs(29, "S_X"),
	slotRef{"fp", "regs[29]", "S_FP", 232, 8, "x29"},
	slotRef{"lr", "regs[30]", "S_LR", 240, 8, "x30"},
	slotRef{"sp", "sp", "S_SP", 248, 8, "sp"},
	slotRef{"pc", "pc", "S_PC", 256, 8, "pc"},
	slotRef{"pstate", "pstate", "S_PSTATE", 264, 8, ""},
	slotRef{"orig_x0", "orig_x0", "S_ORIG_X0", 272, 8, ""},
	slotRef{"syscallno", "syscallno", "S_SYSCALLNO", 280, 4, ""},
	slotRef{"unused2", "unused2", "", 284, 4, ""},
	slotRef{"sdei_ttbr1", "sdei_ttbr1", "S_SDEI_TTBR1", 288, 8, ""},
	slotRef{"pmr_save", "pmr_save", "S_PMR_SAVE", 296, 8, ""},
	slotRef{"stackframe[0]", "stackframe[0]", "S_STACKFRAME", 304, 8, ""},
	slotRef{"stackframe[1]", "stackframe[1]", "", 312, 8, ""},
	slotRef{"lockdep_hardirqs", "lockdep_hardirqs", "", 320, 8, ""},
	slotRef{"exit_rcu", "exit_rcu", "", 328, 8, ""},
)

var arm64RetRegs = append(arm64Xs(8, "FGRET_REGS_X"),
	slotRef{"fp", "fp", "FGRET_REGS_FP", 64, 8, "x29"},
	slotRef{"__unused", "__unused", "", 72, 8, ""},
)

// riscv64 (/work/shared/reference/riscv64.md "Layouts", computed from the
// structs of arch/riscv/include/asm/ftrace.h and ptrace.h): struct
// __arch_ftrace_regs of v6.11-v6.15 (104 bytes) and of v6.16 (112 bytes,
// direct_tramp at 40), struct pt_regs (288 bytes) and struct
// fgraph_ret_regs (32 bytes, v6.5..v6.13).
func riscvArgs(base int) []slotRef {
	var out []slotRef
	for i := 0; i < 8; i++ {
		out = append(out, slotRef{fmt.Sprintf("a%d", i), fmt.Sprintf("args[%d]", i), fmt.Sprintf("FREGS_A%d", i), base + 8*i, 8, fmt.Sprintf("a%d", i)})
	}
	return out
}

var riscvFregsHead = []slotRef{
	{"epc", "epc", "FREGS_EPC", 0, 8, "pc"},
	{"ra", "ra", "FREGS_RA", 8, 8, "ra"},
	{"sp", "sp", "FREGS_SP", 16, 8, "sp"},
	{"s0", "s0", "FREGS_S0", 24, 8, "s0"},
	{"t1", "t1", "FREGS_T1", 32, 8, "t1"},
}

var riscvFregs = append(append([]slotRef{}, riscvFregsHead...), riscvArgs(40)...)

var riscvFregs616 = append(append(append([]slotRef{}, riscvFregsHead...),
	slotRef{"direct_tramp", "direct_tramp", "FREGS_DIRECT_TRAMP", 40, 8, ""}), riscvArgs(48)...)

// riscvFregs616Clang: v6.16 under CONFIG_CC_IS_CLANG, t2-t6 after a7
// (linux-riscv/linux@3818d86a651e arch/riscv/include/asm/ftrace.h).
var riscvFregs616Clang = append(slices.Clone(riscvFregs616),
	slotRef{"t2", "t2", "FREGS_T2", 112, 8, "t2"}, slotRef{"t3", "t3", "FREGS_T3", 120, 8, "t3"},
	slotRef{"t4", "t4", "FREGS_T4", 128, 8, "t4"}, slotRef{"t5", "t5", "FREGS_T5", 136, 8, "t5"},
	slotRef{"t6", "t6", "FREGS_T6", 144, 8, "t6"})

var riscvPtRegs = func() []slotRef {
	var out []slotRef
	for i, n := range []string{"epc", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1",
		"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11",
		"t3", "t4", "t5", "t6", "status", "badaddr", "cause", "orig_a0"} {
		reg := n
		switch n {
		case "epc":
			reg = "pc"
		case "status", "badaddr", "cause", "orig_a0":
			reg = ""
		}
		out = append(out, slotRef{n, n, "PT_" + strings.ToUpper(n), 8 * i, 8, reg})
	}
	return out
}()

func TestLayoutsMatchReference(t *testing.T) {
	cases := []struct {
		arch    *regs.Arch
		layout  func(*regs.Arch) *regs.Layout
		name    string
		size    int
		slots   []slotRef
		noAsmOK bool // fgraph_ret_regs has no asm-offsets names per slot
	}{
		{regs.X86_64, func(a *regs.Arch) *regs.Layout { return a.Frame }, "pt_regs", 168, x86PtRegs, false},
		{regs.S390X, func(a *regs.Arch) *regs.Layout { return a.Frame }, "pt_regs", 192, s390PtRegs, false},
		{regs.X86_64, func(a *regs.Arch) *regs.Layout { return a.RetRegs }, "fgraph_ret_regs", 24, []slotRef{
			{"RAX", "ax", "", 0, 8, "rax"},
			{"RDX", "dx", "", 8, 8, "rdx"},
			{"RBP", "bp", "", 16, 8, "rbp"},
		}, true},
		{regs.S390X, func(a *regs.Arch) *regs.Layout { return a.RetRegs }, "fgraph_ret_regs", 16, []slotRef{
			{"gprs[2]", "gpr2", "", 0, 8, "r2"},
			{"fp", "fp", "", 8, 8, ""},
		}, true},
		{regs.ARM64, func(a *regs.Arch) *regs.Layout { return a.Frame }, "ftrace_regs", 112, arm64Fregs, false},
		{regs.ARM64, func(a *regs.Arch) *regs.Layout { return a.PtRegs }, "pt_regs", 336, arm64PtRegs, false},
		{regs.ARM64, func(a *regs.Arch) *regs.Layout { return a.RetRegs }, "fgraph_ret_regs", 80, arm64RetRegs, true},
		{regs.RISCV64, func(a *regs.Arch) *regs.Layout { return a.Frame }, "ftrace_regs", 104, riscvFregs, false},
		{regs.RISCV64, func(a *regs.Arch) *regs.Layout { return a.FregsLayout(regs.RISCV64FregsV616, nil) }, "ftrace_regs", 112, riscvFregs616, false},
		{regs.RISCV64, func(a *regs.Arch) *regs.Layout {
			return a.FregsLayout(regs.RISCV64FregsV616, map[string]string{"CONFIG_CC_IS_CLANG": ""})
		}, "ftrace_regs", 152, riscvFregs616Clang, false},
		{regs.RISCV64, func(a *regs.Arch) *regs.Layout { return a.PtRegs }, "pt_regs", 288, riscvPtRegs, false},
		{regs.RISCV64, func(a *regs.Arch) *regs.Layout { return a.RetRegs }, "fgraph_ret_regs", 32, []slotRef{
			{"a1", "a1", "", 0, 8, "a1"},
			{"a0", "a0", "", 8, 8, "a0"},
			{"s0", "s0", "", 16, 8, "s0"},
			{"ra", "ra", "", 24, 8, "ra"},
		}, true},
	}
	for _, c := range cases {
		t.Run(c.arch.Name+"/"+c.name, func(t *testing.T) {
			l := c.layout(c.arch)
			if c.arch == regs.ARM64 && c.size%16 != 0 {
				t.Errorf("arm64 %s is %d bytes, not a multiple of 16 (sp must stay 16-aligned)", c.name, c.size)
			}
			if c.size%16 != 0 && c.arch == regs.ARM64 {
				t.Errorf("arm64 %s is %d bytes, not a multiple of 16 (sp must stay 16-aligned)", c.name, c.size)
			}
			if l == nil {
				t.Fatalf("no %s layout", c.name)
			}
			if l.Name != c.name || l.Size != c.size {
				t.Errorf("layout %s size %d, want %s size %d", l.Name, l.Size, c.name, c.size)
			}
			if len(l.Slots) != len(c.slots) {
				t.Errorf("%d slots, want %d", len(l.Slots), len(c.slots))
			}
			end := 0
			for i, want := range c.slots {
				if i >= len(l.Slots) {
					break
				}
				got := l.Slots[i]
				wantReg := -1
				if want.reg != "" {
					wantReg = c.arch.MustReg(want.reg)
				}
				if got.Name != want.name || got.Field != want.field || got.Asm != want.asm ||
					got.Off != want.off || got.Size != want.size || got.Reg != wantReg {
					t.Errorf("slot %d: %+v, want %+v (reg index %d)", i, got, want, wantReg)
				}
				// The structure is packed: each slot starts where the last ended.
				if got.Off != end {
					t.Errorf("slot %s at %d, previous slot ends at %d", got.Name, got.Off, end)
				}
				end = got.Off + got.Size
				for _, n := range []string{want.name, want.field} {
					if s, ok := l.Slot(n); !ok || s.Off != want.off {
						t.Errorf("Slot(%q) = %+v, %v; want offset %d", n, s, ok, want.off)
					}
				}
				if s, ok := l.At(want.off); !ok || s.Name != want.name {
					t.Errorf("At(%d) = %q, want %q", want.off, s.Name, want.name)
				}
				if s, ok := l.Covering(want.off + want.size - 1); !ok || s.Name != want.name {
					t.Errorf("Covering(%d) = %q, want %q", want.off+want.size-1, s.Name, want.name)
				}
			}
			if end != c.size {
				t.Errorf("slots end at %d, structure size %d", end, c.size)
			}
			if _, ok := l.Slot("no such slot"); ok {
				t.Errorf("Slot of an unknown name succeeded")
			}
			if _, ok := l.Covering(c.size); ok {
				t.Errorf("Covering(size) found a slot")
			}
		})
	}
}

// The accessor tables of the references ("Accessors (v6.14+)"): which slot,
// by name and offset, each ftrace_regs accessor reads.
func TestAccessorSlotsMatchReference(t *testing.T) {
	type slot struct {
		name string
		off  int
	}
	cases := []struct {
		arch                          *regs.Arch
		ip, sp, retVal, fp, direct    slot
		retAddr                       slot // name "" = the word at the saved sp
		args                          []slot
		fullRegs                      string
		fullMask                      uint64
		fullAlways                    bool // arch_ftrace_get_regs returns the regs untested
		regsOnly                      bool // get_argument is 0 past the register arguments
		stackArgOffset, mcountInsnLen int
		ptRegs                        bool // the arch's PtRegs layout instead of Frame
	}{
		{
			arch: regs.X86_64,
			ip:   slot{"RIP", 128}, sp: slot{"RSP", 152}, retVal: slot{"RAX", 80}, fp: slot{"RBP", 32},
			direct: slot{"ORIG_RAX", 120}, retAddr: slot{"", 0},
			args:     []slot{{"RDI", 112}, {"RSI", 104}, {"RDX", 96}, {"RCX", 88}, {"R8", 72}, {"R9", 64}},
			fullRegs: "CS", fullMask: 0, stackArgOffset: 8, mcountInsnLen: 5,
		},
		{
			arch: regs.S390X,
			ip:   slot{"psw.addr", 16}, sp: slot{"gprs[15]", 144}, retVal: slot{"gprs[2]", 40}, fp: slot{"gprs[15]", 144},
			direct: slot{"orig_gpr2", 152}, retAddr: slot{"gprs[14]", 136},
			args:     []slot{{"gprs[2]", 40}, {"gprs[3]", 48}, {"gprs[4]", 56}, {"gprs[5]", 64}, {"gprs[6]", 72}},
			fullRegs: "flags", fullMask: 1 << 4, stackArgOffset: 160, mcountInsnLen: 6,
		},
		{
			// v6.14 ftrace_regs: arch_ftrace_get_regs always NULL.
			arch: regs.ARM64,
			ip:   slot{"pc", 104}, sp: slot{"sp", 96}, retVal: slot{"x0", 0}, fp: slot{"fp", 80},
			direct: slot{"direct_tramp", 72}, retAddr: slot{"lr", 88},
			args:     []slot{{"x0", 0}, {"x1", 8}, {"x2", 16}, {"x3", 24}, {"x4", 32}, {"x5", 40}, {"x6", 48}, {"x7", 56}},
			regsOnly: true, stackArgOffset: 0, mcountInsnLen: 4,
		},
		{
			// WITH_REGS era pt_regs: the pt_regs accessors, no direct calls.
			arch: regs.ARM64, ptRegs: true,
			ip: slot{"pc", 256}, sp: slot{"sp", 248}, retVal: slot{"x0", 0}, fp: slot{"fp", 232},
			direct: slot{"", 0}, retAddr: slot{"lr", 240},
			args:       []slot{{"x0", 0}, {"x1", 8}, {"x2", 16}, {"x3", 24}, {"x4", 32}, {"x5", 40}, {"x6", 48}, {"x7", 56}},
			fullAlways: true, regsOnly: true, stackArgOffset: 0, mcountInsnLen: 4,
		},
	}
	for _, c := range cases {
		name := c.arch.Name
		l := c.arch.Frame
		if c.ptRegs {
			name, l = name+"/pt_regs", c.arch.PtRegs
		}
		t.Run(name, func(t *testing.T) {
			acc := l.Accessors
			check := func(what, got string, want slot) {
				t.Helper()
				if got != want.name {
					t.Errorf("%s reads %q, want %q", what, got, want.name)
					return
				}
				if want.name == "" {
					return
				}
				if s, ok := l.Slot(got); !ok || s.Off != want.off {
					t.Errorf("%s slot %q at %d (found %v), want offset %d", what, got, s.Off, ok, want.off)
				}
			}
			check("get/set_instruction_pointer", acc.IP, c.ip)
			check("get_stack_pointer", acc.SP, c.sp)
			check("get/set_return_value", acc.RetVal, c.retVal)
			check("get_frame_pointer", acc.FP, c.fp)
			check("arch_ftrace_set_direct_caller", acc.Direct, c.direct)
			check("get_return_address", acc.RetAddr, c.retAddr)
			if len(acc.Args) != len(c.args) {
				t.Errorf("%d register arguments, want %d", len(acc.Args), len(c.args))
			}
			for i := range min(len(acc.Args), len(c.args)) {
				check(fmt.Sprintf("get_argument(%d)", i), acc.Args[i], c.args[i])
			}
			// The register arguments of the ABI are the slots' registers.
			for i, n := range acc.Args {
				if s := l.MustSlot(n); i >= len(c.arch.Args) || s.Reg != c.arch.Args[i] {
					t.Errorf("argument %d: slot %s mirrors register %d, ABI argument register is %v", i, n, s.Reg, c.arch.Args)
				}
			}
			if acc.FullRegs.Slot != c.fullRegs || acc.FullRegs.Mask != c.fullMask || acc.FullRegs.Always != c.fullAlways {
				t.Errorf("arch_ftrace_get_regs tests %+v, want slot %s mask %#x always %v", acc.FullRegs, c.fullRegs, c.fullMask, c.fullAlways)
			}
			if acc.ArgsInRegsOnly != c.regsOnly {
				t.Errorf("ArgsInRegsOnly %v, want %v", acc.ArgsInRegsOnly, c.regsOnly)
			}
			if c.arch.StackArgOffset != c.stackArgOffset || c.arch.McountInsnSize != c.mcountInsnLen {
				t.Errorf("StackArgOffset %d, McountInsnSize %d; want %d, %d",
					c.arch.StackArgOffset, c.arch.McountInsnSize, c.stackArgOffset, c.mcountInsnLen)
			}
		})
	}
}

func TestArchByName(t *testing.T) {
	cases := []struct {
		name string
		want *regs.Arch
	}{
		{"x86_64", regs.X86_64}, {"x86-64", regs.X86_64}, {"amd64", regs.X86_64}, {"X86_64", regs.X86_64},
		{"s390x", regs.S390X}, {"s390", regs.S390X}, {"S390X", regs.S390X},
		{"arm64", regs.ARM64}, {"aarch64", regs.ARM64}, {"ARM64", regs.ARM64},
		{"riscv64", regs.RISCV64}, {"riscv", regs.RISCV64}, {"RV64", regs.RISCV64},
		{"arm", nil}, {"", nil}, {"s390xx", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := regs.ArchByName(c.name)
			if c.want != nil {
				if err != nil || a != c.want {
					t.Fatalf("ArchByName(%q) = %v, %v; want %s", c.name, a, err, c.want.Name)
				}
				return
			}
			if err == nil || a != nil {
				t.Fatalf("ArchByName(%q) = %v, nil error; want an error", c.name, a)
			}
			for _, want := range []string{fmt.Sprintf("%q", c.name), "s390x", "x86_64", "arm64"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not name %s", err, want)
				}
			}
		})
	}
	for _, a := range regs.Arches {
		if b, err := regs.ArchByName(a.Name); err != nil || b != a {
			t.Errorf("ArchByName(%q) = %v, %v", a.Name, b, err)
		}
	}
}

func TestArchFacts(t *testing.T) {
	cases := []struct {
		arch      *regs.Arch
		order     binary.ByteOrder
		sp, pc    string
		link      string // "" = calls push the return address
		args, ret []string
	}{
		{regs.X86_64, binary.LittleEndian, "rsp", "rip", "", []string{"rdi", "rsi", "rdx", "rcx", "r8", "r9"}, []string{"rax", "rdx"}},
		{regs.S390X, binary.BigEndian, "r15", "pc", "r14", []string{"r2", "r3", "r4", "r5", "r6"}, []string{"r2"}},
		{regs.ARM64, binary.LittleEndian, "sp", "pc", "x30", []string{"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7"}, []string{"x0", "x1"}},
		{regs.RISCV64, binary.LittleEndian, "sp", "pc", "ra", []string{"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7"}, []string{"a0", "a1"}},
	}
	for _, c := range cases {
		t.Run(c.arch.Name, func(t *testing.T) {
			a := c.arch
			if a.ByteOrder != c.order || a.WordSize != 8 || len(a.Regs) > regs.NumRegs {
				t.Errorf("byte order %v, word %d, %d registers", a.ByteOrder, a.WordSize, len(a.Regs))
			}
			if a.Regs[a.SP].Name != c.sp || a.Regs[a.PC].Name != c.pc {
				t.Errorf("sp %s pc %s, want %s %s", a.Regs[a.SP].Name, a.Regs[a.PC].Name, c.sp, c.pc)
			}
			if (c.link == "") != (a.Link < 0) || (a.Link >= 0 && a.Regs[a.Link].Name != c.link) {
				t.Errorf("link register index %d, want %q", a.Link, c.link)
			}
			names := func(ix []int) []string {
				var out []string
				for _, i := range ix {
					out = append(out, a.Regs[i].Name)
				}
				return out
			}
			if got := names(a.Args); fmt.Sprint(got) != fmt.Sprint(c.args) {
				t.Errorf("argument registers %v, want %v", got, c.args)
			}
			if got := names(a.Ret); fmt.Sprint(got) != fmt.Sprint(c.ret) {
				t.Errorf("return registers %v, want %v", got, c.ret)
			}
			for i := range a.Regs {
				if a.IsVolatile(i) && a.IsCalleeSaved(i) {
					t.Errorf("%s is both volatile and callee-saved", a.Regs[i].Name)
				}
			}
			if i, ok := a.Reg("%" + strings.ToUpper(c.sp)); !ok || i != a.SP {
				t.Errorf("Reg(%%%s) = %d, %v", strings.ToUpper(c.sp), i, ok)
			}
			var w [8]byte
			a.PutWord(w[:], 0x0102030405060708)
			if c.order.Uint64(w[:]) != 0x0102030405060708 || a.Word(w[:]) != 0x0102030405060708 {
				t.Errorf("PutWord/Word do not use %v: % x", c.order, w)
			}
		})
	}
}

// The inlined Word/PutWord/PutWords/WordByte must agree with ByteOrder on both
// arches.
func TestWordByteOrder(t *testing.T) {
	for _, a := range regs.Arches {
		v := uint64(0x0102030405060708)
		var want, got [8]byte
		a.ByteOrder.PutUint64(want[:], v)
		a.PutWord(got[:], v)
		if got != want || a.Word(want[:]) != v {
			t.Errorf("%s: PutWord %x / Word %#x, ByteOrder gives %x", a.Name, got, a.Word(want[:]), want)
		}
		for i := range want {
			if b := a.WordByte(v, i); b != want[i] {
				t.Errorf("%s: WordByte(%d) = %#x, want %#x", a.Name, i, b, want[i])
			}
		}
		// PutWords: each word in turn, nothing past them written
		words := []uint64{v, ^v, 0x1122334455667788}
		many := make([]byte, 8*len(words)+8)
		for i := range many {
			many[i] = 0xee
		}
		a.PutWords(many, words)
		for i, w := range words {
			a.ByteOrder.PutUint64(want[:], w)
			if [8]byte(many[8*i:8*i+8]) != want {
				t.Errorf("%s: PutWords word %d is % x, want % x", a.Name, i, many[8*i:8*i+8], want)
			}
		}
		for _, b := range many[8*len(words):] {
			if b != 0xee {
				t.Errorf("%s: PutWords wrote past its words: % x", a.Name, many[8*len(words):])
				break
			}
		}
	}
}
