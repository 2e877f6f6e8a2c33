package ftrace

import (
	"fmt"

	"trampemu/regs"
)

// OpsFuncOffset is offsetof(struct ftrace_ops, func): func is the first
// member on every arch (include/linux/ftrace.h); arm64's CALL_OPS entry
// calls through it (FTRACE_OPS_FUNC, arch/arm64/kernel/asm-offsets.c v6.3+).
const OpsFuncOffset = 0

// SetOpsFunc stores fn as the func of the struct ftrace_ops at
// FunctionTraceOp, which stands for ftrace_list_ops here: what an entry
// that calls op->func itself (arm64 CALL_OPS) reaches.
func (k *Kernel) SetOpsFunc(fn uint64) { k.Mem.WriteWord(k.FunctionTraceOp+OpsFuncOffset, fn) }

// PartialRegs is ftrace_partial_regs (ArchOps.PartialRegs): the pt_regs a
// BPF or perf user of an fprobe gets from fregs (include/linux/ftrace.h,
// v6.14+). Where ftrace_regs holds a pt_regs it is that pt_regs; else
// (arm64) a copy in one buffer that is reused like the kernel's per-CPU
// one (kernel/trace/bpf_trace.c bpf_kprobe_multi_pt_regs), see
// PartialRegsBuffer. Its reads of fregs and of the buffer go through the
// observer, so a slot nothing wrote is a stale read; fixed selects the
// arch's version after its last fix.
func (k *Kernel) PartialRegs(fregs *regs.Frame, fixed bool) (*regs.Frame, error) {
	o := MustOps(k.Arch)
	if o.PartialRegs == nil {
		return nil, fmt.Errorf("ftrace_partial_regs: not modelled on %s", k.Arch.Name)
	}
	if fregs == nil {
		return nil, fmt.Errorf("ftrace_partial_regs: no ftrace_regs (NULL): %w", EINVAL)
	}
	return o.PartialRegs(k, fregs, fixed)
}

// ptRegsInFregs is ftrace_partial_regs where struct ftrace_regs holds a
// pt_regs (CONFIG_HAVE_FTRACE_REGS_HAVING_PT_REGS: arch/x86/Kconfig "if
// X86_64" and arch/s390/Kconfig, v6.14): include/linux/ftrace.h returns
// &arch_ftrace_regs(fregs)->regs, the trampoline's own frame, and copies
// nothing, so a BPF/perf user reads exactly what the trampoline wrote.
// fixed makes no difference in the model: x86-64's later
// arch_ftrace_partial_regs hook (20a0bc10272f, v6.19: cs = __KERNEL_CS and
// the EFLAGS FIXED bit, for the exit path's frame) is not modelled, and
// s390x has none.
func ptRegsInFregs(_ *Kernel, fregs *regs.Frame, _ bool) (*regs.Frame, error) {
	return fregs, nil
}

// PartialRegsBuffer is the pt_regs buffer ftrace_partial_regs copies into
// (allocated on first use), or nil when the arch's struct ftrace_regs holds
// its pt_regs (Arch.PtRegs nil: x86-64, s390x), where nothing is copied.
func (k *Kernel) PartialRegsBuffer() (*regs.Frame, error) {
	if k.Arch.PtRegs == nil {
		return nil, nil
	}
	if k.partialRegs == 0 {
		addr, err := k.Heap.Alloc(uint64(k.Arch.PtRegs.Size), 16)
		if err != nil {
			return nil, err
		}
		k.partialRegs = addr
	}
	return k.Frame(k.partialRegs, k.Arch.PtRegs), nil
}

// UserMode is user_mode(regs) on a pt_regs (ArchOps.UserMode), what
// bpf_get_stackid and perf look at before walking a kernel stack.
func (k *Kernel) UserMode(ptregs *regs.Frame) (bool, error) {
	o := MustOps(k.Arch)
	if o.UserMode == nil {
		return false, fmt.Errorf("user_mode: not modelled on %s", k.Arch.Name)
	}
	prev := ptregs.Swap("user_mode")
	defer ptregs.Swap(prev)
	u, ok := o.UserMode(ptregs)
	if !ok {
		return false, fmt.Errorf("user_mode: the %s pt_regs has no mode field", k.Arch.Name)
	}
	return u, nil
}
