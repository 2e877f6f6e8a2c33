package regs

import (
	"encoding/binary"
	"fmt"
)

// Kernel constants for s390x used by the trampolines and the Go kernel side.
const (
	// S390StackFrameOverhead is STACK_FRAME_OVERHEAD (arch/s390/include/asm/ptrace.h):
	// the 160-byte area every caller provides above r15.
	S390StackFrameOverhead = 160
	// S390SFBackchain and S390SFGprs are __SF_BACKCHAIN / __SF_GPRS of the
	// packed struct stack_frame (arch/s390/include/asm/stacktrace.h).
	S390SFBackchain = 152
	S390SFGprs      = 72
	// S390PTSize is __PT_SIZE = sizeof(struct pt_regs) as in the reference
	// (arch/s390/include/asm/ptrace.h), also __FTRACE_REGS_SIZE.
	S390PTSize = 192
	// S390PIFFtraceFullRegs is _PIF_FTRACE_FULL_REGS = 1 << PIF_FTRACE_FULL_REGS (bit 4)
	// (arch/s390/include/asm/ptrace.h).
	S390PIFFtraceFullRegs = 1 << 4
	// S390PSWMask64 is the PSW mask with EA|BA set (64-bit addressing), the
	// mode kernel code runs in; Unicorn starts s390x in 24-bit mode.
	S390PSWMask64 = 0x0000000180000000
	// S390TracedFuncFrameSize is TRACED_FUNC_FRAME_SIZE: the fake 24-byte frame
	// ftrace_caller builds for the traced function (arch/s390/kernel/mcount.S).
	S390TracedFuncFrameSize = 24
)

// S390X is the s390x guest. Register ids are Unicorn 2.x's UC_S390X_REG_*
// (unicorn/s390x.h), checked against the C header by the emu tests.
var S390X = func() *Arch {
	regs := make([]Reg, 0, NumRegs)
	for i := 0; i < 16; i++ {
		regs = append(regs, Reg{fmt.Sprintf("r%d", i), 1 + i})
	}
	regs = append(regs, Reg{"pc", 65}, Reg{"pswm", 66})
	a := &Arch{
		Name:      "s390x",
		ByteOrder: binary.BigEndian,
		BigEndian: true,
		WordSize:  8,
		Regs:      regs,
		// s390x ELF ABI: stack arguments start above the 160-byte area
		// (regs_get_kernel_argument: gprs[15] + 8*(20 + n - 5)).
		StackArgOffset: S390StackFrameOverhead,
		// arch/s390/include/asm/ftrace.h: MCOUNT_INSN_SIZE 6 (brasl %r0,...).
		McountInsnSize: 6,
		Triple:         "s390x-linux-gnu",
		BinutilsPkg:    "binutils-s390x-linux-gnu",
		AsFlags:        []string{"-march=z196"},
		UnicornArch:    9,                  // UC_ARCH_S390X
		UnicornMode:    1 << 30,            // UC_MODE_BIG_ENDIAN
		ReturnStubCode: []byte{0x07, 0xfe}, // br %r14
		Aliases:        []string{"s390"},
		asmOffsets:     s390AsmOffsets,
		Memory: MemoryMap{
			// Unicorn needs s390x code pages writable (reference/unicorn.md);
			// the checker enforces that text is not written.
			Text:  Region{"text", 0x0000000000100000, 1 << 20, PermRead | PermWrite | PermExec},
			Stubs: Region{"stubs", 0x0000000000f00000, 64 << 10, PermRead | PermWrite | PermExec},
			Data:  Region{"data", 0x0000000001000000, 64 << 10, PermRead | PermWrite},
			Stack: Region{"stack", 0x000000008fe00000, 256 << 10, PermRead | PermWrite},
			Heap:  Region{"heap", 0x000000008ff00000, 1 << 20, PermRead | PermWrite},
		},
	}
	a.PC, a.Flags, a.SP, a.Link, a.FP = a.MustReg("pc"), a.MustReg("pswm"), a.MustReg("r15"), a.MustReg("r14"), -1
	// s390x ELF ABI supplement; kernel built with -mbackchain -mpacked-stack.
	a.Args = indices(a, "r2", "r3", "r4", "r5", "r6")
	a.Ret = indices(a, "r2")
	a.CalleeSaved = indices(a, "r6", "r7", "r8", "r9", "r10", "r11", "r12", "r13", "r15")
	a.Volatile = indices(a, "r0", "r1", "r2", "r3", "r4", "r5", "r14", "pswm")
	// The call site "brasl %r0,ftrace_caller" (arch/s390/kernel/ftrace.c)
	// leaves ip+6 in r0; the trampoline may change only r0 and r1.
	a.EntryScratch = indices(a, "r0", "r1")

	// Accessors: arch/s390/include/asm/ftrace.h (v6.14): argument n < 5 is
	// gprs[2+n], stack pointer and frame pointer are gprs[15], return address
	// gprs[14]; arch_ftrace_get_regs returns regs only with
	// PIF_FTRACE_FULL_REGS in flags.
	acc := Accessors{
		IP: "psw.addr", Args: []string{"gprs[2]", "gprs[3]", "gprs[4]", "gprs[5]", "gprs[6]"},
		SP: "gprs[15]", RetVal: "gprs[2]", FP: "gprs[15]", RetAddr: "gprs[14]", Direct: "orig_gpr2",
		FullRegs: FullRegsTest{Slot: "flags", Mask: S390PIFFtraceFullRegs},
	}
	// struct pt_regs, arch/s390/include/asm/ptrace.h (the layout of the
	// reference: __PT_SIZE 192); struct ftrace_regs wraps it at offset 0.
	slots := []Slot{
		{"args[0]", "args[0]", "__PT_ARGS", 0, 8, -1},
		{"psw.mask", "psw.mask", "__PT_PSW", 8, 8, a.MustReg("pswm")},
		{"psw.addr", "psw.addr", "", 16, 8, a.MustReg("pc")},
	}
	for n := 0; n < 16; n++ {
		name := fmt.Sprintf("gprs[%d]", n)
		slots = append(slots, Slot{name, name, fmt.Sprintf("__PT_R%d", n), 24 + 8*n, 8, n})
	}
	slots = append(slots,
		Slot{"orig_gpr2", "orig_gpr2", "__PT_ORIG_GPR2", 152, 8, -1},
		Slot{"int_code", "int_code", "__PT_INT_CODE", 160, 4, -1},
		Slot{"int_parm", "int_parm", "__PT_INT_PARM", 164, 4, -1},
		Slot{"int_parm_long", "int_parm_long", "__PT_INT_PARM_LONG", 168, 8, -1},
		Slot{"flags", "flags", "__PT_FLAGS", 176, 8, -1},
		Slot{"last_break", "last_break", "__PT_LAST_BREAK", 184, 8, -1},
	)
	a.Frame = newLayout("pt_regs", S390PTSize, slots, acc)
	// struct fgraph_ret_regs {gpr2, fp}, arch/s390/include/asm/ftrace.h
	// (v6.5..v6.13).
	a.RetRegs = newLayout("fgraph_ret_regs", 16, []Slot{
		{"gprs[2]", "gpr2", "", 0, 8, a.MustReg("r2")},
		{"fp", "fp", "", 8, 8, -1},
	}, Accessors{RetVal: "gprs[2]", FP: "fp"})
	return a
}()

// s390AsmOffsets is the s390x asm-offsets: what arch/s390/kernel/asm-offsets.c
// generates plus mcount.S's own constants.
func s390AsmOffsets(a *Arch) []Define {
	var d defines
	add := d.add
	const ao = "arch/s390/kernel/asm-offsets.c"
	const mc = "arch/s390/kernel/mcount.S"
	add("STACK_FRAME_OVERHEAD", S390StackFrameOverhead, "arch/s390/include/asm/ptrace.h")
	add("__SF_BACKCHAIN", S390SFBackchain, ao)
	add("__SF_GPRS", S390SFGprs, ao)
	add("__SF_EMPTY", 0, ao)
	for _, s := range a.Frame.Slots {
		if s.Asm != "" {
			add(s.Asm, s.Off, ao)
		}
	}
	add("__PT_SIZE", a.Frame.Size, ao)
	// OFFSET(__PT_GPRS, pt_regs, gprs): the first of the 16 gprs slots
	// (__PT_R0), used by mcount.S of v4.19..v6.13 as STACK_PTREGS_GPRS.
	if r0, ok := a.Frame.Slot("gprs[0]"); ok {
		add("__PT_GPRS", r0.Off, ao)
	}
	add("__FTRACE_REGS_PT_REGS", 0, ao)
	add("__FTRACE_REGS_SIZE", a.Frame.Size, ao)
	add("__FGRAPH_RET_GPR2", 0, ao+" (v6.5..v6.13)")
	add("__FGRAPH_RET_FP", 8, ao+" (v6.5..v6.13)")
	add("__FGRAPH_RET_SIZE", a.RetRegs.Size, ao+" (v6.5..v6.13)")
	add("MCOUNT_INSN_SIZE", a.McountInsnSize, "arch/s390/include/asm/ftrace.h")
	add("PIF_FTRACE_FULL_REGS", 4, "arch/s390/include/asm/ptrace.h")
	add("_PIF_FTRACE_FULL_REGS", S390PIFFtraceFullRegs, "arch/s390/include/asm/ptrace.h")
	// mcount.S's own constants (v6.14), emitted here so a variant can use them
	// without defining them again.
	pt := S390StackFrameOverhead
	add("STACK_FRAME_SIZE_PTREGS", pt+a.Frame.Size, mc)
	add("STACK_PTREGS", pt, mc)
	add("STACK_PTREGS_GPRS", pt+24, mc)
	add("STACK_PTREGS_PSW", pt+8, mc)
	add("STACK_FRAME_SIZE_FREGS", pt+a.Frame.Size, mc)
	add("STACK_FREGS", pt, mc)
	add("STACK_FREGS_PTREGS", pt, mc)
	add("STACK_FREGS_PTREGS_GPRS", pt+24, mc)
	add("STACK_FREGS_PTREGS_PSW", pt+8, mc)
	add("STACK_FREGS_PTREGS_ORIG_GPR2", pt+152, mc)
	add("STACK_FREGS_PTREGS_FLAGS", pt+176, mc)
	add("TRACED_FUNC_FRAME_SIZE", S390TracedFuncFrameSize, mc+" (__PACK_STACK)")
	return d
}
