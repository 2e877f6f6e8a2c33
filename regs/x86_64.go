package regs

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// Kernel constants for x86-64 used by the trampolines and the Go kernel side.
const (
	// X86KernelCS and X86KernelDS are __KERNEL_CS / __KERNEL_DS
	// (arch/x86/include/asm/segment.h: GDT_ENTRY_KERNEL_CS 2, _DS 3, *8).
	X86KernelCS = 0x10
	X86KernelDS = 0x18
	// X86FrameSize is FRAME_SIZE = sizeof(struct pt_regs)
	// (arch/x86/include/uapi/asm/ptrace-abi.h).
	X86FrameSize = 168
	// X86McountFrameSize is MCOUNT_FRAME_SIZE with CONFIG_FRAME_POINTER:
	// 8 + 16*2 (arch/x86/kernel/ftrace_64.S); 0 without frame pointers.
	X86McountFrameSize = 8 + 16*2
)

// X86_64 is the x86-64 guest. Register ids are Unicorn 2.x's UC_X86_REG_*
// (unicorn/x86.h), checked against the C header by the emu tests.
var X86_64 = func() *Arch {
	a := &Arch{
		Name:      "x86_64",
		ByteOrder: binary.LittleEndian,
		WordSize:  8,
		Regs: []Reg{
			{"rax", 35}, {"rbx", 37}, {"rcx", 38}, {"rdx", 40},
			{"rsi", 43}, {"rdi", 39}, {"rbp", 36}, {"rsp", 44},
			{"r8", 106}, {"r9", 107}, {"r10", 108}, {"r11", 109},
			{"r12", 110}, {"r13", 111}, {"r14", 112}, {"r15", 113},
			{"rip", 41}, {"rflags", 25}, // UC_X86_REG_EFLAGS: also present in Unicorn 2.0
		},
		StackArgOffset: 8,
		// arch/x86/include/asm/ftrace.h: MCOUNT_INSN_SIZE 5 (call __fentry__).
		McountInsnSize: 5,
		Triple:         "x86_64-linux-gnu",
		BinutilsPkg:    "binutils-x86-64-linux-gnu",
		UnicornArch:    4, // UC_ARCH_X86
		UnicornMode:    8, // UC_MODE_64
		ReturnStubCode: []byte{0xc3},
		Aliases:        []string{"x86-64", "amd64", "x86"},
		asmOffsets:     x86AsmOffsets,
		asmOffsetsTail: x86AsmOffsetsTail,
		Memory: MemoryMap{
			Text:  Region{"text", 0xffffffff81000000, 1 << 20, PermRead | PermExec},
			Stubs: Region{"stubs", 0xffffffff81f00000, 64 << 10, PermRead | PermExec},
			Data:  Region{"data", 0xffffffff82000000, 64 << 10, PermRead | PermWrite},
			Stack: Region{"stack", 0xffffc90000000000, 256 << 10, PermRead | PermWrite},
			Heap:  Region{"heap", 0xffff888100000000, 1 << 20, PermRead | PermWrite},
		},
	}
	a.PC, a.Flags, a.SP, a.Link, a.FP = a.MustReg("rip"), a.MustReg("rflags"), a.MustReg("rsp"), -1, a.MustReg("rbp")
	// System V AMD64 ABI, as the kernel uses it (no red zone: -mno-red-zone).
	a.Args = indices(a, "rdi", "rsi", "rdx", "rcx", "r8", "r9")
	a.Ret = indices(a, "rax", "rdx")
	a.CalleeSaved = indices(a, "rbx", "rbp", "r12", "r13", "r14", "r15", "rsp")
	a.Volatile = indices(a, "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "rflags")

	r := func(n string) int { return a.MustReg(n) }
	// Accessors: arch/x86/include/asm/ftrace.h and include/linux/ftrace_regs.h
	// (v6.14): get_argument via regs_get_kernel_argument (di si dx cx r8 r9),
	// frame pointer = bp, return address = *(unsigned long *)sp,
	// arch_ftrace_get_regs returns NULL when cs == 0 (partial regs).
	acc := Accessors{
		IP: "RIP", Args: []string{"RDI", "RSI", "RDX", "RCX", "R8", "R9"},
		SP: "RSP", RetVal: "RAX", FP: "RBP", RetAddr: "", Direct: "ORIG_RAX",
		FullRegs: FullRegsTest{Slot: "CS"},
	}
	// struct pt_regs, arch/x86/include/asm/ptrace.h (x86-64, v5.10..v6.19);
	// asm names from arch/x86/include/uapi/asm/ptrace-abi.h.
	a.Frame = newLayout("pt_regs", X86FrameSize, []Slot{
		{"R15", "r15", "R15", 0, 8, r("r15")},
		{"R14", "r14", "R14", 8, 8, r("r14")},
		{"R13", "r13", "R13", 16, 8, r("r13")},
		{"R12", "r12", "R12", 24, 8, r("r12")},
		{"RBP", "bp", "RBP", 32, 8, r("rbp")},
		{"RBX", "bx", "RBX", 40, 8, r("rbx")},
		{"R11", "r11", "R11", 48, 8, r("r11")},
		{"R10", "r10", "R10", 56, 8, r("r10")},
		{"R9", "r9", "R9", 64, 8, r("r9")},
		{"R8", "r8", "R8", 72, 8, r("r8")},
		{"RAX", "ax", "RAX", 80, 8, r("rax")},
		{"RCX", "cx", "RCX", 88, 8, r("rcx")},
		{"RDX", "dx", "RDX", 96, 8, r("rdx")},
		{"RSI", "si", "RSI", 104, 8, r("rsi")},
		{"RDI", "di", "RDI", 112, 8, r("rdi")},
		{"ORIG_RAX", "orig_ax", "ORIG_RAX", 120, 8, -1},
		{"RIP", "ip", "RIP", 128, 8, r("rip")},
		{"CS", "cs", "CS", 136, 8, -1},
		{"EFLAGS", "flags", "EFLAGS", 144, 8, r("rflags")},
		{"RSP", "sp", "RSP", 152, 8, r("rsp")},
		{"SS", "ss", "SS", 160, 8, -1},
	}, acc)
	// struct fgraph_ret_regs {ax, dx, bp}, arch/x86/include/asm/ftrace.h
	// (v6.5..v6.13): fgraph_ret_regs_return_value = ax, _frame_pointer = bp.
	a.RetRegs = newLayout("fgraph_ret_regs", 24, []Slot{
		{"RAX", "ax", "", 0, 8, r("rax")},
		{"RDX", "dx", "", 8, 8, r("rdx")},
		{"RBP", "bp", "", 16, 8, r("rbp")},
	}, Accessors{RetVal: "RAX", FP: "RBP"})
	return a
}()

// x86AsmOffsets is the x86-64 asm-offsets: pt_regs offsets and the few
// kernel constants ftrace_64.S uses.
func x86AsmOffsets(a *Arch) []Define {
	var d defines
	const ptrace = "arch/x86/include/uapi/asm/ptrace-abi.h"
	for _, s := range a.Frame.Slots {
		d.add(s.Asm, s.Off, ptrace)
	}
	d.add("FRAME_SIZE", a.Frame.Size, ptrace)
	d.add("MCOUNT_INSN_SIZE", a.McountInsnSize, "arch/x86/include/asm/ftrace.h")
	d.add("__KERNEL_CS", X86KernelCS, "arch/x86/include/asm/segment.h")
	d.add("__KERNEL_DS", X86KernelDS, "arch/x86/include/asm/segment.h")
	return d
}

// x86AsmOffsetsTail: arch/x86/kernel/ftrace_64.S: two fake frames (8 + 16*2
// bytes) are pushed before pt_regs with CONFIG_FRAME_POINTER.
func x86AsmOffsetsTail(*Arch) string {
	var b strings.Builder
	b.WriteString("#ifdef CONFIG_FRAME_POINTER\n")
	fmt.Fprintf(&b, "#define MCOUNT_FRAME_SIZE %d\n", X86McountFrameSize)
	b.WriteString("#else\n#define MCOUNT_FRAME_SIZE 0\n#endif\n")
	b.WriteString("#define MCOUNT_REG_SIZE (FRAME_SIZE + MCOUNT_FRAME_SIZE)\n")
	return b.String()
}
