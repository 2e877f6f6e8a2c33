package trace

import (
	"fmt"
	"strings"
)

// JSONStep is one step as trampemu trace --json prints it. Addresses and
// values are hex strings (kernel addresses do not fit a JSON number).
type JSONStep struct {
	PC    string `json:"pc"`
	Where string `json:"where"` // symbol+offset
	Unit  string `json:"unit"`  // entry, exit, workloads, runtime
	Insn  string `json:"insn,omitempty"`
	Host  string `json:"host,omitempty"` // the Go function of a host call
	// Changed maps each register the step changed to its new value.
	Changed map[string]string `json:"changed,omitempty"`
	Loads   []JSONAccess      `json:"loads,omitempty"`
	Stores  []JSONAccess      `json:"stores,omitempty"`
	Notes   []string          `json:"notes,omitempty"`
	Done    bool              `json:"done"` // false: the run stopped before the step's effects
}

// JSONAccess is a memory operand with its value and, when it falls in the
// frame handed to C, the slot.
type JSONAccess struct {
	Addr  string `json:"addr"`
	Slot  string `json:"slot,omitempty"`
	Value string `json:"value"`
}

// JSON returns every step (all units: filter on Unit) with the same
// annotations Render prints.
func (r *Recorder) JSON(o RenderOptions) []JSONStep {
	units := r.units(o)
	frames := nearestFrames(units, o.Frames)
	out := make([]JSONStep, 0, len(r.Steps))
	for i := range r.Steps {
		s := &r.Steps[i]
		js := JSONStep{PC: fmt.Sprintf("%#x", s.PC), Where: o.Image.Describe(s.PC), Unit: units[i], Host: s.Host, Notes: o.Notes[i], Done: s.Done}
		if s.Host == "" {
			js.Insn = s.Inst.Text
		}
		for _, c := range s.Changed {
			if c.Reg == r.Arch.PC {
				continue
			}
			if js.Changed == nil {
				js.Changed = map[string]string{}
			}
			js.Changed[r.Arch.Regs[c.Reg].Name] = fmt.Sprintf("%#x", c.New)
		}
		access := func(acc []Access) []JSONAccess {
			var out []JSONAccess
			for _, x := range acc {
				out = append(out, JSONAccess{Addr: fmt.Sprintf("%#x", x.Addr), Slot: strings.Trim(frames[i].slot(x.Addr), "()"), Value: r.value(x.Bytes)})
			}
			return out
		}
		js.Loads = access(s.Loads)
		if s.Done {
			js.Stores = access(s.Stores)
		}
		out = append(out, js)
	}
	return out
}

// units gives each step the image unit it ran in (a host call: the unit
// that called it).
func (r *Recorder) units(o RenderOptions) []string {
	units := make([]string, len(r.Steps))
	unit := ""
	for i, s := range r.Steps {
		if s.Host == "" {
			unit = ""
			for _, u := range o.Image.Units {
				if u.Contains(s.PC) {
					unit = u.Name
					break
				}
			}
		}
		units[i] = unit
	}
	return units
}
