package trace

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"trampemu/asm"
	"trampemu/emu"
	"trampemu/regs"
)

// RenderOptions choose what Render prints.
type RenderOptions struct {
	Image *asm.Image
	// Show says which image units are printed instruction by instruction
	// (nil: all); instructions of other units are summarised as a count.
	Show map[string]bool
	// Frames are the structures handed to C, by the index of the host-call
	// step that got them; an instruction's memory operands are named by
	// the slot of the frame of the nearest host call in the same stretch
	// of code (the next one, else the previous one).
	Frames map[int]Frame
	// Notes are extra lines printed under step i (e.g. what the Go kernel
	// read during a host call).
	Notes map[int][]string
	// Names name data addresses no symbol covers well, by address: the
	// CALL_OPS literal in front of each traced function ("add-0x10 (ops
	// literal)"), which Describe would give as an offset from whatever
	// symbol precedes it.
	Names map[uint64]string
}

// Frame is a structure handed to C: ftrace_regs / pt_regs or
// fgraph_ret_regs at Base.
type Frame struct {
	Base   uint64
	Layout *regs.Layout
}

// slot names the slot of f holding addr, "" when none does.
func (f Frame) slot(addr uint64) string {
	if f.Layout == nil {
		return ""
	}
	for _, s := range f.Layout.Slots {
		if a := f.Base + uint64(s.Off); addr >= a && addr < a+uint64(s.Size) {
			return "(" + f.Layout.Name + " " + s.Name + ")"
		}
	}
	return ""
}

// UnitTitles are the headings of the harness's image units.
var UnitTitles = map[string]string{
	"entry":     "entry trampoline",
	"exit":      "exit trampoline",
	"workloads": "traced code",
	"runtime":   "driver",
}

// Render prints the steps, one line per instruction, grouped by unit.
func (r *Recorder) Render(w io.Writer, o RenderOptions) error {
	im := o.Image
	if im == nil {
		return errors.New("trace: RenderOptions.Image is needed to name addresses")
	}
	shown := func(u string) bool { return o.Show == nil || o.Show[u] }
	units := r.units(o)
	frames := nearestFrames(units, o.Frames)
	var b strings.Builder
	lastUnit, hidden, hiddenFrom, hiddenUnit := "\x00", 0, "", ""
	lastLine, repeats := "", 0
	flushRepeat := func() {
		if repeats > 0 {
			fmt.Fprintf(&b, "      ... the line above %d more times\n", repeats)
			repeats = 0
		}
		lastLine = ""
	}
	flushHidden := func() {
		if hidden > 0 {
			plural := "s"
			if hidden == 1 {
				plural = ""
			}
			fmt.Fprintf(&b, "      ... %d instruction%s in %s\n", hidden, plural, hiddenFrom)
			hidden = 0
		}
	}
	for i := range r.Steps {
		s := &r.Steps[i]
		unit := units[i]
		if !shown(unit) {
			flushRepeat()
			if hidden > 0 && unit != hiddenUnit {
				flushHidden()
			}
			if hidden == 0 {
				hiddenFrom, hiddenUnit = unitTitle(unit)+" from "+im.Describe(s.PC), unit
			}
			if s.Host == "" {
				hidden++
			}
			continue
		}
		flushHidden()
		if unit != lastUnit {
			fmt.Fprintf(&b, "  %s:\n", unitTitle(unit))
			lastUnit = unit
		}
		if s.Host != "" {
			flushRepeat()
			r.renderHost(&b, s)
		} else {
			line := fmt.Sprintf("    %x %-30s %-44s%s\n", s.PC, "<"+im.Describe(s.PC)+">", s.Inst.Text, r.effects(s, o, frames[i]))
			if line == lastLine && len(o.Notes[i]) == 0 {
				repeats++ // a loop of one instruction that changes nothing visible
				continue
			}
			flushRepeat()
			b.WriteString(line)
			lastLine = line
		}
		for _, n := range o.Notes[i] {
			fmt.Fprintf(&b, "        %s\n", n)
		}
	}
	flushRepeat()
	flushHidden()
	if r.Dropped > 0 {
		fmt.Fprintf(&b, "  (%d more steps not recorded: the limit is %d)\n", r.Dropped, len(r.Steps))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func unitTitle(u string) string {
	if t, ok := UnitTitles[u]; ok {
		return t
	}
	if u == "" {
		return "other code"
	}
	return u
}

// nearestFrames gives each step the frame of the nearest host call with a
// frame in the same stretch of one unit: the next one, else the previous.
func nearestFrames(units []string, byStep map[int]Frame) []Frame {
	out := make([]Frame, len(units))
	var cur Frame
	for i := len(units) - 1; i >= 0; i-- { // next
		if i+1 < len(units) && units[i+1] != units[i] {
			cur = Frame{}
		}
		if f, ok := byStep[i]; ok {
			cur = f
		}
		out[i] = cur
	}
	cur = Frame{}
	for i := range units { // else previous
		if i > 0 && units[i-1] != units[i] {
			cur = Frame{}
		}
		if f, ok := byStep[i]; ok {
			cur = f
		}
		if out[i].Layout == nil {
			out[i] = cur
		}
	}
	return out
}

// renderHost prints a call into Go: its arguments and what it changed.
func (r *Recorder) renderHost(b *strings.Builder, s *Step) {
	a := r.Arch
	var args []string
	for _, ri := range a.Args[:min(4, len(a.Args))] {
		args = append(args, fmt.Sprintf("%s=%#x", a.Regs[ri].Name, s.Regs[ri]))
	}
	fmt.Fprintf(b, "    -> Go %s(%s)\n", s.Host, strings.Join(args, ", "))
	var clobbered, set []string
	for _, c := range s.Changed {
		if c.Reg == a.PC || c.Reg == a.Flags {
			continue
		}
		if c.New == emu.ClobberValue(c.Reg) {
			clobbered = append(clobbered, a.Regs[c.Reg].Name)
			continue
		}
		set = append(set, fmt.Sprintf("%s=%#x", a.Regs[c.Reg].Name, c.New))
	}
	if len(set) > 0 {
		fmt.Fprintf(b, "       sets %s\n", strings.Join(set, " "))
	}
	if len(clobbered) > 0 {
		fmt.Fprintf(b, "       clobbers %s (like compiled C)\n", strings.Join(clobbered, " "))
	}
	if !s.Done {
		fmt.Fprintf(b, "       (the run stopped in this call)\n")
	}
}

// effects describes what an instruction did: registers changed (not the
// pc or flags), memory read and written with values.
func (r *Recorder) effects(s *Step, o RenderOptions, f Frame) string {
	a := r.Arch
	sp := s.Regs[a.SP]
	var parts []string
	for _, c := range s.Changed {
		if c.Reg == a.PC || c.Reg == a.Flags {
			continue
		}
		if c.Reg == a.SP {
			parts = append(parts, fmt.Sprintf("%s%+d", a.Regs[c.Reg].Name, int64(c.New-c.Old)))
			continue
		}
		parts = append(parts, fmt.Sprintf("%s=%#x", a.Regs[c.Reg].Name, c.New))
	}
	for i, l := range s.Loads {
		if i > 0 && l.Addr == s.Loads[i-1].Addr && len(l.Bytes) == len(s.Loads[i-1].Bytes) {
			continue // the same operand twice (s390x xc d(l,b),d(b))
		}
		parts = append(parts, "load "+r.where(l.Addr, sp, o, f)+" = "+r.value(l.Bytes))
	}
	for _, st := range s.Stores {
		v := r.value(st.Bytes)
		if !s.Done {
			v = "?"
		}
		parts = append(parts, "store "+r.where(st.Addr, sp, o, f)+" = "+v)
	}
	if !s.Done {
		parts = append(parts, "(the run stopped here)")
	}
	if len(parts) == 0 {
		return ""
	}
	return "  " + strings.Join(parts, "; ")
}

// where names an address: relative to sp when near it, else by symbol;
// with the annotation when there is one.
func (r *Recorder) where(addr, sp uint64, o RenderOptions, f Frame) string {
	var s string
	if d := int64(addr - sp); d > -1<<16 && d < 1<<16 {
		s = fmt.Sprintf("[sp%+#x]", d)
	} else if n, ok := o.Names[addr]; ok {
		s = "[" + n + "]"
	} else {
		s = "[" + o.Image.Describe(addr) + "]"
	}
	if n := f.slot(addr); n != "" {
		s += " " + n
	}
	return s
}

// value prints guest bytes: a word (or narrower integer), or a list of
// words for a multi-word access.
func (r *Recorder) value(p []byte) string {
	if p == nil {
		return "(unmapped)"
	}
	word := func(q []byte) uint64 {
		var v uint64
		for i := range q {
			if r.Arch.BigEndian {
				v = v<<8 | uint64(q[i])
			} else {
				v |= uint64(q[i]) << (8 * i)
			}
		}
		return v
	}
	if len(p) <= 8 {
		return fmt.Sprintf("%#x", word(p))
	}
	var ws []string
	for i := 0; i+8 <= len(p); i += 8 {
		ws = append(ws, fmt.Sprintf("%#x", word(p[i:i+8])))
	}
	if len(p)%8 != 0 {
		ws = append(ws, fmt.Sprintf("%x", p[len(p)-len(p)%8:]))
	}
	return "{" + strings.Join(ws, " ") + "}"
}

var _ emu.Tracer = (*Recorder)(nil)
