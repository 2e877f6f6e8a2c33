package mutate

import (
	"fmt"
	"hash/fnv"

	"trampemu/asm"
	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
)

// observations are what one check saw of each call, as a list of values
// per call: the workload's results; per trampoline run where it left to
// and the registers then; per call into C its name, its argument
// registers and every slot of the frame it got ("unwritten" when the
// trampoline did not write it); and the caller's stack words after the
// run. Code addresses count as symbol+offset.
type observations struct {
	a     *regs.Arch
	im    *asm.Image
	calls []callObs
	// ignored are host-call arguments the kernel does not use (see
	// archHooks.framePointerArgs): host function name -> argument index.
	ignored map[string]int
	// perWorkload counts the calls seen of each workload; baseline is how
	// many of them are compared: the check's own calls. The calls the
	// interrupt model adds after them depend on how many instruction
	// boundaries the trampoline has, so they differ between any mutant
	// and its original; what they find counts through the findings.
	perWorkload map[string]int
	baseline    int
	// read are the frame slots C code read in any call.
	read map[string]bool
	// skipReg: per role, the registers not observed after a run
	// (archHooks.meaningless); scratch: archHooks.scratchAbove.
	skipReg map[trampolines.Role][]bool
	scratch int
	// detailed keeps every value (for diff); otherwise only each call's
	// hash is kept: a mutant is run again detailed only when a hash
	// differs (a runaway mutant makes millions of runs).
	detailed bool
}

type callObs struct {
	name string // workload#n
	hash uint64 // of every value, in order
	vals []obsVal
}

// What an obsVal is.
const (
	obsDone uint8 = iota
	obsResult
	obsRole
	obsLeave
	obsReg
	obsCall
	obsArg
	obsSlot
	obsAbove
)

// obsVal is one observed value: what it is (kind, the run, the call into C
// of that run, the index of the register, argument, slot or word) and its
// normalised value.
type obsVal struct {
	kind      uint8
	inv, call int16
	idx       int16
	layout    *regs.Layout // obsSlot
	val       uint64
}

// Values no observation holds otherwise: a slot the trampoline did not
// write, a caller's stack word it did not change.
const (
	unwritten = 0x7fff_dead_0000_0001
	unchanged = 0x7fff_dead_0000_0002
)

func newObservations(a *regs.Arch, ignored map[string]int, detailed bool) *observations {
	h := hooks[a.Name]
	o := &observations{a: a, ignored: ignored, perWorkload: map[string]int{}, read: map[string]bool{},
		skipReg: map[trampolines.Role][]bool{}, scratch: h.scratchAbove, detailed: detailed}
	for role, names := range h.meaningless {
		skip := make([]bool, len(a.Regs))
		for _, n := range names {
			skip[a.MustReg(n)] = true
		}
		o.skipReg[role] = skip
	}
	return o
}

func (o *observations) started(h *harness.Harness) error {
	o.im = h.Image
	return nil
}

// value normalises v: a code address becomes a hash of symbol+offset.
func (o *observations) value(v uint64) uint64 {
	if o.im == nil {
		return v
	}
	for _, s := range o.im.Sections {
		if s.Exec && v >= s.Addr && v < s.Addr+uint64(len(s.Data)) {
			if name, off, ok := o.im.Lookup(v); ok {
				h := fnv.New64a()
				h.Write([]byte(name))
				return h.Sum64() ^ off ^ 1<<63
			}
		}
	}
	return v
}

func hashString(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

func (o *observations) observe(c *harness.Call) {
	a := o.a
	n := o.perWorkload[c.Workload]
	o.perWorkload[c.Workload]++
	if o.baseline > 0 && n >= o.baseline {
		return
	}
	co := callObs{name: fmt.Sprintf("%s#%d", c.Workload, n)}
	h := fnv.New64a()
	var b [8]byte
	hash := func(kind uint8, idx int, v uint64) {
		b[0], b[1], b[2] = kind, byte(idx), byte(idx>>8)
		h.Write(b[:3])
		for i := range b {
			b[i] = byte(v >> (8 * i))
		}
		h.Write(b[:])
	}
	add := func(kind uint8, inv, call, idx int, v uint64) {
		hash(kind, idx, v)
		if o.detailed {
			co.vals = append(co.vals, obsVal{kind: kind, inv: int16(inv), call: int16(call), idx: int16(idx), val: v})
		}
	}
	done := uint64(0)
	if c.Done {
		done = 1
	}
	add(obsDone, 0, 0, 0, done)
	for k, v := range c.Results {
		add(obsResult, 0, 0, k, o.value(v))
	}
	for i, inv := range c.Invocations {
		add(obsRole, i, 0, 0, hashString(string(inv.Role)))
		leave := uint64(unwritten)
		if inv.Left {
			leave = o.value(inv.LeavePC)
		}
		add(obsLeave, i, 0, 0, leave)
		skip := o.skipReg[inv.Role]
		for r := range a.Regs {
			if r != a.Flags && r != a.PC && (skip == nil || !skip[r]) {
				add(obsReg, i, 0, r, o.value(inv.After[r]))
			}
		}
		for j := range inv.Calls {
			hc := &inv.Calls[j]
			add(obsCall, i, j, 0, hashString(hc.Name))
			skip, ok := o.ignored[hc.Name]
			for k, r := range a.Args {
				if !ok || k != skip {
					add(obsArg, i, j, k, o.value(hc.Regs[r]))
				}
			}
			if hc.Layout == nil {
				continue
			}
			for _, st := range hc.Slots() {
				v := uint64(unwritten)
				if st.Written {
					v = o.value(st.Value)
				}
				hash(obsSlot, st.Index, v)
				if o.detailed {
					co.vals = append(co.vals, obsVal{kind: obsSlot, inv: int16(i), call: int16(j), idx: int16(st.Index), layout: hc.Layout, val: v})
				}
			}
		}
		for _, rd := range inv.Reads {
			if rd.Slot != "" {
				o.read[rd.Slot] = true
			}
		}
		// The caller's stack words the run changed (a word it left alone
		// may hold anything an earlier run left in a dead scratch slot).
		for off := o.scratch; off+a.WordSize <= len(inv.AboveAfter) && off+a.WordSize <= len(inv.AboveBefore); off += a.WordSize {
			v := uint64(unchanged)
			if after := a.Word(inv.AboveAfter[off : off+a.WordSize]); after != a.Word(inv.AboveBefore[off:off+a.WordSize]) {
				v = o.value(after)
			}
			add(obsAbove, i, 0, off, v)
		}
	}
	co.hash = h.Sum64()
	o.calls = append(o.calls, co)
}

// same reports whether m saw exactly what o saw (by the hashes).
func (o *observations) same(m *observations) bool {
	if len(o.calls) != len(m.calls) {
		return false
	}
	for i := range o.calls {
		if o.calls[i].hash != m.calls[i].hash {
			return false
		}
	}
	return true
}

// difference is one observation that differs between the original and a
// mutant: Slot is set for a frame slot.
type difference struct {
	Call, What, Slot string
	kind             uint8
	orig, mutant     uint64 // the two values (normalised)
}

func (d difference) String() string { return d.Call + ": " + d.What }

// describe names an observed value.
func (o *observations) describe(v obsVal) (what, slot string) {
	run := fmt.Sprintf("run %d", v.inv)
	switch v.kind {
	case obsDone:
		return "whether the call finished", ""
	case obsResult:
		return fmt.Sprintf("result %d", v.idx), ""
	case obsRole:
		return run + ": which trampoline ran", ""
	case obsLeave:
		return run + ": where it left to", ""
	case obsReg:
		return fmt.Sprintf("%s: %%%s after it", run, o.a.Regs[v.idx].Name), ""
	case obsCall:
		return fmt.Sprintf("%s: which function call %d went to", run, v.call), ""
	case obsArg:
		return fmt.Sprintf("%s, call %d: argument %d", run, v.call, v.idx), ""
	case obsSlot:
		s := v.layout.Slots[v.idx].Name
		return fmt.Sprintf("%s, call %d: slot %s", run, v.call, s), s
	case obsAbove:
		return fmt.Sprintf("%s: the caller's stack word at entry sp+%d after it", run, v.idx), ""
	}
	return "?", ""
}

// onlyStackLayout reports whether the differences are only where the
// trampoline put its frame: arguments that are stack addresses in both
// runs (at least one) and frame slots C read in neither run.
func (o *observations) onlyStackLayout(diff []difference, m *observations) bool {
	stack := o.a.Memory.Stack
	moved := false
	for _, d := range diff {
		switch {
		case d.kind == obsArg && stack.Contains(d.orig) && stack.Contains(d.mutant):
			moved = true
		case d.Slot != "" && !o.read[d.Slot] && !m.read[d.Slot]:
		default:
			return false
		}
	}
	return moved
}

// diff lists what differs between o and m.
func (o *observations) diff(m *observations) []difference {
	var out []difference
	for i := 0; i < max(len(o.calls), len(m.calls)); i++ {
		if i >= len(o.calls) || i >= len(m.calls) {
			out = append(out, difference{Call: fmt.Sprintf("call %d", i), What: "made by only one of them"})
			continue
		}
		a, b := o.calls[i], m.calls[i]
		n := min(len(a.vals), len(b.vals))
		for k := 0; k < n; k++ {
			if a.vals[k].kind != b.vals[k].kind || a.vals[k].idx != b.vals[k].idx {
				what, _ := o.describe(a.vals[k])
				out = append(out, difference{Call: a.name, What: "a different sequence of runs and calls from " + what})
				break
			}
			if a.vals[k].val != b.vals[k].val {
				what, slot := o.describe(a.vals[k])
				out = append(out, difference{Call: a.name, What: what, Slot: slot, kind: a.vals[k].kind, orig: a.vals[k].val, mutant: b.vals[k].val})
			}
		}
		if len(a.vals) != len(b.vals) && (n == 0 || a.vals[n-1].kind == b.vals[n-1].kind) {
			out = append(out, difference{Call: a.name, What: "a different number of runs or calls"})
		}
	}
	return out
}
