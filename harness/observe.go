package harness

import (
	"slices"

	"trampemu/emu"
	"trampemu/regs"
	"trampemu/trampolines"
)

// poisoned reports whether the n bytes at addr still hold the poison
// pattern of the words they fall in (any alignment), i.e. whether nothing
// wrote them since the invocation began; only bytes inside [lo, hi) count.
func poisoned(a *regs.Arch, m *emu.Machine, addr uint64, n int, lo, hi uint64) bool {
	if addr < lo || addr+uint64(n) > hi || n <= 0 {
		return false
	}
	return poisonedBytes(a, m.Mem(addr, n), addr)
}

// poisonedBytes reports whether got, the bytes found at addr, equal the
// poison pattern of the words they fall in.
func poisonedBytes(a *regs.Arch, got []byte, addr uint64) bool {
	if len(got) == 0 {
		return false
	}
	if len(got) == 8 && addr&7 == 0 {
		return a.Word(got) == emu.Poison(addr)
	}
	for i, g := range got {
		b := addr + uint64(i)
		if g != a.WordByte(emu.Poison(b&^7), int(b&7)) {
			return false
		}
	}
	return true
}

// PoisonDepth is how far below the entry sp the stack is poisoned: more
// than any trampoline's frame reaches (s390x: 24 + 352 + the called
// function's 160-byte area = 536 bytes; x86-64 224).
const PoisonDepth = 640

// AboveWindow is how many bytes above the entry sp are compared before and
// after each invocation (the caller's frame, which the trampoline must not
// write except where its ABI lets it).
const AboveWindow = emu.WatchAbove

// Access is one probed load or store of the trampoline code (emu's record,
// plain data).
type Access = emu.Access

// RunFacts are what every invocation of a harness is checked against that
// its register files do not show; the harness copies them into each
// Invocation, so the observations carry their own expectations.
type RunFacts struct {
	// Ops is function_trace_op: the struct ftrace_ops pointer the entry
	// trampoline must pass to ftrace_ops_list_func as its op argument.
	Ops uint64
	// DriverSP is the checked driver's sp, the frame of the traced
	// functions' caller's caller: a frame chain at a host call must reach
	// it.
	DriverSP uint64
	// DriverRecord is the frame record the driver's frame-pointer
	// register points to (arm64: the end of every frame-record chain), 0
	// on an arch without one.
	DriverRecord uint64
	// GraphActive says a graph user was registered when the run began
	// (the entry variant's graph path is on).
	GraphActive bool
	// PoisonXor is the constant of the poison pattern: every word at addr
	// below the entry sp held emu.PoisonWith(PoisonXor, addr) as the run
	// began (emu.Poison is the pattern's home).
	PoisonXor uint64
	// Clobbered[i] is the value a clobbering host function leaves in
	// register i when it is volatile (emu.ClobberValue).
	Clobbered regs.RegFile
}

// Invocation is one run of a trampoline: from the first block executed in
// the trampolines' code until control leaves it for code outside it (host
// calls excepted).
type Invocation struct {
	RunFacts
	Role    trampolines.Role
	EnterPC uint64
	Before  regs.RegFile // at the first instruction
	After   regs.RegFile // at the first instruction outside (the flags 0 unless a user gets full regs: emu.Machine.SetLeaveFlags)
	Left    bool         // control left the trampoline (After valid)
	LeavePC uint64

	// Func is the traced function (entry: the ip passed to the callbacks;
	// exit: the frame popped from the shadow stack), 0 when unknown.
	Func uint64
	// WantPC is where control must go: ip+MCOUNT_INSN_SIZE (or where a
	// callback redirected it) for entry; the original return address
	// ftrace_return_to_handler returned for exit. 0 when not known.
	WantPC uint64
	// EntryRet (entry) is the address the trampoline was called to return
	// to: ip + MCOUNT_INSN_SIZE (x86-64: the word at sp; s390x: r0).
	EntryRet uint64
	// Direct is set when the callbacks asked for a direct trampoline.
	Direct bool
	// DirectOps (entry) says the site's CALL_OPS literal points at a
	// direct call's ops (UserSet.DirectOps): the trampoline must leave
	// into its direct trampoline (WantPC, Direct), and may do so without
	// calling into the kernel.
	DirectOps bool
	// WantLink (s390x) is the r14 the kernel left in gprs[14] for the
	// traced function (return_to_handler when graph tracing hooked it) or,
	// on exit, the original return address. HasLink says it is set.
	WantLink uint64
	HasLink  bool
	// Pg (entry) says the traced function called the trampoline from
	// gcc's -pg call site after its prologue (Tramp.Pg); Record is then
	// the frame record its x29 pointed to at entry: {its caller's fp, its
	// lr, the parent}.
	Pg     bool
	Record [2]uint64

	// FullRegs records, per kprobe-style callback run, whether
	// arch_ftrace_get_regs returned pt_regs (true) or NULL.
	FullRegs []bool
	// IPMods are the redirects ip-modifying users (live patch, error
	// injection) made in this invocation.
	IPMods []IPMod
	// StackWalks are the stack walks modelled users made in this run (the
	// bpf-ret user's bpf_get_stackid at a return), each with the chain
	// the walk must give.
	StackWalks []StackWalk
	// Interrupted says the interrupt model interrupted this run
	// (Options.Interrupts); Interrupt is what it saw.
	Interrupted bool
	Interrupt   Interrupt
	// BelowEntry is the word just below the entry sp before the stack
	// below it was poisoned (x86-64 return_to_handler: the slot the
	// traced function's ret popped, still holding return_to_handler;
	// riscv64 v5.11-v6.2: the parent the call site saved).
	BelowEntry uint64
	// Back (entry) is how far the ip the entry hands the callbacks lies
	// before EntryRet (ftrace.SiteForm.Back of the entry's site form).
	Back uint64
	// SiteLink (entry) says the call site saved the link register in the
	// word right below sp and reloads it from there after the trampoline
	// returns (ftrace.SiteForm.LinkBelow, riscv64 v5.11-v6.2): Before's
	// link register is then that saved parent (the trampoline was
	// entered with the return address into the site in it, EntryRet), and
	// After's is the word below sp at the leave, what the site's reload
	// gives the traced function.
	SiteLink bool

	Calls    []HostCall
	Reads    []Read
	CWrites  []CWrite
	Accesses []Access // probed loads and stores of the trampoline code
	Overflow bool     // the access log overflowed

	// WrongTransfer: the run was stopped at this invocation's leave, a
	// control transfer known to be wrong (Batch.Stop.Transfer says which).
	WrongTransfer bool

	// Probed is true when the invocation's memory accesses were logged
	// (Accesses is complete); see Options.ProbeBudget.
	Probed bool

	AboveBefore, AboveAfter []byte    // AboveWindow bytes from the entry sp
	GoWrites                []GoWrite // guest memory written by Go (the kernel stand-ins), in order
	poisonLo, poisonHi      uint64
}

// HostCall is a call from the trampoline into Go.
type HostCall struct {
	Name string
	PC   uint64 // the stub address
	// Regs are the registers at the call that the checks read (hostRegsOf:
	// pc, sp, the frame pointer, the link register, the arguments), the
	// others 0; every register with Options.AllHostRegs.
	Regs regs.RegFile
	// Frame is the structure handed to C (ftrace_regs, fgraph_ret_regs), if
	// any: its layout, its address, and a copy of its bytes as the
	// trampoline left them (before Go ran). Slots decodes them.
	Layout *regs.Layout
	Base   uint64
	Raw    []byte
	// Backchain (s390x) is the chain of frames from r15 (each frame's word
	// at 152), up to a zero, a word that does not point up the stack, or
	// 1024 frames.
	Backchain []uint64
	// ChainLoads are the words the frame-chain walk (Backchain) read, as
	// the kernel's unwinder reads them: a slot it reads is not unused.
	ChainLoads []Access
	Return     uint64 // what the Go function returned (when it returns a value)
	// GraphFunc (prepare_ftrace_return) is the traced function the call
	// handed the graph tracer, decoded in the entry era's ABI; it must be
	// the traced call site (the ip the callbacks get). HasGraphFunc says
	// it is set.
	GraphFunc    uint64
	HasGraphFunc bool

	arch               *regs.Arch
	poisonLo, poisonHi uint64 // the invocation's poisoned range
}

// GoWrite is a write of guest memory by the Go kernel side.
type GoWrite struct {
	Addr uint64
	Size int
	Call int // index into Invocation.Calls of the host call it happened in
}

// SlotState is one slot of a frame at a host call: Layout.Slots[Index].
type SlotState struct {
	Index   int
	Value   uint64
	Written bool // the slot no longer holds poison: the trampoline wrote it
}

// Slots decodes the frame copy into one state per slot of Layout (nil when
// the call got no frame). The copy is taken at the call and decoded only
// when asked, so checked runs pay for a memcpy, not for the decoding.
func (hc *HostCall) Slots() []SlotState {
	if hc.Layout == nil || len(hc.Raw) < hc.Layout.Size {
		return nil
	}
	out := make([]SlotState, len(hc.Layout.Slots))
	for i, s := range hc.Layout.Slots {
		b := hc.Raw[s.Off : s.Off+s.Size]
		st := SlotState{Index: i}
		if s.Size == 8 {
			st.Value = hc.arch.Word(b)
		} else {
			st.Value = uint64(hc.arch.ByteOrder.Uint32(b))
		}
		addr := hc.Base + uint64(s.Off)
		inPoison := addr >= hc.poisonLo && addr+uint64(s.Size) <= hc.poisonHi
		st.Written = !inPoison || !poisonedBytes(hc.arch, b, addr)
		out[i] = st
	}
	return out
}

// Read is one read of a frame slot (or a stack word) by C code.
type Read struct {
	Caller   string // the callback, or "kernel" for the core
	Accessor string
	Slot     string // "" for a stack word
	Addr     uint64
	Value    uint64
	Stale    bool // the word still held poison: nobody wrote it
	Call     int  // index into Invocation.Calls of the host call it happened in
}

// CWrite is a slot written by C code.
type CWrite struct {
	Caller string
	Slot   string
	Value  uint64
	Call   int // index into Invocation.Calls of the host call it happened in
}

// observer implements regs.Observer for the current invocation.
type observer struct{ h *Harness }

// stale reports whether the n bytes at addr, which read as v, still held
// poison: nobody wrote them since the invocation began.
func (o observer) stale(inv *Invocation, addr uint64, n int, v uint64) bool {
	if lo, hi := o.h.scratchLo, o.h.scratchHi; addr >= lo && addr+uint64(n) <= hi {
		return poisoned(o.h.Arch, o.h.M, addr, n, lo, hi)
	}
	if n == 8 && addr&7 == 0 {
		return v == emu.Poison(addr) && addr >= inv.poisonLo && addr+8 <= inv.poisonHi
	}
	return poisoned(o.h.Arch, o.h.M, addr, n, inv.poisonLo, inv.poisonHi)
}

func (o observer) SlotRead(f *regs.Frame, s regs.Slot, addr, v uint64, accessor string) {
	inv := o.h.inv
	if inv == nil {
		return
	}
	inv.Reads = append(inv.Reads, Read{Caller: f.Caller, Accessor: accessor, Slot: s.Name, Addr: addr, Value: v, Stale: o.stale(inv, addr, s.Size, v), Call: len(inv.Calls) - 1})
}

func (o observer) SlotWrite(f *regs.Frame, s regs.Slot, addr, v uint64, accessor string) {
	if inv := o.h.inv; inv != nil {
		inv.CWrites = append(inv.CWrites, CWrite{Caller: f.Caller, Slot: s.Name, Value: v, Call: len(inv.Calls) - 1})
	}
}

func (o observer) StackRead(f *regs.Frame, addr, v uint64, accessor string) {
	if inv := o.h.inv; inv != nil {
		inv.Reads = append(inv.Reads, Read{Caller: f.Caller, Accessor: accessor, Addr: addr, Value: v, Stale: o.stale(inv, addr, 8, v), Call: len(inv.Calls) - 1})
	}
}

// recMem is the regs.Memory the kernel stand-ins use: the machine's memory,
// with every write recorded in the current invocation.
type recMem struct{ h *Harness }

func (r recMem) ReadWord(addr uint64) uint64 { return r.h.M.ReadWord(addr) }
func (r recMem) Read(addr uint64, p []byte)  { r.h.M.Read(addr, p) }

func (r recMem) WriteWord(addr uint64, v uint64) {
	r.note(addr, 8)
	r.h.M.WriteWord(addr, v)
}

func (r recMem) Write(addr uint64, p []byte) {
	r.note(addr, len(p))
	r.h.M.Write(addr, p)
}

func (r recMem) note(addr uint64, n int) {
	if inv := r.h.inv; inv != nil {
		inv.GoWrites = append(inv.GoWrites, GoWrite{addr, n, len(inv.Calls) - 1})
	}
}

// newInvocation returns a cleared invocation, reusing a recycled one and
// its buffers. Before is set by the caller; After and the Above windows are
// valid only once written (Left, the events' copies).
func (h *Harness) newInvocation() *Invocation {
	n := len(h.free)
	if n == 0 {
		return &Invocation{AboveBefore: make([]byte, AboveWindow), AboveAfter: make([]byte, AboveWindow)}
	}
	inv := h.free[n-1]
	h.free = h.free[:n-1]
	inv.Role, inv.EnterPC, inv.Left, inv.LeavePC = "", 0, false, 0
	inv.Func, inv.WantPC, inv.EntryRet, inv.Direct, inv.DirectOps = 0, 0, 0, false, false
	inv.WantLink, inv.HasLink, inv.Pg, inv.Record = 0, false, false, [2]uint64{}
	inv.FullRegs, inv.Calls, inv.Reads, inv.CWrites = inv.FullRegs[:0], inv.Calls[:0], inv.Reads[:0], inv.CWrites[:0]
	inv.IPMods, inv.StackWalks = inv.IPMods[:0], inv.StackWalks[:0]
	inv.Interrupted, inv.Interrupt.PC, inv.Interrupt.SP, inv.Interrupt.Found = false, 0, 0, inv.Interrupt.Found[:0]
	inv.Interrupt.Caller, inv.Interrupt.ORC, inv.BelowEntry = 0, nil, 0
	inv.Back, inv.SiteLink = 0, false
	inv.Accesses, inv.Overflow, inv.Probed, inv.WrongTransfer = inv.Accesses[:0], false, false, false
	inv.GoWrites, inv.poisonLo, inv.poisonHi = inv.GoWrites[:0], 0, 0
	inv.After = regs.RegFile{} // RunFacts: set by beginInvocation
	return inv
}

func (h *Harness) recycle(inv *Invocation) {
	if len(h.free) < 4096 {
		h.free = append(h.free, inv)
	}
}

// sync brings the observations up to date: the enter/leave events and
// probed accesses the C side logged since the last sync. Every host
// function calls it first, so the invocation it belongs to is current.
func (h *Harness) sync() {
	if !h.Opts.Checks {
		return
	}
	rest, over := h.M.DrainWatch(h.onEvent)
	if inv := h.inv; inv != nil {
		inv.Accesses = append(inv.Accesses, rest...)
		inv.Overflow = inv.Overflow || over
	}
}

func (h *Harness) onEvent(ev *emu.WatchEvent) {
	if inv := h.inv; inv != nil {
		inv.Accesses = append(inv.Accesses, ev.Accesses...)
	}
	if ev.Enter {
		h.beginInvocation(ev)
	} else {
		h.endInvocation(ev)
	}
}

// beginInvocation starts an invocation at the trampoline's first block
// (the C side has poisoned the stack below sp already).
func (h *Harness) beginInvocation(ev *emu.WatchEvent) {
	a := h.Arch
	// An invocation still open here entered again without a leave: it
	// stays cut short (Left false).
	inv := h.newInvocation()
	inv.EnterPC, inv.Before, inv.BelowEntry = ev.PC, *ev.Regs, ev.Below
	inv.RunFacts = h.facts
	inv.GraphActive = h.K.GraphActive()
	if h.probing != 0 {
		inv.Probed = true
		if h.probing > 0 {
			h.probing--
		}
	}
	inv.Role = trampolines.Exit
	if h.entryUnit.Contains(ev.PC) {
		inv.Role = trampolines.Entry
	}
	sp := inv.Before[a.SP]
	form := &h.form
	inv.poisonLo, inv.poisonHi = sp-PoisonDepth, sp-uint64(form.Keep)
	copyAbove(inv.AboveBefore, ev.Above)
	if inv.Role == trampolines.Entry {
		inv.EntryRet = h.hooks.entryRet(h, inv)
		inv.WantPC, inv.Back = inv.EntryRet, form.Back()
		if form.LinkBelow && a.Link >= 0 {
			// the parent, as the site's store left it below sp
			inv.SiteLink, inv.Before[a.Link] = true, inv.BelowEntry
		}
		if h.directOps != 0 {
			inv.WantPC, inv.Direct, inv.DirectOps = h.directOps, true, true
		}
		if h.entryPg {
			// An ordinary call: the trampoline returns with the link
			// register it was called with.
			inv.Pg, inv.WantLink, inv.HasLink = true, inv.EntryRet, true
			if b := h.M.Mem(inv.Before[a.FP], 16); b != nil {
				inv.Record = [2]uint64{a.Word(b), a.Word(b[8:])}
			}
		}
	}
	h.inv = inv
	h.invCall = h.callOf(ev.Tag)
	if c := h.invCall; c != nil {
		if len(c.Invocations) == 0 {
			c.marks = h.K.Graph.Marks()
		}
		c.Invocations = append(c.Invocations, inv)
	}
}

func copyAbove(dst, src []byte) {
	if src == nil {
		clear(dst)
		return
	}
	copy(dst, src)
}

// endInvocation closes the current invocation when control leaves.
func (h *Harness) endInvocation(ev *emu.WatchEvent) {
	inv := h.inv
	if inv == nil {
		return
	}
	inv.After, inv.Left, inv.LeavePC = *ev.Regs, true, ev.PC
	if inv.SiteLink {
		// the site's reload of the link register from below sp
		inv.After[h.Arch.Link] = ev.Below
	}
	copyAbove(inv.AboveAfter, ev.Above)
	if c := h.invCall; c != nil && c.marks != nil {
		c.ends = h.K.Graph.Currs(c.ends[:0])
	}
	h.inv, h.invCall = nil, nil
	h.lastLeft = inv
}

// hostRegsOf are the registers a host call records (HostCall.Regs): the
// pc, the stack pointer, the frame pointer and the link register (the
// frame-chain walks start from them, hooks.chain), and the argument
// registers (what the checks compare with what the kernel function must
// get); reading every register at every host call cost a checked call a
// tenth of its time.
func hostRegsOf(a *regs.Arch) []int {
	out := []int{a.PC, a.SP}
	for _, i := range []int{a.FP, a.Link} {
		if i >= 0 {
			out = append(out, i)
		}
	}
	for _, i := range a.Args {
		if !slices.Contains(out, i) {
			out = append(out, i)
		}
	}
	return out
}

// noteHostCall records a host call of the current invocation; frame is the
// structure the trampoline passes (0 for none) with its layout.
func (h *Harness) noteHostCall(name string, frame uint64, layout *regs.Layout) *HostCall {
	h.sync()
	inv := h.inv
	if inv == nil {
		return nil
	}
	m := h.M
	// Built in place, reusing the frame and chain buffers of a recycled
	// invocation: a HostCall on the stack would escape (the chain hook
	// takes its registers' address) and cost an allocation per host call,
	// and a composite literal appended is built and then copied whole.
	n := len(inv.Calls)
	if n < cap(inv.Calls) {
		inv.Calls = inv.Calls[:n+1]
	} else {
		inv.Calls = append(inv.Calls, HostCall{})
	}
	hc := &inv.Calls[n]
	raw, chain, loads := hc.Raw[:0], hc.Backchain[:0], hc.ChainLoads[:0]
	*hc = HostCall{Name: name, Raw: raw, arch: h.Arch, poisonLo: inv.poisonLo, poisonHi: inv.poisonHi}
	if h.Opts.AllHostRegs {
		hc.Regs = m.Regs()
	} else {
		m.RegsInto(&hc.Regs, h.hostRegSet) // prefetched in C (init): no engine call
	}
	hc.PC = hc.Regs[h.Arch.PC]
	if frame != 0 && layout != nil {
		if fb := m.Mem(frame, layout.Size); fb != nil {
			hc.Layout, hc.Base = layout, frame
			hc.Raw = append(hc.Raw, fb...)
		}
	}
	if h.hooks.chain != nil {
		hc.Backchain, hc.ChainLoads = h.hooks.chain(h, chain, loads, &hc.Regs)
	}
	return hc
}
