package harness

import (
	"fmt"

	"trampemu/emu"
	"trampemu/trampolines"
)

// The checked driver (trampolines/runtime/*.S, trampemu_checked_loop) makes
// its calls from a table of trampolines.DriverBatch records in guest memory
// (layout: trampolines.Rec*). Go fills a batch at the driver's one host call
// (trampemu_next) and collects the results of the previous one there, so a
// checked call costs no host call of its own. The driver keeps the address
// of the record being called in trampemu_cursor, which the C watch log
// copies into every trampoline event (emu.WatchEvent.Tag): that ties each
// invocation to its call.
const (
	recTarget    = trampolines.RecTarget
	recRegs      = trampolines.RecRegs
	recStack     = trampolines.RecStack
	recOut       = trampolines.RecOut
	recRetbuf    = trampolines.RecRetbuf
	recSize      = trampolines.RecSize
	recStackArgs = trampolines.RecStackArgs
	driverBatch  = trampolines.DriverBatch

	symCursor = "trampemu_cursor"
	symEnd    = "trampemu_end"
	symCalls  = "trampemu_calls"
)

// batchCall is one call of the current batch and its record's address.
type batchCall struct {
	c   *Call
	rec uint64
}

// fillBatch asks gen for up to driverBatch more calls and writes their
// records; the driver's cursor goes back to the first. With no calls left
// the batch is empty and the driver exits. A call the driver cannot make
// is an error, and the batch is dropped.
func (h *Harness) fillBatch() error {
	a, m := h.Arch, h.M
	h.batch = h.batch[:0]
	rec := h.callTable
	gprs := 0
	for gprs < trampolines.RecGPRs && gprs < len(a.Regs) && gprs != a.PC && gprs != a.Flags {
		gprs++
	}
	for len(h.batch) < driverBatch && h.next < h.total {
		c := h.gen(h.next)
		h.next++
		if len(c.Args) > len(a.Args)+recStackArgs {
			h.batch = h.batch[:0]
			return fmt.Errorf("workload %s: %d arguments, the checked driver passes at most %d (%d on the stack)",
				c.Workload, len(c.Args), len(a.Args)+recStackArgs, recStackArgs)
		}
		if c.InMemory {
			c.Args[0] = rec + recRetbuf
		}
		in := &c.In // in place: a copy would escape to the arch hook
		var stack [recStackArgs]uint64
		for i, v := range c.Args {
			if i < len(a.Args) {
				in[a.Args[i]] = v
			} else {
				stack[i-len(a.Args)] = v
			}
		}
		in[a.SP] = h.driverSP
		if h.hooks.callRegs != nil {
			h.hooks.callRegs(h, in)
		}
		r := m.Mem(rec, recSize)
		if r == nil {
			h.batch = h.batch[:0]
			return fmt.Errorf("the checked driver's call record at %#x is outside %s guest memory", rec, a.Name)
		}
		a.PutWord(r[recTarget:], c.Func)
		// The general registers before pc and flags (x86-64 and s390x
		// 16, arm64 x0-x30), as trampolines.RuntimeDefines lays them out.
		a.PutWords(r[recRegs:], in[:gprs])
		for i, v := range stack {
			a.PutWord(r[recStack+8*i:], v)
		}
		h.batch = append(h.batch, batchCall{c, rec})
		rec += recSize
	}
	m.WriteWord(h.cursorWord, h.callTable)
	m.WriteWord(h.endWord, rec)
	// The run's instruction limit bounds each batch.
	limit := h.Opts.Limit
	if limit == 0 {
		limit = emu.DefaultLimit
	}
	m.GrantInstructions(limit)
	m.SetCallLimit(h.Opts.CallLimit) // the next call's count starts here
	return nil
}

// finishBatch hands the batch's finished calls (those below the driver's
// cursor) to OnCall with their results; with cut set, the call at the
// cursor was interrupted by the end of the run and is handed over unfinished
// (Done false). Calls after it never ran.
func (h *Harness) finishBatch(cut bool) {
	m := h.M
	cursor := m.ReadWord(h.cursorWord)
	for _, b := range h.batch {
		c := b.c
		switch {
		case b.rec < cursor:
			c.Done = true
			if c.InMemory {
				c.Results = append(c.Results[:0], m.ReadWord(b.rec+recRetbuf), m.ReadWord(b.rec+recRetbuf+8))
			} else {
				c.Results = c.Results[:0]
				for i := range c.Want {
					c.Results = append(c.Results, m.ReadWord(b.rec+recOut+uint64(8*min(i, len(h.Arch.Ret)-1))))
				}
			}
		case b.rec == cursor && cut:
		default:
			continue
		}
		h.done(c)
	}
	h.batch = h.batch[:0]
}

// callOf returns the call of the batch whose record address the driver's
// cursor held (a watch event's tag), or nil.
func (h *Harness) callOf(tag uint64) *Call {
	if tag < h.callTable {
		return nil
	}
	i := (tag - h.callTable) / recSize
	if i >= uint64(len(h.batch)) {
		return nil
	}
	return h.batch[i].c
}
