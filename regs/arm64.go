package regs

import (
	"encoding/binary"
	"fmt"
)

// Kernel constants for arm64 used by the trampolines and the Go kernel side.
const (
	// ARM64InsnSize is AARCH64_INSN_SIZE (arch/arm64/include/asm/insn.h,
	// v5.10; asm/insn-def.h from v5.16): every instruction is 4 bytes, and
	// MCOUNT_INSN_SIZE is defined as it (arch/arm64/include/asm/ftrace.h).
	ARM64InsnSize = 4
	// ARM64PtRegsSize is sizeof(struct pt_regs) (arch/arm64/include/asm/ptrace.h,
	// v5.10..v6.1): S_FRAME_SIZE in v5.10's asm-offsets.c, PT_REGS_SIZE
	// from v5.11.
	ARM64PtRegsSize = 336
	// ARM64FregsSize is sizeof(struct ftrace_regs) (v6.2..v6.13) / struct
	// __arch_ftrace_regs (v6.14+), arch/arm64/include/asm/ftrace.h: 14
	// words, a multiple of 16 so sp stays 16-byte aligned.
	ARM64FregsSize = 112
	// ARM64FgraphRetRegsSize is sizeof(struct fgraph_ret_regs)
	// (arch/arm64/include/asm/ftrace.h, v6.5..v6.13): x0-x7, fp, __unused.
	ARM64FgraphRetRegsSize = 80
	// ARM64FtraceOpsFunc is offsetof(struct ftrace_ops, func), the first
	// member (include/linux/ftrace.h, every version): FTRACE_OPS_FUNC of
	// arch/arm64/kernel/asm-offsets.c (v6.3+, CALL_OPS).
	ARM64FtraceOpsFunc = 0
	// ARM64FtraceOpsDirectCall is offsetof(struct ftrace_ops, direct_call),
	// FTRACE_OPS_DIRECT_CALL of arch/arm64/kernel/asm-offsets.c (v6.4+):
	// computed from include/linux/ftrace.h of v6.4 (func, next, flags,
	// private, saved_func, local_hash {2 pointers, a 32-byte struct mutex
	// without lock debugging}, func_hash, old_hash, trampoline,
	// trampoline_size, list, ops_func, then direct_call) for the guest
	// struct ftrace_ops the Go kernel lays out; v6.11+ inserts subop_list
	// and managed before it (208). Not checked against a compiled kernel.
	ARM64FtraceOpsDirectCall = 184
	// ARM64PstateEL1h is PSR_MODE_EL1h (arch/arm64/include/uapi/asm/ptrace.h):
	// the mode bits of pstate for kernel code on SP_EL1; what
	// ftrace_partial_regs sets since fd2f74f8f3d3 (6.17-stable) so that
	// user_mode() is false.
	ARM64PstateEL1h = 0x5
)

// ARM64 is the arm64 (AArch64) guest. Register ids are Unicorn 2.x's
// UC_ARM64_REG_* (unicorn/arm64.h: X0..X28 are 199..227, X29 = 1, X30 = 2,
// NZCV = 3, SP = 4, PC = 260), checked against the C header by the emu
// tests.
var ARM64 = func() *Arch {
	regs := make([]Reg, 0, 34)
	for i := 0; i <= 28; i++ {
		regs = append(regs, Reg{fmt.Sprintf("x%d", i), 199 + i})
	}
	regs = append(regs,
		Reg{"x29", 1}, Reg{"x30", 2}, // UC_ARM64_REG_X29 / _X30 (= _FP / _LR)
		Reg{"sp", 4}, Reg{"pc", 260},
		// UC_ARM64_REG_NZCV: the condition flags alone. PSTATE (265) would
		// also hold the exception level and DAIF, and writing it does not
		// rebuild QEMU's cached hflags (Unicorn issue #2333).
		Reg{"nzcv", 3},
	)
	a := &Arch{
		Name:      "arm64",
		ByteOrder: binary.LittleEndian,
		WordSize:  8,
		Regs:      regs,
		// The assembler's other names for x29 and x30 (GNU as, AArch64).
		RegAliases: map[string]string{"fp": "x29", "lr": "x30"},
		// No stack arguments are read: ftrace_regs_get_argument and
		// regs_get_kernel_argument return 0 from the 9th argument on
		// (arch/arm64/include/asm/ftrace.h v6.14, asm/ptrace.h); the
		// AAPCS64 stack arguments start at sp itself.
		StackArgOffset: 0,
		// MCOUNT_INSN_SIZE = AARCH64_INSN_SIZE (arch/arm64/include/asm/ftrace.h):
		// the patched `bl` of the -fpatchable-function-entry=2 NOP pair.
		McountInsnSize: ARM64InsnSize,
		Triple:         "aarch64-linux-gnu",
		BinutilsPkg:    "binutils-aarch64-linux-gnu",
		UnicornArch:    2, // UC_ARCH_ARM64
		UnicornMode:    0, // UC_MODE_ARM (little-endian, AArch64 for UC_ARCH_ARM64)
		// ret (d65f03c0): returns through x30.
		ReturnStubCode: []byte{0xc0, 0x03, 0x5f, 0xd6},
		Aliases:        []string{"aarch64"},
		asmOffsets:     arm64AsmOffsets,
		Memory: MemoryMap{
			// Unicorn 2.1.1's default arm64 CPU runs at EL1 with the MMU
			// off and executes these kernel addresses as they are (no page
			// tables; reference/arm64.md); code may be read+exec only.
			Text:  Region{"text", 0xffff800080000000, 1 << 20, PermRead | PermExec},
			Stubs: Region{"stubs", 0xffff800080f00000, 64 << 10, PermRead | PermExec},
			Data:  Region{"data", 0xffff800082000000, 64 << 10, PermRead | PermWrite},
			Stack: Region{"stack", 0xffff800088000000, 256 << 10, PermRead | PermWrite},
			// The linear map (PAGE_OFFSET 0xffff000000000000 with 48-bit VA,
			// arch/arm64/include/asm/memory.h): top nibble 0xf, as fprobe's
			// header packing needs.
			Heap: Region{"heap", 0xffff000080000000, 1 << 20, PermRead | PermWrite},
		},
	}
	a.PC, a.Flags, a.SP, a.Link, a.FP = a.MustReg("pc"), a.MustReg("nzcv"), a.MustReg("sp"), a.MustReg("x30"), a.MustReg("x29")
	// AAPCS64 (ARM-software/abi-aa aapcs64.rst, "General-purpose
	// registers"): x0-x7 arguments and results (x0-x1 for a 128-bit
	// result), x8 indirect result, x9-x15 temporaries, x16/x17 IP0/IP1,
	// x18 the platform register (the kernel's shadow call stack pointer
	// with CONFIG_SHADOW_CALL_STACK: neither a trampoline nor C may change
	// it, so it is neither volatile nor free), x19-x28 callee-saved, x29
	// frame pointer, x30 link register; sp 16-byte aligned. No red zone.
	a.Args = indices(a, "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7")
	a.Ret = indices(a, "x0", "x1")
	a.CalleeSaved = indices(a, "x19", "x20", "x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28", "x29", "sp")
	a.Volatile = indices(a, "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8",
		"x9", "x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17", "x30", "nzcv")
	// The call site `mov x9, x30; bl ftrace_caller` (arch/arm64/kernel/ftrace.c,
	// -fpatchable-function-entry=2) enters the trampoline with x9 = the
	// traced function's lr and x30 = BL+4; x9-x17 carry nothing at a
	// function's entry (arch/arm64/kernel/entry-ftrace.S: "x9-x17 are
	// free"). x30 is scratch at the trampoline's entry and must leave as
	// the saved lr (the trampoline returns with `ret x9`): check verifies
	// that separately.
	a.EntryScratch = indices(a, "x9", "x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17", "x30")

	r := func(n string) int { return a.MustReg(n) }
	xs := func(n int, field string) []Slot {
		out := make([]Slot, n)
		for i := range out {
			out[i] = Slot{fmt.Sprintf("x%d", i), fmt.Sprintf(field, i), "", 8 * i, 8, i}
		}
		return out
	}
	args := []string{"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7"}

	// struct ftrace_regs (v6.2..v6.13) / struct __arch_ftrace_regs (v6.14+),
	// arch/arm64/include/asm/ftrace.h: regs[9] (x0-x8), direct_tramp
	// (__unused without DYNAMIC_FTRACE_WITH_DIRECT_CALLS), fp, lr, sp, pc.
	// The slots are what the traced function sees: lr is its x30 (the x9 of
	// the trampoline's entry), pc the address after the call site's bl.
	// Accessors of v6.14: instruction pointer = pc, argument n = regs[n]
	// (0 for n >= 8), stack/frame pointer = sp/fp, return address = lr,
	// return value = regs[0], arch_ftrace_set_direct_caller writes
	// direct_tramp, arch_ftrace_get_regs is always NULL (no pt_regs here).
	fslots := append(xs(9, "regs[%d]"),
		Slot{"direct_tramp", "direct_tramp", "FREGS_DIRECT_TRAMP", 72, 8, -1},
		Slot{"fp", "fp", "FREGS_FP", 80, 8, r("x29")},
		Slot{"lr", "lr", "FREGS_LR", 88, 8, r("x30")},
		Slot{"sp", "sp", "FREGS_SP", 96, 8, r("sp")},
		Slot{"pc", "pc", "FREGS_PC", 104, 8, r("pc")},
	)
	for i := 0; i <= 8; i += 2 {
		fslots[i].Asm = fmt.Sprintf("FREGS_X%d", i) // asm-offsets.c names the even ones
	}
	a.Frame = newLayout("ftrace_regs", ARM64FregsSize, fslots, Accessors{
		IP: "pc", Args: args, ArgsInRegsOnly: true, SP: "sp", RetVal: "x0", FP: "fp", RetAddr: "lr",
		Direct: "direct_tramp",
	})

	// struct pt_regs, arch/arm64/include/asm/ptrace.h (v5.10..v6.1; v6.15
	// keeps the offsets): regs[31], sp, pc, pstate, orig_x0, syscallno (s32),
	// unused2 (u32), orig_addr_limit (v5.10; sdei_ttbr1 from v5.11),
	// pmr_save, stackframe[2], lockdep_hardirqs, exit_rcu; 336 bytes. What
	// the WITH_REGS entry (v5.5..v6.1) hands to callbacks: ftrace_regs is
	// then the generic wrapper of pt_regs (include/linux/ftrace.h v5.11..v6.1:
	// arch_ftrace_get_regs = &fregs->regs) and the callbacks use the
	// pt_regs accessors (asm/ptrace.h: instruction_pointer = pc,
	// regs_get_kernel_argument n < 8 = regs[n], else 0, kernel_stack_pointer
	// = sp, frame_pointer = regs[29], procedure_link_pointer = regs[30],
	// regs_return_value = regs[0]).
	pslots := xs(29, "regs[%d]")
	pslots = append(pslots,
		Slot{"fp", "regs[29]", "S_FP", 232, 8, r("x29")},
		Slot{"lr", "regs[30]", "S_LR", 240, 8, r("x30")},
		Slot{"sp", "sp", "S_SP", 248, 8, r("sp")},
		Slot{"pc", "pc", "S_PC", 256, 8, r("pc")},
		// pstate also holds the mode and DAIF bits: not a mirror of nzcv.
		Slot{"pstate", "pstate", "S_PSTATE", 264, 8, -1},
		Slot{"orig_x0", "orig_x0", "S_ORIG_X0", 272, 8, -1},
		Slot{"syscallno", "syscallno", "S_SYSCALLNO", 280, 4, -1},
		Slot{"unused2", "unused2", "", 284, 4, -1},
		Slot{"sdei_ttbr1", "sdei_ttbr1", "S_SDEI_TTBR1", 288, 8, -1},
		Slot{"pmr_save", "pmr_save", "S_PMR_SAVE", 296, 8, -1},
		Slot{"stackframe[0]", "stackframe[0]", "S_STACKFRAME", 304, 8, -1},
		Slot{"stackframe[1]", "stackframe[1]", "", 312, 8, -1},
		Slot{"lockdep_hardirqs", "lockdep_hardirqs", "", 320, 8, -1},
		Slot{"exit_rcu", "exit_rcu", "", 328, 8, -1},
	)
	for i := 0; i <= 28; i += 2 {
		pslots[i].Asm = fmt.Sprintf("S_X%d", i) // asm-offsets.c names the even ones
	}
	a.PtRegs = newLayout("pt_regs", ARM64PtRegsSize, pslots, Accessors{
		IP: "pc", Args: args, ArgsInRegsOnly: true, SP: "sp", RetVal: "x0", FP: "fp", RetAddr: "lr",
		FullRegs: FullRegsTest{Always: true},
	})

	// struct fgraph_ret_regs, arch/arm64/include/asm/ftrace.h (v6.5..v6.13):
	// regs[8] (x0-x7), fp, __unused (the pad Mark Rutland asked for, so sp
	// stays 16-byte aligned); fgraph_ret_regs_return_value = regs[0],
	// fgraph_ret_regs_frame_pointer = fp.
	rslots := append(xs(8, "regs[%d]"),
		Slot{"fp", "fp", "FGRET_REGS_FP", 64, 8, r("x29")},
		Slot{"__unused", "__unused", "", 72, 8, -1},
	)
	for i := 0; i <= 6; i += 2 {
		rslots[i].Asm = fmt.Sprintf("FGRET_REGS_X%d", i)
	}
	a.RetRegs = newLayout("fgraph_ret_regs", ARM64FgraphRetRegsSize, rslots, Accessors{RetVal: "x0", FP: "fp"})
	return a
}()

// arm64AsmOffsets is the arm64 asm-offsets: what arch/arm64/kernel/asm-offsets.c
// generates for entry-ftrace.S in every era (a file of one era ignores the
// names of the others), plus AARCH64_INSN_SIZE.
func arm64AsmOffsets(a *Arch) []Define {
	var d defines
	const ao = "arch/arm64/kernel/asm-offsets.c"
	// pt_regs (WITH_REGS, v5.5..v6.1): S_X0, S_X2, ... S_X28, S_FP, S_LR,
	// S_SP, S_PC, S_PSTATE, S_ORIG_X0, S_SYSCALLNO, S_SDEI_TTBR1 (v5.11+),
	// S_PMR_SAVE, S_STACKFRAME.
	for _, s := range a.PtRegs.Slots {
		if s.Asm != "" {
			d.add(s.Asm, s.Off, ao)
		}
	}
	d.add("S_FRAME_SIZE", a.PtRegs.Size, ao+" (v5.10; PT_REGS_SIZE from v5.11)")
	d.add("PT_REGS_SIZE", a.PtRegs.Size, ao+" (v5.11+)")
	// ftrace_regs (WITH_ARGS, v6.2+): FREGS_X0, _X2, _X4, _X6, _X8,
	// FREGS_DIRECT_TRAMP (v6.4+), FREGS_FP, _LR, _SP, _PC, FREGS_SIZE.
	for _, s := range a.Frame.Slots {
		if s.Asm != "" {
			d.add(s.Asm, s.Off, ao+" (v6.2+)")
		}
	}
	d.add("FREGS_SIZE", a.Frame.Size, ao+" (v6.2+)")
	// fgraph_ret_regs (v6.5..v6.13): FGRET_REGS_X0, _X2, _X4, _X6, _FP, _SIZE.
	for _, s := range a.RetRegs.Slots {
		if s.Asm != "" {
			d.add(s.Asm, s.Off, ao+" (v6.5..v6.13)")
		}
	}
	d.add("FGRET_REGS_SIZE", a.RetRegs.Size, ao+" (v6.5..v6.13)")
	// struct ftrace_ops (CALL_OPS, v6.3+; DIRECT_CALLS v6.4+).
	d.add("FTRACE_OPS_FUNC", ARM64FtraceOpsFunc, ao+" (v6.3+)")
	d.add("FTRACE_OPS_DIRECT_CALL", ARM64FtraceOpsDirectCall, ao+" (v6.4+; offset computed from include/linux/ftrace.h v6.4)")
	d.add("AARCH64_INSN_SIZE", ARM64InsnSize, "arch/arm64/include/asm/insn.h")
	d.add("MCOUNT_INSN_SIZE", a.McountInsnSize, "arch/arm64/include/asm/ftrace.h")
	return d
}
