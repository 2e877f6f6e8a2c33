package emu

/*
#cgo pkg-config: unicorn
#include <stdlib.h>
#include "tm.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"time"
	"unsafe"

	"trampemu/asm"
	"trampemu/regs"
)

// HostFunc is Go code standing in for a kernel C function. It reads its
// arguments with Machine.Arg / Reg and guest memory, and sets the return
// value with SetReturn. A returned error stops the run and comes back from
// Run wrapped in an *Error of kind KindHost.
type HostFunc func(m *Machine) error

// WatchEvent is control entering (Enter) or leaving a watched code range;
// see Machine.Watch.
type WatchEvent struct {
	Enter bool
	PC    uint64 // the first address executed inside (enter) or outside (leave)
	// Regs are the registers at that moment, in the C log (valid while
	// DrainWatch's fn runs: copy what is kept).
	Regs *regs.RegFile
	// Above holds the WatchAbove bytes of guest memory from the stack
	// pointer at the last enter up (the same bytes for an enter and its
	// leave; nil when that is outside guest memory).
	Above []byte
	// Accesses are the memory-probe accesses logged since the previous
	// event (they happened before this one).
	Accesses []Access
	// Tag is the guest word at WatchOptions.Tag at that moment (0 without).
	Tag uint64
	// Below is the guest word just below the stack pointer at that
	// moment (an enter's: as it was before the poison overwrote it).
	Below uint64
}

// WatchAbove is how many bytes above the stack pointer a WatchEvent keeps.
const WatchAbove = C.TM_ABOVE

type hostFunc struct {
	name    string
	fn      HostFunc
	clobber bool
	calls   uint64
}

type region struct {
	regs.Region
	phys uint64 // where Unicorn maps it (x86-64: behind page tables)
	ptr  unsafe.Pointer
	mem  []byte
}

// Machine is one emulated CPU with its memory. It is not safe for
// concurrent use.
type Machine struct {
	Arch  *regs.Arch
	Image *asm.Image

	c         *C.tm
	id        uintptr // the C side's name for the machine (registry.go)
	regions   []region
	last      int // index of the region last used by a memory access
	prev      int // the one used before it (span)
	hosts     map[uint64]*hostFunc
	dis       asm.Disassembler
	watchFull func() // drains the watch log when it fills
	tracer    Tracer // see Trace
	interrupt InterruptFunc
	accbuf    []Access
	// liveRegs: registers read where the engine keeps them (findLive)
	liveRegs int
	// contextRegs: registers read from a saved context (calibrateContext)
	contextRegs int
	wev         WatchEvent

	inCallback bool
	cbErr      error  // error of the Go callback that stopped the run
	cbPC       uint64 // address of that callback's host function
	memFault   error  // first guest memory fault inside the current callback
	closed     bool
	pagetables unsafe.Pointer
	hooks      *machineArch // the arch's hooks (arch.go)
	watchSplit uint64       // WatchOptions.Split of the watch
	callLimit  uint64       // SetCallLimit
	// routineMask: the registers the clobber routine loads (clobber.go).
	routineMask uint64
}

// New creates a machine for arch with every region of the arch's memory
// map mapped (host-backed memory, zeroed).
func New(a *regs.Arch) (*Machine, error) {
	if regs.NumRegs != C.TM_NREGS || len(a.Regs) > regs.NumRegs || len(a.Regs) == 0 ||
		a.PC < 0 || a.PC >= len(a.Regs) || a.Flags < -1 || a.Flags >= len(a.Regs) || len(a.Regs) > 64 {
		return nil, fmt.Errorf("emu: %s tracks %d registers (pc %d, flags %d); the C side holds %d (regs.NumRegs %d)",
			a.Name, len(a.Regs), a.PC, a.Flags, C.TM_NREGS, regs.NumRegs)
	}
	hooks, err := machineArchOf(a)
	if err != nil {
		return nil, err
	}
	m := &Machine{Arch: a, hosts: map[uint64]*hostFunc{}, hooks: hooks}
	m.id = registerMachine(m)
	var ids [regs.NumRegs]C.int
	for i, r := range a.Regs {
		ids[i] = C.int(r.UC)
	}
	var uerr C.uc_err
	m.c = C.tm_new(C.int(a.UnicornArch), C.int(a.UnicornMode), C.uintptr_t(m.id), &ids[0],
		C.int(len(a.Regs)), C.int(a.PC), C.int(a.Flags), &uerr)
	if m.c == nil {
		unregisterMachine(m.id)
		return nil, fmt.Errorf("emu: opening a %s Unicorn engine: %s", a.Name, ucErr(uerr))
	}
	rs := a.Memory.Regions()
	for i, phys := range hooks.physLayout(rs) {
		if err := m.mapRegion(rs[i], phys); err != nil {
			m.Close()
			return nil, err
		}
	}
	if err := hooks.setup(m); err != nil {
		m.Close()
		return nil, err
	}
	s := a.Memory.Stubs
	if err := ucCheck(C.tm_hooks(m.c, C.uint64_t(s.Base), C.uint64_t(s.End()), C.uint64_t(m.routineAddr()))); err != nil {
		m.Close()
		return nil, fmt.Errorf("emu: adding hooks: %w", err)
	}
	m.dis = asm.NewDisassembler(a, nil)
	if !m.findLive() && hooks.contextRegs {
		m.calibrateContext()
	}
	if err := m.setClobber(); err != nil {
		m.Close()
		return nil, err
	}
	return m, nil
}

func (m *Machine) mapRegion(r regs.Region, phys uint64) error {
	if r.Base%4096 != 0 || r.Size%4096 != 0 || r.Size == 0 {
		return fmt.Errorf("emu: region %s %#x+%#x is not page aligned", r.Name, r.Base, r.Size)
	}
	ptr := C.calloc(C.size_t(r.Size), 1)
	if ptr == nil {
		return fmt.Errorf("emu: out of memory for region %s (%d bytes)", r.Name, r.Size)
	}
	if err := ucCheck(C.tm_map(m.c, C.uint64_t(phys), C.uint64_t(r.Size), C.uint32_t(r.Perm), ptr)); err != nil {
		C.free(ptr)
		return fmt.Errorf("emu: mapping %s at %#x: %w", r.Name, r.Base, err)
	}
	m.regions = append(m.regions, region{Region: r, phys: phys, ptr: ptr, mem: unsafe.Slice((*byte)(ptr), r.Size)})
	if C.tm_add_region(m.c, C.uint64_t(r.Base), C.uint64_t(r.Size), ptr) != 0 {
		return fmt.Errorf("emu: too many regions")
	}
	return nil
}

// Close releases the engine and its memory. The machine is unusable after.
func (m *Machine) Close() {
	if m.closed {
		return
	}
	m.closed = true
	C.tm_free(m.c)
	m.c = nil
	for _, r := range m.regions {
		C.free(r.ptr)
	}
	m.regions = nil
	if m.pagetables != nil {
		C.free(m.pagetables)
		m.pagetables = nil
	}
	unregisterMachine(m.id)
}

// Load copies the image's sections into guest memory and writes a return
// stub at every host-function address of the image. Host functions are then
// bound by name with Bind.
func (m *Machine) Load(im *asm.Image) error {
	if im.Arch != m.Arch {
		return fmt.Errorf("emu: image is for %s, machine is %s", im.Arch.Name, m.Arch.Name)
	}
	for _, s := range im.Sections {
		if err := m.WriteMem(s.Addr, s.Data); err != nil {
			return fmt.Errorf("emu: loading section %s: %w", s.Name, err)
		}
	}
	for _, addr := range im.HostFuncs {
		if err := m.WriteMem(addr, m.Arch.ReturnStubCode); err != nil {
			return fmt.Errorf("emu: writing host stub: %w", err)
		}
	}
	m.Image = im
	m.dis = asm.ForImage(im)
	if m.hooks.guardCode != nil {
		for _, u := range im.Units {
			if err := m.hooks.guardCode(m, u.Start, u.End); err != nil {
				return err
			}
		}
	}
	return m.FlushCode(m.Arch.Memory.Text.Base, m.Arch.Memory.Stubs.End())
}

// Bind attaches fn to the image's host-function symbol name. With clobber,
// every volatile register the function did not set is overwritten with a
// recognisable pattern before the guest resumes, as compiled C may leave
// any value there.
func (m *Machine) Bind(name string, fn HostFunc, clobber bool) error {
	if m.Image == nil {
		return errors.New("emu: Bind before Load")
	}
	addr, ok := m.Image.HostFuncs[name]
	if !ok {
		return fmt.Errorf("emu: %q is not a host function of the image (declare it in asm.Options.HostFuncs)", name)
	}
	m.BindAddr(addr, name, fn, clobber)
	return nil
}

// BindAddr attaches fn to a stub address directly (the stub code must be
// there: Load writes it for the image's host functions).
//
// A clobbering function's stub branches to the clobber routine
// (clobber.go) instead of returning: the guest itself loads the clobber
// values, far cheaper than the engine's register writes.
func (m *Machine) BindAddr(addr uint64, name string, fn HostFunc, clobber bool) {
	m.hosts[addr] = &hostFunc{name: name, fn: fn, clobber: clobber}
	code := m.Arch.ReturnStubCode
	if clobber && m.hooks.clobberCode != nil {
		code = m.hooks.jump(addr, m.routineAddr())
	}
	if err := m.PatchCode(addr, code); err != nil || addr >= m.routineAddr() {
		panic(fmt.Sprintf("emu: host stub %s at %#x outside the stubs below the clobber routine (%#x): %v", name, addr, m.routineAddr(), err))
	}
}

// HostCalls returns how often the named host function ran.
func (m *Machine) HostCalls(name string) uint64 {
	for addr, h := range m.hosts {
		if h.name == name {
			n := h.calls
			if f := C.tm_fast_of(m.c, C.uint64_t(addr)); f != nil {
				n += uint64(f.calls) // run in C, not taken yet (TakeFast)
			}
			return n
		}
	}
	return 0
}

// WatchOptions configure Watch.
type WatchOptions struct {
	// PoisonBelow bytes below the stack pointer are overwritten on every
	// enter with a pattern: word at address a = PoisonWith(PoisonXor, a)
	// (in guest byte order; the package's PoisonXor is the default), so a later read can tell a word nobody wrote.
	PoisonBelow int
	PoisonXor   uint64
	// Keep bytes right below the stack pointer (rounded up to words) are
	// left alone by the poison, at every enter and at every interrupt of
	// the interrupt model (Interrupts): memory the code before the
	// watched range stores just below sp and the watched code reads,
	// which the modelled interrupts do not write either.
	Keep int
	// Full is called when the event log is full (every 1024 events): it
	// must drain it with DrainWatch.
	Full func()
	// Tag, when not 0, is the guest address of a word each event copies
	// (WatchEvent.Tag): a driver that makes many calls in one emulator run
	// keeps there what names the current call.
	Tag uint64
	// Split, when inside (lo, hi), divides the range in two: control going
	// straight from one part into the other is a leave and then an enter
	// (e.g. an entry trampoline that branches into the exit trampoline).
	Split uint64
}

// Watch logs an event (registers, the stack above sp, the tag word) in C
// each time execution enters the code range [lo, hi) from outside, and each
// time it leaves it for code outside it and outside the host stubs (a host
// call from inside is not a leave). Detection is at basic-block starts, in the
// C block hook, and costs nothing when nothing crosses; no Go runs until
// the log is drained (DrainWatch), e.g. at the next host call. A zero range
// turns watching off.
func (m *Machine) Watch(lo, hi uint64, o WatchOptions) error {
	m.watchFull = o.Full
	m.watchSplit = o.Split
	m.c.sp_index = C.int(m.Arch.SP)
	big := 0
	if m.Arch.BigEndian {
		big = 1
	}
	switch C.tm_watch(m.c, C.uint64_t(lo), C.uint64_t(hi), C.uint64_t(o.Split), C.uint32_t(o.PoisonBelow), C.uint32_t(o.Keep), C.uint64_t(o.PoisonXor), C.int(big), C.uint64_t(o.Tag)) {
	case 0:
		return nil
	case -2:
		return fmt.Errorf("emu: watch tag %#x is not in %s guest memory", o.Tag, m.Arch.Name)
	default:
		return errors.New("emu: out of memory for the watch log")
	}
}

// Guard makes a watched run stop at the first control transfer known to be
// wrong (Machine.SetGuard), judged in C at the watch's leave events, so a
// trampoline that returns to the wrong place (and so maybe loops through
// its call site for ever) costs a few dozen instructions, not an
// instruction limit's worth.
type Guard struct {
	// Reentry is an address of the watched part (below or from
	// WatchOptions.Split) that must not be entered again straight from the
	// block its run left to (0: no such part): that block called straight
	// back in, as a call site does, with nothing run in between.
	Reentry uint64
	// SPMax, when not 0, is the highest stack pointer a leave may have.
	SPMax uint64
}

// SetGuard turns the guard on (nil: off) for the watched range: a leave to
// another pc than ExpectLeave gave, a leave with sp above SPMax, or a
// straight re-entry of the Reentry part stops the run with a KindControl
// *Error whose PC and Regs are the machine at that leave. A run the
// interrupt model interrupted is not judged (its damage is the model's).
func (m *Machine) SetGuard(g *Guard) {
	if g == nil {
		C.tm_guard(m.c, 0, 0, 0)
		return
	}
	part := 0
	if g.Reentry != 0 {
		part = 1
		if s := m.watchSplit; s != 0 && g.Reentry >= s {
			part = 2
		}
	}
	C.tm_guard(m.c, 1, C.int(part), C.uint64_t(g.SPMax))
}

// ExpectLeave tells the guard where the current watched run must leave to
// (0: not known); every enter forgets it. Call it from a host function.
func (m *Machine) ExpectLeave(pc uint64) { m.c.want_leave = C.uint64_t(pc) }

// SetCallLimit bounds the instructions of each call of a many-call run
// (0: no bound): a call is what runs while the watch's tag word
// (WatchOptions.Tag) holds one value. A call that exceeds it stops the
// run as the instruction limit does (KindLimit, "per call").
func (m *Machine) SetCallLimit(n uint64) {
	m.callLimit = n
	C.tm_call_limit(m.c, C.uint64_t(n))
}

// InterruptFunc runs when the interrupt model interrupts a run at the
// instruction boundary before pc; Regs and memory are the interrupted
// state (the registers must not be changed). A returned error stops the run
// as a host function's error does.
type InterruptFunc func(m *Machine, pc uint64) error

// Interrupts models an asynchronous interrupt at every instruction
// boundary of the code in [lo, hi), which must lie inside the watched
// range: each run of it (from an enter event of the watch to the next) is
// interrupted once, before its k-th instruction, k = 0, 1, 2, ... over
// successive runs (a run shorter than k restarts the cycle at 0), so n
// runs of an n-instruction path interrupt each boundary once; while
// SetInterrupting(false), runs go uninterrupted (a baseline). At the
// interrupt fn runs (in Go), then the depth bytes below the stack pointer
// (but the watch's WatchOptions.Keep bytes right below it) are overwritten
// with the watch's poison pattern, as the interrupt's own frame would
// overwrite them. One C code hook over the range, no memory
// hook. Call it before the code first runs; it flushes the range's
// translations. A zero range turns it off.
func (m *Machine) Interrupts(lo, hi uint64, depth int, fn InterruptFunc) error {
	m.interrupt = fn
	if err := ucCheck(C.tm_interrupts(m.c, C.uint64_t(lo), C.uint64_t(hi), C.uint32_t(depth))); err != nil {
		return fmt.Errorf("emu: arming interrupts on %#x-%#x: %w", lo, hi, err)
	}
	if hi > lo {
		return m.FlushCode(lo, hi)
	}
	return nil
}

// SetInterrupting turns the armed interrupt model on or off from the next
// run on (it is on after Interrupts).
func (m *Machine) SetInterrupting(on bool) {
	m.c.irq_on = 0
	if on {
		m.c.irq_on = 1
	}
}

// DrainWatch hands every logged watch event to fn, in order, each with the
// probed memory accesses logged before it, and empties both logs. The
// accesses logged after the last event are returned (with the overflow
// flag of the access log). Event and slices are reused after fn returns.
func (m *Machine) DrainWatch(fn func(*WatchEvent)) (rest []Access, overflow bool) {
	all, overflow := m.AppendAccesses(m.accbuf[:0])
	m.accbuf = all
	n := int(m.c.wn)
	ev := &m.wev
	prev := 0
	log := unsafe.Slice(m.c.wlog, n)
	for i := range log {
		e := &log[i] // points into the C log: no copy of its 700 bytes
		upto := min(int(e.naccess), len(all))
		ev.Accesses = all[prev:upto]
		prev = max(prev, upto)
		ev.Enter, ev.PC = e.enter != 0, uint64(e.pc)
		ev.Tag = m.Arch.Word(unsafe.Slice((*byte)(unsafe.Pointer(&e.tag)), 8))
		ev.Below = m.Arch.Word(unsafe.Slice((*byte)(unsafe.Pointer(&e.below)), 8))
		ev.Regs = (*regs.RegFile)(unsafe.Pointer(&e.regs[0])) // uint64_t[TM_NREGS]
		ev.Above = nil
		if e.above_ok != 0 {
			ev.Above = unsafe.Slice((*byte)(unsafe.Pointer(&e.above[0])), WatchAbove)
		}
		fn(ev)
	}
	m.c.wn = 0
	return all[prev:], overflow
}

// SetCounting turns block execution counting on or off (it is off after
// New). The instruction limit works either way.
func (m *Machine) SetCounting(on bool) {
	m.c.counting = 0
	if on {
		m.c.counting = 1
	}
}

// FlushCode drops Unicorn's translations of [begin, end): needed after code
// is rewritten (call-site patching), or the old translation keeps running.
func (m *Machine) FlushCode(begin, end uint64) error {
	return ucCheck(C.tm_remove_cache(m.c, C.uint64_t(begin), C.uint64_t(end)))
}

// PatchCode writes code bytes and flushes their translation.
func (m *Machine) PatchCode(addr uint64, code []byte) error {
	if err := m.WriteMem(addr, code); err != nil {
		return err
	}
	return m.FlushCode(addr, addr+uint64(len(code)))
}

// DefaultLimit is the instruction limit of a run without one.
const DefaultLimit = 50_000_000

// RunOptions bound a run. Zero values take the defaults.
type RunOptions struct {
	Limit   uint64        // instructions (checked at block starts); default DefaultLimit
	Timeout time.Duration // wall clock; default 10s
}

// Run executes from entry until the pc reaches until. It returns nil only
// when until was reached; anything else is an *Error.
func (m *Machine) Run(entry, until uint64, opt RunOptions) error {
	if m.closed {
		return errors.New("emu: machine is closed")
	}
	if opt.Limit == 0 {
		opt.Limit = DefaultLimit
	}
	if opt.Timeout <= 0 {
		opt.Timeout = 10 * time.Second
	}
	m.cbErr, m.cbPC = nil, 0
	// The timer stops the engine from its own goroutine; the mutex keeps it
	// from touching an engine that has finished (or been closed).
	var mu sync.Mutex
	running := true
	timer := time.AfterFunc(opt.Timeout, func() {
		mu.Lock()
		if running {
			C.tm_timeout(m.c)
		}
		mu.Unlock()
	})
	uerr := C.tm_run(m.c, C.uint64_t(entry), C.uint64_t(until), C.uint64_t(opt.Limit))
	mu.Lock()
	running = false
	mu.Unlock()
	timer.Stop()
	timedOut := m.c.timed_out != 0
	regsNow := m.Regs()
	pc := regsNow[m.Arch.PC]
	executed := uint64(m.c.insns)
	e := &Error{Arch: m.Arch.Name, PC: pc, Regs: regsNow, Executed: executed}
	switch {
	case uerr != C.UC_ERR_OK:
		e.Kind, e.Detail = faultKind(uerr), ucErr(uerr)
		if e.Kind == KindInvalid && m.hooks.trapAsInvalid {
			if in, _, ok, err := m.insnAt(pc); ok && err == nil && in.Flow == asm.FlowTrap {
				e.Kind, e.Detail = KindTrap, in.Op+" (Unicorn: "+ucErr(uerr)+")"
			}
		}
		if m.c.fault_type != 0 {
			e.Addr, e.Size, e.HasAddr = uint64(m.c.fault_addr), int(m.c.fault_size), true
		}
		if uerr == C.UC_ERR_FETCH_UNMAPPED || uerr == C.UC_ERR_FETCH_PROT {
			if e.HasAddr {
				e.PC = e.Addr
			}
		} else if m.hooks.faultAtBlockStart && e.HasAddr {
			m.faultingInsn(e, uerr == C.UC_ERR_WRITE_UNMAPPED || uerr == C.UC_ERR_WRITE_PROT)
		}
	case m.c.stop == C.TM_STOP_LIMIT && m.c.call_limited != 0:
		e.Kind, e.Detail = KindLimit, fmt.Sprintf("instruction limit of %d per call reached", m.callLimit)
	case m.c.stop == C.TM_STOP_LIMIT:
		e.Kind, e.Detail = KindLimit, fmt.Sprintf("instruction limit of %d reached", opt.Limit)
	case m.c.stop == C.TM_STOP_CONTROL || m.c.ff_pending != 0:
		m.transfer(e)
	case m.c.stop == C.TM_STOP_PSW:
		e.Kind, e.PC = KindFault, uint64(m.c.fault_pc)
		e.Detail = fmt.Sprintf("specification exception: the PSW it loads has mask %#016x (64-bit addressing without 31-bit: EA set, BA clear), which the CPU refuses", uint64(m.c.fault_addr))
	case m.c.stop == C.TM_STOP_INTR && m.c.fault_type != 0:
		// s390x delivers an addressing exception as a program interruption
		// after the invalid-memory hook has seen the access.
		e.Kind, e.Detail = KindFault, fmt.Sprintf("program interruption %d on an invalid access", int(m.c.intno))
		e.Addr, e.Size, e.HasAddr = uint64(m.c.fault_addr), int(m.c.fault_size), true
	case m.c.stop == C.TM_STOP_INTR && m.hooks.decodeInterrupt(m, e, int(m.c.intno), pc):
		// the arch's faults and invalid instructions (x86_64.go, s390x.go)
	case m.c.stop == C.TM_STOP_INTR:
		e.Kind, e.Detail = KindTrap, fmt.Sprintf("interrupt %d (trap instruction)", int(m.c.intno))
	case m.c.stop == C.TM_STOP_GO:
		e.Kind, e.Err = KindHost, m.cbErr
		e.PC = m.cbPC
	case timedOut:
		e.Kind, e.Detail = KindTimeout, fmt.Sprintf("timeout after %v", opt.Timeout)
	case pc != until:
		e.Kind, e.Detail = KindStopped, fmt.Sprintf("stopped at %#x before reaching %#x", pc, until)
	default:
		return nil
	}
	m.describe(e)
	return e
}

// transfer fills e with the wrong transfer the guard stopped the run at.
func (m *Machine) transfer(e *Error) {
	t := &Transfer{Why: Why(m.c.ff_reason), From: uint64(m.c.ff_pc), Want: uint64(m.c.ff_want), Loops: m.c.ff_loops != 0}
	e.Kind, e.Transfer = KindControl, t
	e.Regs = *(*regs.RegFile)(unsafe.Pointer(&m.c.ff_regs[0])) // uint64_t[TM_NREGS]
	e.Regs[m.Arch.PC] = t.From
	e.PC = t.From
	t.SP, t.SPMax = e.Regs[m.Arch.SP], uint64(m.c.guard_sp_max)
	switch t.Why {
	case WrongPC:
		e.Detail = fmt.Sprintf("left to %#x, want %#x", t.From, t.Want)
	case Reentry:
		e.Detail = fmt.Sprintf("the block at %#x called straight back into the guarded code", t.From)
	case SPAbove:
		e.Detail = fmt.Sprintf("left with sp %#x above %#x", t.SP, t.SPMax)
	}
	if t.Loops {
		e.Detail += "; control went straight back in: it repeats for ever"
	}
}

// insnAt decodes the instruction at pc from guest memory (up to 16 bytes,
// fewer at the end of a region); mapped is false when pc is not in guest
// memory.
func (m *Machine) insnAt(pc uint64) (in asm.Inst, code []byte, mapped bool, err error) {
	for n := 16; n > 0; n-- {
		if code = m.span(pc, n); code != nil {
			break
		}
	}
	if code == nil {
		return asm.Inst{}, nil, false, errors.New("pc not in guest memory")
	}
	in, err = m.dis.Decode(code, pc)
	return in, code, true, err
}

// maxBlockInsns bounds the walk of faultingInsn (QEMU's TCG_MAX_INSNS is 512).
const maxBlockInsns = 512

// faultingInsn moves e.PC from the start of the translated block (where an
// arch with faultAtBlockStart leaves it) to the first instruction of the
// block with a load (store) covering the faulting address, computed from
// the registers at the fault: the instructions before it have run, it has
// not. Without memory facts for an instruction on the way the pc stays and
// the detail says so.
func (m *Machine) faultingInsn(e *Error, store bool) {
	pc := e.PC
	for i := 0; i < maxBlockInsns; i++ {
		in, _, mapped, err := m.insnAt(pc)
		if !mapped || err != nil || !in.MemKnown {
			e.Note = "pc is the start of the translated block: the faulting instruction is at or after it"
			return
		}
		for _, r := range in.Mem {
			if (store && !r.Store) || (!store && !r.Load) {
				continue
			}
			a := r.Addr(func(i int) uint64 { return e.Regs[i] })
			if e.Addr >= a && e.Addr-a < uint64(max(r.Size, 1)) {
				e.PC, e.Regs[m.Arch.PC] = pc, pc
				return
			}
		}
		if in.Flow != asm.FlowNone {
			break // a block ends at its first branch
		}
		pc += uint64(in.Len)
	}
	e.Note = "pc is the start of the translated block: no instruction of it accesses the faulting address"
}

// faultSize is the access size of the instruction at e.PC, when known.
func (m *Machine) faultSize(e *Error) int {
	in, _, _, err := m.insnAt(e.PC)
	if err != nil {
		return 0
	}
	return max(in.LoadBytes, in.StoreBytes)
}

// badOperand reports whether the instruction at e.PC has a storage operand
// outside guest memory, and records its address in e.
func (m *Machine) badOperand(e *Error) bool {
	in, _, _, err := m.insnAt(e.PC)
	if err != nil {
		return false
	}
	for _, r := range in.Mem {
		addr := r.Addr(func(i int) uint64 { return e.Regs[i] })
		size := max(r.Size, 1)
		if m.span(addr, size) == nil {
			e.Addr, e.Size, e.HasAddr = addr, size, true
			return true
		}
	}
	return false
}

// describe fills the symbol and instruction text of an error's pc.
func (m *Machine) describe(e *Error) {
	e.Where = fmt.Sprintf("%#x", e.PC)
	if m.Image != nil {
		e.Where = m.Image.Describe(e.PC)
	}
	in, code, mapped, err := m.insnAt(e.PC)
	switch {
	case !mapped:
		e.Insn = "(pc not in mapped memory)"
	case err != nil:
		e.Insn = fmt.Sprintf("(undecodable: % x)", code[:min(len(code), 6)])
	default:
		e.Insn = in.Text
	}
}

// Executed returns the instructions run by the last Run (block granularity).
func (m *Machine) Executed() uint64 { return uint64(m.c.insns) }

// GrantInstructions lets the running machine execute n more instructions
// from now on, whatever its limit was: for a host function of a driver that
// makes many calls in one run, so that the limit bounds each batch of calls
// (a runaway one is still stopped) rather than the whole run.
func (m *Machine) GrantInstructions(n uint64) { m.c.insn_limit = m.c.insns + C.uint64_t(n) }

// UnicornVersion is the version of the Unicorn library in use, and the API
// version the binding was compiled against.
func UnicornVersion() (runtime, compiled string) {
	var maj, min C.uint
	v := uint32(C.tm_version(&maj, &min)) // (major<<24)|(minor<<16)|(patch<<8)|extra
	return fmt.Sprintf("%d.%d.%d", maj, min, (v>>8)&0xff), fmt.Sprintf("%d.%d", C.tm_api_major(), C.tm_api_minor())
}

// Call runs the guest function at fn as a C call from code whose stack
// pointer is sp: arguments in the argument registers, the return address
// exit pushed (x86-64) or in the link register (s390x). It returns when the
// function returns to exit.
func (m *Machine) Call(fn, exit, sp uint64, args []uint64, opt RunOptions) error {
	if len(args) > len(m.Arch.Args) {
		return fmt.Errorf("emu: %d arguments, %s passes at most %d in registers", len(args), m.Arch.Name, len(m.Arch.Args))
	}
	for i, v := range args {
		m.SetReg(m.Arch.Args[i], v)
	}
	if m.Arch.Link < 0 {
		sp -= 8
		var b [8]byte
		m.Arch.PutWord(b[:], exit)
		if err := m.WriteMem(sp, b[:]); err != nil {
			return fmt.Errorf("emu: pushing the return address: %w", err)
		}
	} else {
		m.SetReg(m.Arch.Link, exit)
	}
	m.SetReg(m.Arch.SP, sp)
	return m.Run(fn, exit, opt)
}
