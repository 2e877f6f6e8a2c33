package emu

/*
#include "tm.h"
*/
import "C"

import (
	"fmt"
	"slices"
	"sync"
	"unsafe"

	"trampemu/regs"
)

// Reg returns register i (an index into m.Arch.Regs). Inside a host function
// or watch callback it reads the batch fetched for the callback; elsewhere it
// asks the engine.
func (m *Machine) Reg(i int) uint64 {
	if !m.inCallback {
		C.tm_read_regs(m.c)
	} else if m.c.valid&(C.uint64_t(1)<<uint(i)) == 0 {
		// A host call has the argument registers read; the rest on
		// demand (the x86-64 flags cost a computation from QEMU's lazy
		// condition codes).
		C.tm_read_reg(m.c, C.int(i))
	}
	return uint64(m.c.regs[i])
}

// SetReg writes register i. Inside a callback the write is batched and
// applied when the callback returns.
func (m *Machine) SetReg(i int, v uint64) {
	if m.inCallback {
		m.c.regs[i] = C.uint64_t(v)
		m.c.dirty |= C.uint64_t(1) << uint(i)
		m.c.valid |= C.uint64_t(1) << uint(i)
		return
	}
	if err := ucCheck(C.tm_reg_write(m.c, C.int(i), C.uint64_t(v))); err != nil {
		// Only an id the engine does not know can fail; regs' ids are
		// checked against the C headers by the tests.
		panic(fmt.Sprintf("emu: writing %s: %v", m.Arch.Regs[i].Name, err))
	}
}

// Regs returns the whole register file in one engine call.
func (m *Machine) Regs() regs.RegFile {
	if !m.inCallback {
		C.tm_read_regs(m.c)
	} else if m.c.valid != ^C.uint64_t(0) {
		C.tm_read_missing(m.c)
	}
	return *(*regs.RegFile)(unsafe.Pointer(&m.c.regs[0])) // uint64_t[TM_NREGS]
}

// RegSet is a set of register indices with its bit mask (NewRegSet), for
// RegsInto.
type RegSet struct {
	idx  []int
	mask C.uint64_t
}

// NewRegSet returns the set of registers idx.
func NewRegSet(idx []int) RegSet {
	s := RegSet{idx: slices.Clone(idx)}
	for _, i := range idx {
		s.mask |= C.uint64_t(1) << uint(i)
	}
	return s
}

// RegsInto copies the registers of s into dst (the others untouched): Reg
// for each, without a call per register when the callback's batch holds
// them all (the prefetch set of a host function).
func (m *Machine) RegsInto(dst *regs.RegFile, s RegSet) {
	if !m.inCallback || m.c.valid&s.mask != s.mask {
		for _, i := range s.idx {
			dst[i] = m.Reg(i)
		}
		return
	}
	src := (*regs.RegFile)(unsafe.Pointer(&m.c.regs[0]))
	for _, i := range s.idx {
		dst[i] = src[i]
	}
}

// SetRegs writes the whole register file (a flags register whose write has
// effects, the s390x PSW mask setting the condition code, is written only
// when it differs).
func (m *Machine) SetRegs(f *regs.RegFile) {
	cur := m.Regs()
	for i, v := range f[:len(m.Arch.Regs)] {
		if i == m.Arch.Flags && m.hooks.flagsWriteHasEffects && v == cur[i] {
			continue
		}
		m.SetReg(i, v)
	}
}

// RegByName returns a register by name ("rax", "%r14").
func (m *Machine) RegByName(name string) (uint64, error) {
	i, ok := m.Arch.Reg(name)
	if !ok {
		return 0, fmt.Errorf("%s has no register %q (valid: %v)", m.Arch.Name, name, m.Arch.RegNames())
	}
	return m.Reg(i), nil
}

// Arg returns integer argument n of the current host call (register
// arguments only).
func (m *Machine) Arg(n int) uint64 { return m.Reg(m.Arch.Args[n]) }

// SetReturn sets the (first) return register.
func (m *Machine) SetReturn(v uint64) { m.SetReg(m.Arch.Ret[0], v) }

// ClobberValue is what a clobbering host function leaves in volatile
// register i: recognisable in a finding ("0xc10bbe4e00000003").
func ClobberValue(i int) uint64 { return 0xc10bbe4e00000000 | uint64(i) }

// clobber overwrites every volatile register the callback did not set, as
// compiled C may leave any value in them. The link register keeps the return
// address the stub returns through; flags get their arithmetic bits flipped.
// It is the Go twin of the C clobber (tm_finish, set up by setClobber),
// for a tracer that must see the registers the guest will.
func (m *Machine) clobber() {
	a := m.Arch
	for _, i := range a.Volatile {
		if m.c.dirty&(C.uint64_t(1)<<uint(i)) != 0 || i == a.Link {
			continue
		}
		switch {
		case i == a.Flags:
			m.SetReg(i, m.hooks.clobberFlags(m.Reg(i)))
		default:
			m.SetReg(i, ClobberValue(i))
		}
	}
}

// setClobber splits the clobber in two: the guest's clobber routine
// (clobber.go) loads every volatile register but the link register, the
// flags and the return registers, and the C side (tm_finish, one write
// batch with the registers Go set) does the return registers Go did not
// set and the flags, through the arch's xor and or masks. It also tells C
// which registers a host call reads first (its arguments).
func (m *Machine) setClobber() error {
	a := m.Arch
	var idx [regs.NumRegs]C.int
	var val [regs.NumRegs]C.uint64_t
	n, flags := 0, 0
	var routine []int
	var values []uint64
	m.routineMask = 0
	for _, i := range a.Volatile {
		switch {
		case i == a.Link:
		case i == a.Flags:
			flags = 1
		case slices.Contains(a.Ret, i) || m.hooks.clobberCode == nil:
			idx[n], val[n] = C.int(i), C.uint64_t(ClobberValue(i))
			n++
		default:
			routine, values = append(routine, i), append(values, ClobberValue(i))
			m.routineMask |= 1 << uint(i)
		}
	}
	C.tm_set_clobber(m.c, &idx[0], &val[0], C.int(n), C.int(flags), C.uint64_t(m.hooks.flagsXor), C.uint64_t(m.hooks.flagsOr))
	if m.hooks.clobberCode != nil {
		if err := m.WriteMem(m.routineAddr(), m.hooks.clobberCode(routine, values)); err != nil {
			return fmt.Errorf("emu: writing the clobber routine: %w", err)
		}
	}
	return m.Prefetch(nil)
}

// Prefetch sets the registers every host call reads in C before Go runs,
// in one batch: its first four arguments and extra (indices into
// m.Arch.Regs; the pc is known without a read). Reg and Regs read the
// rest on demand.
func (m *Machine) Prefetch(extra []int) error {
	a := m.Arch
	var pre [regs.NumRegs]C.int
	k := 0
	for _, i := range slices.Concat(a.Args[:min(len(a.Args), 4)], extra) {
		if i < 0 || i >= len(a.Regs) {
			return fmt.Errorf("emu: prefetch of register %d: %s has %d", i, a.Name, len(a.Regs))
		}
		if slices.Contains(pre[:k], C.int(i)) {
			continue
		}
		pre[k] = C.int(i)
		k++
	}
	C.tm_set_prefetch(m.c, &pre[0], C.int(k))
	return nil
}

// liveLayouts is, per arch, where the first machine found the engine's
// CPU state (live.c): the uc_struct word that points to it and each
// register's offset there (by position in plainRegs); every later machine
// of the arch checks it (tm_live_use) instead of searching again.
var liveLayouts = struct {
	sync.Mutex
	byArch   map[string]liveLayout
	searches map[string]int // tm_live_find calls per arch (LiveSearches)
}{byArch: map[string]liveLayout{}, searches: map[string]int{}}

// LiveSearches is how many times this process searched for the arch's
// CPU state (findLive): once, unless a machine's check of the kept layout
// failed.
func LiveSearches(arch string) int {
	liveLayouts.Lock()
	defer liveLayouts.Unlock()
	return liveLayouts.searches[arch]
}

type liveLayout struct {
	word int
	off  [regs.NumRegs]C.int32_t
}

// plainRegs are the registers whose value the engine keeps as a plain
// word: all but the pc (the block's address at every event and host call)
// and the flags (computed from lazy condition codes).
func plainRegs(a *regs.Arch) ([regs.NumRegs]C.int, int) {
	var idx [regs.NumRegs]C.int
	n := 0
	for i := range a.Regs {
		if i != a.PC && i != a.Flags {
			idx[n] = C.int(i)
			n++
		}
	}
	return idx, n
}

// findLive turns on register reads from the engine's own CPU state
// (live.c): a load per register instead of a uc_reg_read. It reports
// whether any register is read so; LiveRegs says how many.
func (m *Machine) findLive() bool {
	idx, n := plainRegs(m.Arch)
	liveLayouts.Lock()
	defer liveLayouts.Unlock()
	if l, ok := liveLayouts.byArch[m.Arch.Name]; ok {
		if got := int(C.tm_live_use(m.c, &idx[0], C.int(n), C.int(l.word), &l.off[0])); got > 0 {
			m.liveRegs = got
			return true
		}
	}
	var l liveLayout
	var word C.int
	liveLayouts.searches[m.Arch.Name]++
	got := int(C.tm_live_find(m.c, &idx[0], C.int(n), &word, &l.off[0]))
	if got <= 0 {
		return false
	}
	l.word = int(word)
	liveLayouts.byArch[m.Arch.Name] = l
	m.liveRegs = got
	return true
}

// SetLeaveFlags says whether a watch event at a leave reads the flags
// register (on by default); off, it holds 0 there, which spares x86-64 the
// computation of EFLAGS from QEMU's lazy condition codes (and s390x's PSW
// mask, arm64's NZCV) at every leave. Only with registers read from the
// engine's state (LiveRegs > 0); other reads take every register.
func (m *Machine) SetLeaveFlags(on bool) {
	m.c.leave_flags = 0
	if on {
		m.c.leave_flags = 1
	}
}

// LeaveFlags reports whether leave events read the flags (SetLeaveFlags).
func (m *Machine) LeaveFlags() bool { return m.c.leave_flags != 0 }

// LiveRegs is how many registers callbacks and watch events read from the
// engine's own CPU state (0: none, see ContextRegs).
func (m *Machine) LiveRegs() int { return m.liveRegs }

// calibrateContext finds where the general registers (all but pc and the
// flags, whose values the engine computes) lie in a saved CPU context, so
// that callbacks and watch events read them from one uc_context_save
// (machineArch.contextRegs). A register not found reads through
// uc_reg_read as before; ContextRegs says how many were found.
func (m *Machine) calibrateContext() {
	idx, n := plainRegs(m.Arch)
	m.contextRegs = max(0, int(C.tm_ctx_calibrate(m.c, &idx[0], C.int(n))))
}

// ContextRegs is how many registers callbacks and watch events read from
// a saved CPU context (0: every register through uc_reg_read).
func (m *Machine) ContextRegs() int { return m.contextRegs }

// UnicornRegID returns the Unicorn id that unicorn.h gives register i of
// the arch (regs order); the tests compare it with package regs.
func UnicornRegID(a *regs.Arch, i int) int {
	return int(C.tm_uc_reg_id(C.int(a.UnicornArch), C.int(i)))
}

// regThroughEngine reads register i with uc_reg_read, never from a saved
// context: the reference the context reads are tested against.
func (m *Machine) regThroughEngine(i int) uint64 {
	var v C.uint64_t
	C.tm_reg_read_engine(m.c, C.int(i), &v)
	return uint64(v)
}
