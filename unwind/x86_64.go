package unwind

import (
	"errors"
	"fmt"
)

// x86-64 struct pt_regs offsets (arch/x86/include/asm/ptrace.h, v4.19+):
// the words the ORC unwinder reads.
const (
	ptR13   = 16
	ptBP    = 32
	ptR10   = 56
	ptDX    = 96
	ptDI    = 112
	ptIP    = 128
	ptCS    = 136
	ptSP    = 152
	ptRegsN = 168 / 8 // words of pt_regs up to ss
	// iretFrameOffset is IRET_FRAME_OFFSET = offsetof(struct pt_regs, ip)
	// (arch/x86/kernel/unwind_orc.c): a REGS_PARTIAL frame is the iret
	// frame, the pt_regs start 128 bytes below it.
	iretFrameOffset = ptIP
)

// ErrUnreliable is wrapped by every error of an ORC walk: the kernel sets
// state->error, and arch_stack_walk_reliable fails with -EINVAL
// (arch/x86/kernel/stacktrace.c).
var ErrUnreliable = errors.New("unreliable stack")

// Mem is the memory an unwinder reads: the task's stack only
// (stack_access_ok, arch/x86/kernel/unwind_orc.c), with Lo <= addr,
// addr+8 <= Hi.
type Mem struct {
	Read   func(addr uint64) uint64
	Lo, Hi uint64
}

func (m Mem) word(addr uint64) (uint64, bool) {
	if addr < m.Lo || addr+8 > m.Hi || addr+8 < addr {
		return 0, false
	}
	return m.Read(addr), true
}

// ORC is the x86-64 ORC unwinder (arch/x86/kernel/unwind_orc.c, v6.12
// semantics on a table of either format).
type ORC struct {
	Table *Table
	Mem   Mem
	// RetAddr is ftrace_graph_ret_addr (kernel/trace/fgraph.c) for a return
	// address found at retp; idx is the walk's graph_idx. nil: identity.
	RetAddr func(idx *int, ip, retp uint64) uint64
	// MaxFrames bounds a walk (0: 4096; the kernel walks until the end, and
	// "stack going in the wrong direction" ends a loop).
	MaxFrames int
}

// Regs is the register state a walk starts from (an interrupt's pt_regs,
// or perf's regs): ip, sp, bp and the registers ORC_REG_R10/R13/DI/DX can
// name.
type Regs struct {
	IP, SP, BP       uint64
	R10, R13, DI, DX uint64
	CS               uint64
	// User: user_mode(regs) (CS & 3); a walk from user regs is done at
	// once.
	User bool
}

// Frame is one step of a walk: the ip found and the sp it belongs to.
type Frame struct {
	IP, SP uint64
}

// Walk is a finished stack walk: the ips in order (the start's ip first),
// Err when the unwinder set state->error (the walk stopped there, or went
// on with a frame-pointer guess), Done when it reached the end of the
// stack.
type Walk struct {
	Frames []Frame
	Err    error
	Done   bool
}

// IPs returns the ips of the walk.
func (w Walk) IPs() []uint64 {
	out := make([]uint64, len(w.Frames))
	for i, f := range w.Frames {
		out[i] = f.IP
	}
	return out
}

// state is struct unwind_state (arch/x86/include/asm/unwind.h, ORC).
type state struct {
	ip, sp, bp uint64
	// regs is the pt_regs of the frame (0: none); start is the regs the
	// walk began from (values, not memory) when regs == startRegs.
	regs, prevRegs uint64
	fromStart      bool // regs are the start's register values
	prevFromStart  bool
	fullRegs       bool
	signal         bool
	graphIdx       int
	err            error
	done           bool
}

// FromRegs walks from a register state as __unwind_start does with regs
// (state from regs, full_regs, signal), then unwind_next_frame until the
// end, an error, or MaxFrames: what perf_callchain_kernel and
// arch_stack_walk(_reliable) collect (the regs' ip first).
func (o *ORC) FromRegs(r Regs) Walk {
	if r.User {
		return Walk{Done: true}
	}
	st := &state{ip: r.IP, sp: r.SP, bp: r.BP, fromStart: true, fullRegs: true, signal: true}
	start := r
	w := Walk{Frames: []Frame{{r.IP, r.SP}}}
	max := o.MaxFrames
	if max == 0 {
		max = 4096
	}
	for len(w.Frames) < max {
		if !o.next(st, &start) {
			break
		}
		w.Frames = append(w.Frames, Frame{st.ip, st.sp})
	}
	w.Err, w.Done = st.err, st.done && st.err == nil
	if len(w.Frames) >= max && !st.done && st.err == nil {
		w.Err = fmt.Errorf("%w: more than %d frames", ErrUnreliable, max)
	}
	return w
}

// FromCall walks from a frame that was just returned to, or that is
// about to return through a call's return address: ip a return address,
// sp the stack pointer after the return (signal = false: the lookup is at
// ip - 1, as for every CALL frame), bp the frame pointer register. It is
// unwind_start on current as the kernel's own C frames end in it
// (perf_callchain_kernel without hardware regs starts there, then skips
// to first_frame). The start's ip is the first frame.
func (o *ORC) FromCall(ip, sp, bp uint64) Walk {
	st := &state{ip: ip, sp: sp, bp: bp}
	w := Walk{Frames: []Frame{{ip, sp}}}
	max := o.MaxFrames
	if max == 0 {
		max = 4096
	}
	for len(w.Frames) < max {
		if !o.next(st, &Regs{}) {
			break
		}
		w.Frames = append(w.Frames, Frame{st.ip, st.sp})
	}
	w.Err, w.Done = st.err, st.done && st.err == nil
	return w
}

// reg is get_reg: a pt_regs word of the frame's full regs, else of the
// previous full regs.
func (o *ORC) reg(st *state, start *Regs, off uint64) (uint64, bool) {
	pick := func(addr uint64, fromStart bool) (uint64, bool) {
		if fromStart {
			switch off {
			case ptR10:
				return start.R10, true
			case ptR13:
				return start.R13, true
			case ptDI:
				return start.DI, true
			case ptDX:
				return start.DX, true
			case ptBP:
				return start.BP, true
			case ptIP:
				return start.IP, true
			case ptSP:
				return start.SP, true
			}
			return 0, false
		}
		return o.Mem.word(addr + off)
	}
	if st.regs == 0 && !st.fromStart {
		return 0, false
	}
	if st.fullRegs {
		return pick(st.regs, st.fromStart)
	}
	if st.prevRegs != 0 || st.prevFromStart {
		return pick(st.prevRegs, st.prevFromStart)
	}
	return 0, false
}

func (o *ORC) fail(st *state, format string, a ...any) bool {
	st.err = fmt.Errorf("%w: "+format, append([]any{ErrUnreliable}, a...)...)
	return false
}

// next is unwind_next_frame; false when the walk is over (done or error).
func (o *ORC) next(st *state, start *Regs) bool {
	origIP, prevSP := st.ip, st.sp
	lookup := st.ip
	if !st.signal {
		lookup--
	}
	orc, ok := o.Table.Find(lookup)
	fpGuess := false
	if !ok {
		// orc_find miss: the frame-pointer guess {BP+16, bp = PREV_SP-16,
		// CALL}, and the walk is unreliable.
		orc = Entry{SPReg: RegBP, SPOffset: 16, BPReg: RegPrevSP, BPOffset: -16, Type: TypeCall}
		fpGuess = true
	}
	switch orc.Type {
	case TypeUndefined:
		return o.fail(st, "no ORC data (undefined) at %#x", origIP)
	case TypeEndOfStack:
		st.done = true
		return false
	}
	st.signal = orc.Signal
	var sp uint64
	indirect := false
	switch orc.SPReg {
	case RegSP:
		sp = st.sp + uint64(int64(orc.SPOffset))
	case RegBP:
		sp = st.bp + uint64(int64(orc.SPOffset))
	case RegSPIndirect:
		sp, indirect = st.sp, true
	case RegBPIndirect:
		sp, indirect = st.bp+uint64(int64(orc.SPOffset)), true
	case RegR10, RegR13, RegDI, RegDX:
		off := map[uint8]uint64{RegR10: ptR10, RegR13: ptR13, RegDI: ptDI, RegDX: ptDX}[orc.SPReg]
		v, ok := o.reg(st, start, off)
		if !ok {
			return o.fail(st, "missing %s value at %#x", RegName(orc.SPReg), origIP)
		}
		sp = v
	default:
		return o.fail(st, "unknown SP base reg %d at %#x", orc.SPReg, origIP)
	}
	if indirect {
		v, ok := o.Mem.word(sp)
		if !ok {
			return o.fail(st, "can't access indirect sp %#x at %#x", sp, origIP)
		}
		sp = v
		if orc.SPReg == RegSPIndirect {
			sp += uint64(int64(orc.SPOffset))
		}
	}
	switch orc.Type {
	case TypeCall:
		retp := sp - 8
		ip, ok := o.Mem.word(retp)
		if !ok {
			return o.fail(st, "can't access return address at %#x (from %#x)", retp, origIP)
		}
		if o.RetAddr != nil {
			ip = o.RetAddr(&st.graphIdx, ip, retp)
		}
		st.ip, st.sp = ip, sp
		st.regs, st.prevRegs, st.fromStart, st.prevFromStart = 0, 0, false, false
	case TypeRegs:
		ip, ok1 := o.Mem.word(sp + ptIP)
		nsp, ok2 := o.Mem.word(sp + ptSP)
		if !ok1 || !ok2 {
			return o.fail(st, "can't access registers at %#x (from %#x)", sp, origIP)
		}
		st.ip, st.sp = ip, nsp
		st.regs, st.fromStart, st.fullRegs = sp, false, true
		st.prevRegs, st.prevFromStart = 0, false
	case TypeRegsPartial:
		ip, ok1 := o.Mem.word(sp)
		nsp, ok2 := o.Mem.word(sp + 24)
		if !ok1 || !ok2 {
			return o.fail(st, "can't access iret registers at %#x (from %#x)", sp, origIP)
		}
		if st.fullRegs {
			st.prevRegs, st.prevFromStart = st.regs, st.fromStart
		}
		st.ip, st.sp = ip, nsp
		st.regs, st.fromStart, st.fullRegs = sp-iretFrameOffset, false, false
	default:
		return o.fail(st, "unknown ORC type %d at %#x", orc.Type, origIP)
	}
	switch orc.BPReg {
	case RegUndefined:
		if v, ok := o.reg(st, start, ptBP); ok {
			st.bp = v
		}
	case RegPrevSP:
		v, ok := o.Mem.word(sp + uint64(int64(orc.BPOffset)))
		if !ok {
			return o.fail(st, "can't access bp at %#x (from %#x)", sp+uint64(int64(orc.BPOffset)), origIP)
		}
		st.bp = v
	case RegBP:
		v, ok := o.Mem.word(st.bp + uint64(int64(orc.BPOffset)))
		if !ok {
			return o.fail(st, "can't access bp at %#x (from %#x)", st.bp+uint64(int64(orc.BPOffset)), origIP)
		}
		st.bp = v
	default:
		return o.fail(st, "unknown BP base reg %d at %#x", orc.BPReg, origIP)
	}
	// Prevent a loop: same stack, sp not going up.
	if st.sp >= o.Mem.Lo && st.sp < o.Mem.Hi && st.sp <= prevSP {
		return o.fail(st, "stack going in the wrong direction? at %#x", origIP)
	}
	if fpGuess {
		// The guessed frame is reported, and the walk is unreliable.
		st.err = fmt.Errorf("%w: no ORC entry for %#x", ErrUnreliable, origIP)
	}
	return true
}
