package ftrace

import (
	"errors"

	"trampemu/regs"
)

// x86Ops: arch/x86/kernel/ftrace.c (v6.14): call sites are the 5-byte
// "call __fentry__" gcc emits, patched between a 5-byte nop and "call rel32".
var x86Ops = &ArchOps{
	Arch: regs.X86_64,
	// ftrace_nop_replace: x86_nops[5], nopl 0x0(%rax,%rax,1).
	NopSite: []byte{0x0f, 0x1f, 0x44, 0x00, 0x00},
	// The site is the function's first instruction, or with
	// CONFIG_X86_KERNEL_IBT follows endbr64 (ENDBR_INSN_SIZE 4,
	// arch/x86/include/asm/ibt.h).
	SiteOffsets: []uint64{0, 4},
	MakeCall: func(a *regs.Arch, site, target uint64) ([]byte, error) {
		return x86Call(a, site, target, []byte{0xe8, 0, 0, 0, 0, 0})
	},
	ModifyCall: x86Call,
	OldLen:     6,
	// ftrace_enable_ftrace_graph_caller (<= v5.15): "jmp ftrace_stub" at
	// ftrace_graph_call becomes "jmp ftrace_graph_caller".
	GraphSite:   SymFtraceGraphCall,
	GraphTarget: SymFtraceGraphCaller,
	EnableGraph: func(a *regs.Arch, site, target uint64, old []byte) ([]byte, error) {
		if len(old) < 5 || old[0] != 0xe9 {
			return nil, errors.New("is not a 5-byte jmp")
		}
		b := []byte{0xe9, 0, 0, 0, 0}
		a.ByteOrder.PutUint32(b[1:], uint32(int32(int64(target)-int64(site+5))))
		return b, nil
	},
	GraphOldLen: 5,
	GraphFunc:   x86GraphFunc,
	// arch/x86/Kconfig: select HAVE_KPROBES_ON_FTRACE (v4.0+).
	KprobesOnFtrace: true,
	PartialRegs:     ptRegsInFregs,
	UserMode:        x86UserMode,
	// Kernel addresses are in the top half: top nibble 0xf.
	FprobeMergedPattern: 0xf << headerSizeShift,
	FprobeV17Encodable:  true,
}

// x86Call encodes "call rel32" (e8) from site to target over the call old.
func x86Call(a *regs.Arch, site, target uint64, old []byte) ([]byte, error) {
	if len(old) < 5 || old[0] != 0xe8 {
		return nil, errors.New("not a 5-byte call (e8 rel32): the tool patches it like the kernel does")
	}
	rel := int64(target) - int64(site+5)
	if rel != int64(int32(rel)) {
		return nil, errors.New("target out of rel32 range")
	}
	b := []byte{0xe8, 0, 0, 0, 0}
	a.ByteOrder.PutUint32(b[1:], uint32(int32(rel)))
	return b, nil
}

// x86GraphFunc is ftrace_graph_func (arch/x86/kernel/ftrace.c, v5.16+):
// parent = the stack slot at regs->sp holding the traced function's return
// address; retp = that slot; on success *parent = return_to_handler.
func x86GraphFunc(k *Kernel, ip uint64, f *regs.Frame) {
	sp, ok := f.StackPointer()
	if !ok {
		return
	}
	ret := k.Mem.ReadWord(sp)
	if k.Graph.Enter(ret, ip, 0, sp, f) {
		k.Mem.WriteWord(sp, k.RTH)
	}
}

// x86UserMode is user_mode(regs) on x86-64: !!(regs->cs & 3), the
// privilege level of the saved code segment (arch/x86/include/asm/ptrace.h,
// the CONFIG_X86_64 form, v6.14). ftrace_caller stores CS = 0 ("Only ops
// with REGS flag set should have CS register set", ftrace_64.S v5.11+),
// ftrace_regs_caller __KERNEL_CS: kernel mode either way.
func x86UserMode(p *regs.Frame) (bool, bool) {
	v, ok := p.Get("CS")
	return ok && v&3 != 0, ok
}
