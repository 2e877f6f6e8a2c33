package ftrace

import (
	"errors"

	"trampemu/regs"
)

// s390Ops: arch/s390/kernel/ftrace.c (v6.14): call sites are
// "brasl %r0,ftrace_caller" patched against "brcl 0,0"; the ops callback is
// called through ftrace_func (ftrace_trace_function in v4.x) or a brasl at
// ftrace_call.
var s390Ops = &ArchOps{
	Arch: regs.S390X,
	// brcl 0,0: the disabled site.
	NopSite: []byte{0xc0, 0x04, 0, 0, 0, 0},
	MakeCall: func(a *regs.Arch, site, target uint64) ([]byte, error) {
		return s390Brasl(a, 0, site, target)
	},
	ModifyCall: func(a *regs.Arch, site, target uint64, old []byte) ([]byte, error) {
		if len(old) < 6 || old[0] != 0xc0 || old[1]&0x0f != 0x05 {
			return nil, errors.New("not a brasl (c0x5 rel32): the tool patches it like the kernel does")
		}
		return s390Brasl(a, old[1]>>4, site, target)
	},
	OldLen:       6,
	FuncPointers: []string{SymFtraceFunc, SymFtraceTraceFunction},
	// ftrace_enable_ftrace_graph_caller (<= v6.13): "j .Lend" (a7f4) at
	// ftrace_graph_caller becomes "brc 0,.Lend" (a704), a nop.
	GraphSite: SymFtraceGraphCaller,
	EnableGraph: func(a *regs.Arch, site, target uint64, old []byte) ([]byte, error) {
		if len(old) < 4 || old[0] != 0xa7 || old[1] != 0xf4 {
			return nil, errors.New("is not a j (a7f4)")
		}
		return []byte{0xa7, 0x04, old[2], old[3]}, nil
	},
	GraphOldLen: 4,
	GraphFunc:   s390GraphFunc,
	// arch/s390/Kconfig: select HAVE_KPROBES_ON_FTRACE (v5.14+; the v4.x entry variants have no full regs for it anyway).
	KprobesOnFtrace: true,
	// struct ftrace_regs is a pt_regs (arch/s390/include/asm/ftrace.h,
	// v6.14): ftrace_partial_regs hands it over as it is.
	PartialRegs: ptRegsInFregs,
	UserMode:    s390UserMode,
	// arch/s390: kernel addresses have zero top bits, so the merged header's
	// pattern is 0 and the v17 draft's 0xf << 60 encodes no heap pointer.
	FprobeMergedPattern: 0,
	FprobeV17Encodable:  false,
}

// s390Brasl encodes "brasl %r<reg>,rel32" (c0 reg5) from site to target.
func s390Brasl(a *regs.Arch, reg byte, site, target uint64) ([]byte, error) {
	rel := (int64(target) - int64(site)) / 2
	if rel != int64(int32(rel)) {
		return nil, errors.New("target out of brasl range")
	}
	b := []byte{0xc0, reg<<4 | 0x05, 0, 0, 0, 0}
	a.ByteOrder.PutUint32(b[2:], uint32(int32(rel)))
	return b, nil
}

// s390GraphFunc is ftrace_graph_func (arch/s390/kernel/ftrace.c, v6.14+):
// parent = &fregs->gprs[14]; sp = gprs[15] is retp; on success gprs[14] =
// return_to_handler, which ftrace_common's lmg loads into r14.
func s390GraphFunc(k *Kernel, ip uint64, f *regs.Frame) {
	ret, ok1 := f.Get("gprs[14]")
	sp, ok2 := f.StackPointer()
	if !ok1 || !ok2 {
		return
	}
	if k.Graph.Enter(ret, ip, 0, sp, f) {
		f.Set("gprs[14]", k.RTH)
	}
}

// s390PSWMaskPState is PSW_MASK_PSTATE, the problem-state bit of the PSW
// mask (arch/s390/include/uapi/asm/ptrace.h, 64-bit: 0x0001000000000000).
const s390PSWMaskPState = 0x0001000000000000

// s390UserMode is user_mode(regs) on s390x: psw.mask & PSW_MASK_PSTATE
// (arch/s390/include/asm/ptrace.h, v6.14). Only ftrace_regs_caller stores
// the PSW mask ("epsw" under allregs, arch/s390/kernel/mcount.S v6.14);
// ftrace_caller leaves psw.mask as it was.
func s390UserMode(p *regs.Frame) (bool, bool) {
	v, ok := p.Get("psw.mask")
	return ok && v&s390PSWMaskPState != 0, ok
}
