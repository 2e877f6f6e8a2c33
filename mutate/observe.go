package mutate

import (
	"fmt"
	"hash/fnv"
	"sort"

	"trampemu/asm"
	"trampemu/harness"
	"trampemu/regs"
)

// observations are what one check saw of each call, compactly: per call
// a hash of everything but the frames' slots (the workload's results; per
// trampoline run where it left to and the registers then; per call into
// C its name and argument registers; the caller's stack words after the
// run), and the value of every frame slot at every call into C (or
// "unwritten"). Code addresses count as symbol+offset.
type observations struct {
	a     *regs.Arch
	im    *asm.Image
	calls []callObs
	// ignored are host-call arguments the kernel does not use (see
	// archHooks.framePointerArgs): host function name -> argument index.
	ignored map[string]int
	// perWorkload counts the calls seen of each workload.
	perWorkload map[string]int
	// read are the frame slots C code read in any call.
	read map[string]bool
}

type callObs struct {
	name  string // workload#n
	rest  uint64 // hash of everything but the slots
	slots []slotObs
}

type slotObs struct {
	inv, call int
	role      string
	name      string
	slot      string
	val       uint64 // normalised; unwritten = a value no slot holds
}

func (s slotObs) where() string {
	return fmt.Sprintf("%s run %d, call %d (%s), slot %s", s.role, s.inv, s.call, s.name, s.slot)
}

const unwritten = 0x7fff_dead_0000_0001

func newObservations(a *regs.Arch, ignored map[string]int) *observations {
	return &observations{a: a, ignored: ignored, perWorkload: map[string]int{}, read: map[string]bool{}}
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

func (o *observations) observe(c *harness.Call) {
	a := o.a
	h := fnv.New64a()
	var b [8]byte
	put := func(v uint64) {
		for i := range b {
			b[i] = byte(v >> (8 * i))
		}
		h.Write(b[:])
	}
	co := callObs{name: fmt.Sprintf("%s#%d", c.Workload, o.perWorkload[c.Workload])}
	o.perWorkload[c.Workload]++
	if c.Done {
		put(1)
	}
	for _, v := range c.Results {
		put(o.value(v))
	}
	for i, inv := range c.Invocations {
		put(uint64(len(inv.Role)))
		if inv.Left {
			put(o.value(inv.LeavePC))
		}
		for r := range a.Regs {
			if r != a.Flags && r != a.PC {
				put(o.value(inv.After[r]))
			}
		}
		for j := range inv.Calls {
			hc := &inv.Calls[j]
			h.Write([]byte(hc.Name))
			skip, ok := o.ignored[hc.Name]
			for k, r := range a.Args {
				if !ok || k != skip {
					put(o.value(hc.Regs[r]))
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
				co.slots = append(co.slots, slotObs{inv: i, call: j, role: string(inv.Role), name: hc.Name,
					slot: hc.Layout.Slots[st.Index].Name, val: v})
			}
		}
		for _, rd := range inv.Reads {
			if rd.Slot != "" {
				o.read[rd.Slot] = true
			}
		}
		for off := 0; off+a.WordSize <= len(inv.AboveAfter); off += a.WordSize {
			put(o.value(a.Word(inv.AboveAfter[off : off+a.WordSize])))
		}
	}
	co.rest = h.Sum64()
	o.calls = append(o.calls, co)
}

// difference is one observation that differs between the original and a
// mutant: a slot (Slot set) or anything else of a call.
type difference struct {
	Call, What, Slot string
}

func (d difference) String() string { return d.Call + ": " + d.What }

// diff lists what differs between o and m (at most a few per call).
func (o *observations) diff(m *observations) []difference {
	var out []difference
	for i := 0; i < max(len(o.calls), len(m.calls)); i++ {
		if i >= len(o.calls) || i >= len(m.calls) {
			out = append(out, difference{Call: fmt.Sprintf("call %d", i), What: "made by only one of them"})
			continue
		}
		a, b := o.calls[i], m.calls[i]
		if a.rest != b.rest {
			out = append(out, difference{Call: a.name, What: "registers, control, C arguments, results or the caller's stack"})
		}
		if len(a.slots) != len(b.slots) {
			out = append(out, difference{Call: a.name, What: "the number of calls into C"})
			continue
		}
		for k := range a.slots {
			if a.slots[k].val != b.slots[k].val {
				out = append(out, difference{Call: a.name, What: a.slots[k].where(), Slot: a.slots[k].slot})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Slot == "" && out[j].Slot != "" })
	return out
}
