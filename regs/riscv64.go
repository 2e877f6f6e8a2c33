package regs

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// Kernel constants for riscv64 used by the trampolines and the Go kernel side.
const (
	// RISCV64SzReg is SZREG (arch/riscv/include/asm/asm.h, RV64): 8.
	RISCV64SzReg = 8
	// RISCV64McountInsnSize is MCOUNT_INSN_SIZE (arch/riscv/include/asm/ftrace.h,
	// v6.3+, torvalds/linux@0604aa87b098): "Let auipc+jalr be the basic
	// *mcount unit*, so we make it 8 bytes here."
	RISCV64McountInsnSize = 8
	// RISCV64PtRegsSize is sizeof(struct pt_regs) (arch/riscv/include/asm/ptrace.h,
	// torvalds/linux@1ac731c529cd): 36 words; PT_SIZE_ON_STACK is
	// ALIGN(sizeof(struct pt_regs), STACK_ALIGN) = 288 as well
	// (arch/riscv/kernel/asm-offsets.c).
	RISCV64PtRegsSize = 288
	// RISCV64FregsSize is sizeof(struct __arch_ftrace_regs) of v6.11-v6.15
	// (arch/riscv/include/asm/ftrace.h, jackYoung0915/anolis-cloud-kernel@12decd5f5a0f:
	// epc, ra, sp, s0, t1, args[8]): 13 words.
	RISCV64FregsSize = 104
	// RISCV64Fregs616Size is sizeof(struct __arch_ftrace_regs) of v6.16
	// (arch/riscv/include/asm/ftrace.h, linux-riscv/linux@3818d86a651e:
	// direct_tramp after t1 under DYNAMIC_FTRACE_WITH_DIRECT_CALLS; gcc,
	// no t2-t6): 14 words, FREGS_SIZE_ON_STACK 112.
	RISCV64Fregs616Size = 112
	// RISCV64Fregs616ClangSize is the same struct under CONFIG_CC_IS_CLANG
	// (t2-t6 after a7, f8693f6dffcd): 19 words, FREGS_SIZE_ON_STACK 160.
	RISCV64Fregs616ClangSize = 152
	// RISCV64FgraphRetRegsSize is sizeof(struct fgraph_ret_regs)
	// (arch/riscv/include/asm/ftrace.h, v6.5..v6.13: a1, a0, s0, ra).
	RISCV64FgraphRetRegsSize = 32
	// RISCV64FtraceOpsFunc is offsetof(struct ftrace_ops, func), the first
	// member (include/linux/ftrace.h): FTRACE_OPS_FUNC of
	// arch/riscv/kernel/asm-offsets.c (CALL_OPS, v6.16).
	RISCV64FtraceOpsFunc = 0
	// RISCV64FtraceOpsDirectCall is offsetof(struct ftrace_ops,
	// direct_call) for the guest struct ftrace_ops the Go kernel lays out,
	// the same generic structure as on arm64 (ARM64FtraceOpsDirectCall):
	// FTRACE_OPS_DIRECT_CALL of arch/riscv/kernel/asm-offsets.c (v6.16).
	// Not checked against a compiled kernel.
	RISCV64FtraceOpsDirectCall = ARM64FtraceOpsDirectCall
	// RISCV64ThreadSize is THREAD_SIZE (arch/riscv/include/asm/thread_info.h,
	// 64-bit without KASAN: THREAD_SIZE_ORDER 2, 16 KiB): the unwinder's
	// frame-pointer bound is ALIGN(sp, THREAD_SIZE).
	RISCV64ThreadSize = 16 << 10
)

// riscv64Regs is the tracked register file in RegFile order with the
// GPR number of each (x1..x31; x0 is the constant zero and not tracked):
// the argument registers first, so that a driver record's first words
// are the arguments, then ra, sp, gp, tp, the callee-saved s0-s11 and the
// temporaries t0-t6 (riscv-non-isa/riscv-elf-psabi-doc@023b4ed26ba8
// riscv-cc.adoc, "Integer Register Convention").
var riscv64Regs = []struct {
	name string
	x    int
}{
	{"a0", 10}, {"a1", 11}, {"a2", 12}, {"a3", 13}, {"a4", 14}, {"a5", 15}, {"a6", 16}, {"a7", 17},
	{"ra", 1}, {"sp", 2}, {"gp", 3}, {"tp", 4},
	{"s0", 8}, {"s1", 9}, {"s2", 18}, {"s3", 19}, {"s4", 20}, {"s5", 21}, {"s6", 22}, {"s7", 23},
	{"s8", 24}, {"s9", 25}, {"s10", 26}, {"s11", 27},
	{"t0", 5}, {"t1", 6}, {"t2", 7}, {"t3", 28}, {"t4", 29}, {"t5", 30}, {"t6", 31},
}

// RISCV64GPR returns the GPR number (1..31) of register index i of
// RISCV64.Regs, or -1 for pc.
func RISCV64GPR(i int) int {
	if i >= 0 && i < len(riscv64Regs) {
		return riscv64Regs[i].x
	}
	return -1
}

// RISCV64 is the riscv64 (RV64, lp64) guest. Register ids are Unicorn
// 2.x's UC_RISCV_REG_* (unicorn/riscv.h: X0 = 1, so xN = N + 1; PC = 190),
// checked against the C header by the emu tests. RISC-V has no flags
// register: Flags is -1.
var RISCV64 = func() *Arch {
	rs := make([]Reg, 0, len(riscv64Regs)+1)
	aliases := map[string]string{"fp": "s0"} // GNU as: fp is s0 (x8)
	for _, r := range riscv64Regs {
		rs = append(rs, Reg{r.name, 1 + r.x})
		aliases[fmt.Sprintf("x%d", r.x)] = r.name
	}
	rs = append(rs, Reg{"pc", 190})
	a := &Arch{
		Name:       "riscv64",
		ByteOrder:  binary.LittleEndian,
		WordSize:   8,
		Regs:       rs,
		RegAliases: aliases,
		// ftrace_regs_get_argument returns 0 from the 9th argument on
		// (arch/riscv/include/asm/ftrace.h v6.11: "if (n < 8) return
		// args[n]; return 0"); psABI stack arguments start at sp.
		StackArgOffset: 0,
		McountInsnSize: RISCV64McountInsnSize,
		Triple:         "riscv64-linux-gnu",
		BinutilsPkg:    "binutils-riscv64-linux-gnu",
		// arch/riscv/Makefile (torvalds/linux@06d074298583): the kernel
		// is built -march=rv64ima(fd)(c)... -mabi=lp64, and -mno-relax
		// unless RISCV_USE_LINKER_RELAXATION (DYNAMIC_FTRACE links with
		// --no-relax); no `c`: every instruction is 4 bytes, as the
		// ftrace call sites must be.
		AsFlags:     []string{"-march=rv64ima_zicsr_zifencei", "-mabi=lp64", "-mno-relax"},
		UnicornArch: 8,      // UC_ARCH_RISCV
		UnicornMode: 1 << 3, // UC_MODE_RISCV64
		// ret = jalr x0, 0(ra) (00008067).
		ReturnStubCode: []byte{0x67, 0x80, 0x00, 0x00},
		Aliases:        []string{"riscv", "rv64"},
		asmOffsets:     riscv64AsmOffsets,
		Memory: MemoryMap{
			// KERNEL_LINK_ADDR = ADDRESS_SPACE_END - SZ_2G + 1
			// (arch/riscv/include/asm/pgtable.h, 64-bit): the kernel image
			// at 0xffffffff80000000. Unicorn's riscv64 in S-mode with satp
			// bare runs these addresses as they are (emu/riscv64.go).
			Text:  Region{"text", 0xffffffff80000000, 1 << 20, PermRead | PermWrite | PermExec},
			Stubs: Region{"stubs", 0xffffffff80f00000, 64 << 10, PermRead | PermWrite | PermExec},
			Data:  Region{"data", 0xffffffff82000000, 64 << 10, PermRead | PermWrite},
			// Task stacks in the linear map of Sv39 (PAGE_OFFSET
			// 0xffffffd600000000, Documentation/arch/riscv/vm-layout.rst),
			// THREAD_SIZE aligned.
			Stack: Region{"stack", 0xffffffd688000000, 256 << 10, PermRead | PermWrite},
			// The linear map: top nibble 0xf, as fprobe's header packing
			// needs (FPROBE_HEADER_MSB_PATTERN 0xf << 60, the generic one).
			Heap: Region{"heap", 0xffffffd680000000, 1 << 20, PermRead | PermWrite},
		},
	}
	a.PC, a.Flags, a.SP, a.Link, a.FP = a.MustReg("pc"), -1, a.MustReg("sp"), a.MustReg("ra"), a.MustReg("s0")
	// psABI riscv-cc.adoc: a0-a7 arguments, a0-a1 results; ra, t0-t6 and
	// a0-a7 caller-saved; s0-s11 and sp callee-saved; gp and tp are
	// "unallocatable" (the kernel's global pointer and current task):
	// neither C nor a trampoline changes them, so they are kept like the
	// callee-saved ones and are never volatile.
	a.Args = indices(a, "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7")
	a.Ret = indices(a, "a0", "a1")
	a.CalleeSaved = indices(a, "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "sp", "gp", "tp")
	a.Volatile = indices(a, "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "ra",
		"t0", "t1", "t2", "t3", "t4", "t5", "t6")
	// The call site "auipc t0, hi; jalr t0, lo(t0)" (v6.3+,
	// -fpatchable-function-entry=4 with 2-byte NOPs / =2 without C,
	// arch/riscv/Makefile) enters the trampoline with t0 = the site + 8
	// and ra = the traced function's return address; the temporaries
	// carry nothing at a function's entry (the compiler's prologue has not
	// run). t0 must leave as the site + 8 (the trampoline returns with
	// "jr t0") and ra as the parent: check verifies them apart.
	a.EntryScratch = indices(a, "t0", "t1", "t2", "t3", "t4", "t5", "t6")

	r := func(n string) int { return a.MustReg(n) }
	args := []string{"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7"}
	argSlots := func(base int, asm string) []Slot {
		out := make([]Slot, 8)
		for i := range out {
			n := fmt.Sprintf("a%d", i)
			out[i] = Slot{n, fmt.Sprintf("args[%d]", i), fmt.Sprintf(asm, i), base + 8*i, 8, r(n)}
		}
		return out
	}

	// struct __arch_ftrace_regs, v6.11-v6.15 (arch/riscv/include/asm/ftrace.h,
	// jackYoung0915/anolis-cloud-kernel@12decd5f5a0f, the WITH_ARGS patch
	// 7caa9765465f; the struct was struct ftrace_regs before
	// arch_ftrace_regs()): epc, ra, sp, s0, t1, union {args[8]; a0..a7}.
	// epc is the traced function's pc, t0 at entry (the site + 8; the
	// function's address is epc - 8), ra its return address, sp its sp,
	// s0 its frame pointer (written only under HAVE_FUNCTION_GRAPH_FP_TEST,
	// i.e. CONFIG_FRAME_POINTER), t1 the direct trampoline the entry jumps
	// to when nonzero. Accessors (same header): instruction pointer = epc,
	// argument n = args[n] (0 for n >= 8), stack pointer = sp, return
	// value = a0, override_function_with_return: epc = ra,
	// arch_ftrace_set_direct_caller writes t1, arch_ftrace_get_regs is
	// NULL. ftrace_regs_get_frame_pointer and _return_address (s0, ra)
	// are the generic ones of v6.14's include/linux/ftrace_regs.h over
	// these names.
	fslots := append([]Slot{
		{"epc", "epc", "FREGS_EPC", 0, 8, r("pc")},
		{"ra", "ra", "FREGS_RA", 8, 8, r("ra")},
		{"sp", "sp", "FREGS_SP", 16, 8, r("sp")},
		{"s0", "s0", "FREGS_S0", 24, 8, r("s0")},
		{"t1", "t1", "FREGS_T1", 32, 8, r("t1")},
	}, argSlots(40, "FREGS_A%d")...)
	fregsAcc := Accessors{IP: "epc", Args: args, ArgsInRegsOnly: true, SP: "sp", RetVal: "a0", FP: "s0", RetAddr: "ra", Direct: "t1"}
	a.Frame = newLayout("ftrace_regs", RISCV64FregsSize, fslots, fregsAcc)

	// struct pt_regs (arch/riscv/include/asm/ptrace.h,
	// torvalds/linux@1ac731c529cd): epc, ra, sp, gp, tp, t0-t2, s0, s1,
	// a0-a7, s2-s11, t3-t6, status, badaddr, cause, orig_a0; 288 bytes.
	// What ftrace_partial_regs fills (v6.16) and what the WITH_REGS
	// entries of v6.8-v6.10 saved (SAVE_ABI_REGS, PT_*). Accessors
	// (asm/ptrace.h): instruction_pointer = epc, regs_get_kernel_argument
	// n < 8 = a0..a7 (else 0), kernel_stack_pointer = sp, frame_pointer =
	// s0, regs_return_value = a0.
	ptNames := []string{"epc", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1",
		"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7",
		"s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6",
		"status", "badaddr", "cause", "orig_a0"}
	pslots := make([]Slot, len(ptNames))
	for i, n := range ptNames {
		reg := -1
		switch n {
		case "epc":
			reg = r("pc")
		case "status", "badaddr", "cause", "orig_a0":
		default:
			reg = r(n)
		}
		pslots[i] = Slot{n, n, "PT_" + upper(n), 8 * i, 8, reg}
	}
	a.PtRegs = newLayout("pt_regs", RISCV64PtRegsSize, pslots, Accessors{
		IP: "epc", Args: args, ArgsInRegsOnly: true, SP: "sp", RetVal: "a0", FP: "s0", RetAddr: "ra",
	})

	// struct fgraph_ret_regs (arch/riscv/include/asm/ftrace.h v6.5..v6.13,
	// anolis-cloud-kernel@12decd5f5a0f; "riscv: ftrace: Enable
	// HAVE_FUNCTION_GRAPH_RETVAL", b97aec082b51): a1, a0, s0, ra;
	// fgraph_ret_regs_return_value = a0, _frame_pointer = s0. No asm
	// offsets: mcount.S stores at 0..3*SZREG by hand.
	a.RetRegs = newLayout("fgraph_ret_regs", RISCV64FgraphRetRegsSize, []Slot{
		{"a1", "a1", "", 0, 8, r("a1")},
		{"a0", "a0", "", 8, 8, r("a0")},
		{"s0", "s0", "", 16, 8, r("s0")},
		{"ra", "ra", "", 24, 8, r("ra")},
	}, Accessors{RetVal: "a0", FP: "s0"})

	// struct __arch_ftrace_regs of v6.16 with DYNAMIC_FTRACE_WITH_DIRECT_CALLS
	// (arch/riscv/include/asm/ftrace.h, linux-riscv/linux@3818d86a651e):
	// direct_tramp after t1 (no mcount-dyn.S of v6.16 stores it,
	// torvalds/linux@a7bee4e7f780), the arguments 8 bytes up; under
	// CONFIG_CC_IS_CLANG t2-t6 follow a7 in the same union ("riscv:
	// ftrace: support fastcc in Clang for WITH_ARGS", f8693f6dffcd: clang's
	// fastcc passes arguments in them, llvm/llvm-project#83111), 152
	// bytes, FREGS_SIZE_ON_STACK 160. The accessors are v6.11's.
	f616 := append([]Slot{
		{"epc", "epc", "FREGS_EPC", 0, 8, r("pc")},
		{"ra", "ra", "FREGS_RA", 8, 8, r("ra")},
		{"sp", "sp", "FREGS_SP", 16, 8, r("sp")},
		{"s0", "s0", "FREGS_S0", 24, 8, r("s0")},
		{"t1", "t1", "FREGS_T1", 32, 8, r("t1")},
		{"direct_tramp", "direct_tramp", "FREGS_DIRECT_TRAMP", 40, 8, -1},
	}, argSlots(48, "FREGS_A%d")...)
	clang := slices.Clone(f616)
	for i, n := range []string{"t2", "t3", "t4", "t5", "t6"} {
		clang = append(clang, Slot{n, n, "FREGS_" + upper(n), 112 + 8*i, 8, r(n)})
	}
	v616 := newLayout("ftrace_regs", RISCV64Fregs616Size, f616, fregsAcc)
	v616clang := newLayout("ftrace_regs", RISCV64Fregs616ClangSize, clang, fregsAcc)
	a.FregsForms = []FregsForm{
		{Era: RISCV64FregsV616, Layout: v616},
		{Era: RISCV64FregsV616, Define: "CONFIG_CC_IS_CLANG", Layout: v616clang},
	}
	riscv64FregsCite = map[*Layout]string{
		a.Frame:   "v6.11-v6.15, 7caa9765465f",
		v616:      "v6.16, linux-riscv/linux@3818d86a651e asm/ftrace.h",
		v616clang: "v6.16 with CONFIG_CC_IS_CLANG, f8693f6dffcd",
	}
	return a
}()

// RISCV64FregsV616 is the era of riscv64's v6.16 struct __arch_ftrace_regs
// (Arch.FregsForms): what the v6.16+ kernel model and the v6.16 variants
// select; RISCV64.Frame is the v6.11-v6.15 one.
const RISCV64FregsV616 = "v6.16"

// riscv64FregsCite says where each form's FREGS_* come from.
var riscv64FregsCite map[*Layout]string

// RISCV64FregsOnStack is FREGS_SIZE_ON_STACK of a form of struct
// __arch_ftrace_regs: ALIGN(sizeof(struct __arch_ftrace_regs), STACK_ALIGN)
// (arch/riscv/kernel/asm-offsets.c of the WITH_ARGS patch, 7caa9765465f),
// so sp stays 16-byte aligned: 112 for v6.11-v6.15 and v6.16, 160 for
// v6.16 under CONFIG_CC_IS_CLANG.
func RISCV64FregsOnStack(l *Layout) int { return (l.Size + 15) &^ 15 }

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// riscv64AsmOffsets is the riscv64 asm-offsets: what arch/riscv/kernel/asm-offsets.c
// generates for mcount-dyn.S and mcount.S (PT_* of every era,
// PT_SIZE_ON_STACK, FREGS_* of a.Frame and FREGS_SIZE_ON_STACK,
// FTRACE_OPS_*), plus SZREG and the ftrace.h sizes. A file uses the
// names of its era; the v6.16 offsets (FREGS_A0 at 48) are those of a
// build whose kernel model selects the v6.16 form (AsmOffsetsHeaderFor).
func riscv64AsmOffsets(a *Arch) []Define {
	var d defines
	const ao = "arch/riscv/kernel/asm-offsets.c"
	for _, s := range a.PtRegs.Slots {
		d.add(s.Asm, s.Off, ao)
	}
	d.add("PT_SIZE", a.PtRegs.Size, ao)
	d.add("PT_SIZE_ON_STACK", RISCV64PtRegsSize, ao+" (ALIGN(sizeof(struct pt_regs), STACK_ALIGN))")
	cite := riscv64FregsCite[a.Frame]
	for _, s := range a.Frame.Slots {
		if s.Asm != "" {
			d.add(s.Asm, s.Off, ao+" ("+cite+")")
		}
	}
	d.add("FREGS_SIZE_ON_STACK", RISCV64FregsOnStack(a.Frame), ao+" (ALIGN(sizeof(struct __arch_ftrace_regs), STACK_ALIGN), "+cite+")")
	d.add("FTRACE_OPS_FUNC", RISCV64FtraceOpsFunc, ao+" (v6.16, CALL_OPS)")
	d.add("FTRACE_OPS_DIRECT_CALL", RISCV64FtraceOpsDirectCall, ao+" (v6.16; offset computed from include/linux/ftrace.h)")
	d.add("MCOUNT_INSN_SIZE", a.McountInsnSize, "arch/riscv/include/asm/ftrace.h")
	d.add("MCOUNT_JALR_SIZE", 4, "arch/riscv/include/asm/ftrace.h (v6.16)")
	return d
}
