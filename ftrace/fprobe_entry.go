package ftrace

import (
	"fmt"
	"slices"

	"trampemu/regs"
)

// dataWords is SIZE_IN_LONG(fp->entry_data_size), read from the guest
// struct; a corrupt (huge) size is capped so the arithmetic cannot wrap.
func (m *Fprobes) dataWords(fp *Fprobe) int {
	v := m.mem.ReadWord(fp.addr + FprobeOffDataSize)
	return int((min(v, 1<<20) + 7) / 8)
}

// reservedWords is fprobe_fgraph_entry's sizing pass (kernel/trace/fprobe.c,
// v6.14+): header + data words of every probe with an exit handler; the
// disabled flag is ignored here, since a probe may be enabled before the
// second pass.
func (m *Fprobes) reservedWords(nodes []*Fprobe) int {
	r := 0
	for _, fp := range nodes {
		if fp.ExitHandler == nil {
			continue
		}
		r += m.codec.Words() + m.dataWords(fp)
	}
	return r
}

// fgraphEntry is fprobe_fgraph_entry (kernel/trace/fprobe.c, v6.14+; named
// fprobe_entry before the late-2025 fast path), the entry callback of the
// shared fgraph_ops.
func (m *Fprobes) fgraphEntry(g *Graph, trace *GraphEnt, ops *GraphOps, fregs *regs.Frame) bool {
	m.stats.Entries++
	// if (WARN_ON_ONCE(!fregs)) return 0;
	if fregs == nil {
		g.warn(WarnFprobeNoFregs, fmt.Sprintf("func %#x", trace.Func))
		return false
	}
	// A snapshot of the RCU list: handlers may (un)register probes.
	m.stats.HashLookups++ // find_first_fprobe_node(func)
	nodes := slices.Clone(m.table[trace.Func])
	if len(nodes) == 0 {
		return false
	}
	hw := m.codec.Words()
	reserved := m.reservedWords(nodes)
	var data uint64
	if reserved > 0 {
		addr, ok := g.ReserveData(ops, reserved*8)
		if !ok {
			// Every enabled probe at the address counts a miss and no entry
			// handler runs (fast-path probes are not fgraph's).
			m.stats.ReserveFailed++
			for _, fp := range nodes {
				if fp.registered && !m.fprobeDisabled(fp) && !fp.viaFtrace {
					m.incMissed(fp)
				}
			}
			return false
		}
		data = addr
	}
	// ret_ip = ftrace_regs_get_return_address(fregs).
	retIP, _ := fregs.ReturnAddress()
	used := 0
	for _, fp := range nodes {
		if !fp.registered || m.fprobeDisabled(fp) || fp.viaFtrace {
			continue
		}
		sw := m.dataWords(fp)
		var d uint64
		if sw != 0 && fp.ExitHandler != nil {
			d = data + 8*uint64(used+hw)
		}
		ret := 0
		if fp.EntryHandler != nil { // __fprobe_handler
			ret = fp.EntryHandler(fp, trace.Func, retIP, fregs.With(fpName(fp)), d)
		}
		// If entry_handler returns !0, nmissed is not counted but the exit
		// handler is skipped.
		if ret != 0 || fp.ExitHandler == nil {
			continue
		}
		if used+hw+sw > reserved {
			g.warn(WarnFprobeBudget, fmt.Sprintf("%s: %d+%d+%d words > %d reserved", fpName(fp), used, hw, sw, reserved))
			continue
		}
		if m.writeHeader(data+8*uint64(used), fp, sw) {
			used += hw + sw
		}
	}
	// memset(fgraph_data + used, 0, (reserved_words - used) * sizeof(long)):
	// the unused tail in WORDS (the 2026 fix; the bug cleared bytes).
	for i := used; i < reserved; i++ {
		m.mem.WriteWord(data+8*uint64(i), 0)
		g.stats.WrittenWords++
	}
	m.stats.LastReservedWords, m.stats.LastUsedWords = reserved, used
	// If any exit_handler is set, data must be used.
	return used != 0
}

// writeHeader is write_fprobe_header (kernel/trace/fprobe.c, v6.14+): a
// pointer or size the encoding cannot hold WARNs (once in the kernel; here
// every time, counted) and the probe is not recorded.
func (m *Fprobes) writeHeader(at uint64, fp *Fprobe, sizeWords int) bool {
	w, ok := m.codec.Encode(fp.addr, sizeWords)
	if !ok {
		m.g.warn(WarnFprobeHeader, fmt.Sprintf("%s: struct fprobe at %#x, %d words, %s header on %s", fpName(fp), fp.addr, sizeWords, m.codec.Enc, m.arch.Name))
		return false
	}
	for i, v := range w {
		m.mem.WriteWord(at+8*uint64(i), v)
		m.g.stats.WrittenWords++
	}
	return true
}

// fgraphReturn is fprobe_return (kernel/trace/fprobe.c, v6.14+): walk the
// [header][data...] records and call the exit handler of every probe still
// registered and enabled, with a pointer to the words its entry handler
// wrote. A zero header word ends the walk (on x86-64 the kernel decodes it
// to the pattern, no probe, and steps over the zero words to the same
// effect). No data at all (fgraph_retrieve_data NULL: the frame was accepted
// by another user and BIT(0) made this slot-0 user run) returns quietly.
func (m *Fprobes) fgraphReturn(g *Graph, trace *GraphRet, ops *GraphOps, fregs *regs.Frame) {
	addr, size, ok := g.RetrieveData(ops)
	if !ok {
		m.stats.NoData++
		return
	}
	m.stats.Exits++
	words := size / 8
	// ret_ip = ftrace_regs_get_instruction_pointer(fregs): the original
	// return address, set by ftrace_return_to_handler.
	retIP, _ := fregs.InstructionPointer()
	hw := m.codec.Words()
	var hdr [2]uint64
	for cur := 0; words > cur; {
		if cur+hw > words {
			g.warn(WarnFprobeOverflow, fmt.Sprintf("header at word %d of %d", cur, words))
			return
		}
		for k := 0; k < hw; k++ {
			hdr[k] = m.mem.ReadWord(addr + 8*uint64(cur+k))
			g.stats.ReadWords++
		}
		fpAddr, sw := m.codec.Decode(hdr[:hw])
		if hdr[0] == 0 || fpAddr == 0 {
			return
		}
		cur += hw
		// is_fprobe_still_exist(fp) && !fprobe_disabled(fp)
		m.stats.HashLookups++
		if fp := m.byAddr[fpAddr]; fp != nil && !m.fprobeDisabled(fp) {
			if sw < 0 || cur+sw > words {
				// WARN_ON_ONCE(curr + size > size_words)
				g.warn(WarnFprobeOverflow, fmt.Sprintf("record at word %d: %d words of %d", cur, sw, words))
				return
			}
			var d uint64
			if sw > 0 {
				d = addr + 8*uint64(cur)
			}
			if fp.ExitHandler != nil {
				fp.ExitHandler(fp, trace.Func, retIP, fregs.With(fpName(fp)), d)
			}
		}
		if sw < 0 || sw > words-cur { // the loop would end anyway; no wrap-around
			return
		}
		cur += sw
	}
}

// ftraceEntry is fprobe_ftrace_entry (kernel/trace/fprobe.c, late 2025): the
// entry-only fast path. It takes the recursion lock itself (a refused call
// returns without counting nmissed) and runs the entry handler of every
// enabled probe at ip that has no exit handler, with data NULL.
func (m *Fprobes) ftraceEntry(ip, parentIP uint64, _ *Ops, fregs *regs.Frame) {
	m.stats.FtraceEntries++
	t := m.g.cur
	bit, ok := t.trylock()
	if !ok {
		m.stats.FtraceRecursion++
		return
	}
	defer t.unlock(bit)
	for _, fp := range slices.Clone(m.table[ip]) {
		if !fp.registered || m.fprobeDisabled(fp) || fp.ExitHandler != nil {
			continue
		}
		if fp.EntryHandler != nil {
			fp.EntryHandler(fp, ip, parentIP, fregs.With(fpName(fp)), 0)
		}
	}
}
