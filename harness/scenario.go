package harness

import (
	"fmt"
	"sort"
	"strings"

	"trampemu/ftrace"
	"trampemu/regs"
)

// Scenario is the set of kernel users registered while the trampolines run:
// which callbacks exist and which ftrace_regs values they read.
type Scenario struct {
	Name string
	Doc  string
	// Function registers a function tracer (records ip and parent).
	Function bool
	// Graph registers a function-graph user; GraphRetReads says what its
	// return callback reads ("retval", "fp", "sp", "ip", "arg0".."arg5").
	Graph         bool
	GraphRetReads []string
	// EntryReads: a function tracer that reads these through the accessors.
	EntryReads []string
	// Regs registers a kprobe-style user: it asks arch_ftrace_get_regs and,
	// when it gets pt_regs, reads every slot.
	Regs bool
	// Direct makes the kprobe-style user set a direct trampoline
	// (arch_ftrace_set_direct_caller).
	Direct bool
}

// Scenarios are the built-in scenarios; "default" is what check runs.
var Scenarios = []Scenario{
	{Name: "default", Doc: "function tracer; graph user reading the return value and frame pointer; kprobe-style full-regs user",
		Function: true, Graph: true, GraphRetReads: []string{"retval", "fp"}, Regs: true},
	{Name: "ret-arg0", Doc: "default, and the return callback also reads argument 0",
		Function: true, Graph: true, GraphRetReads: []string{"retval", "fp", "arg0"}, Regs: true},
	{Name: "ret-arg1", Doc: "default, and the return callback also reads argument 1",
		Function: true, Graph: true, GraphRetReads: []string{"retval", "fp", "arg1"}, Regs: true},
	{Name: "ret-args", Doc: "a return callback that reads the return value, frame pointer, stack pointer and every argument",
		Graph: true, GraphRetReads: []string{"retval", "fp", "sp", "arg0", "arg1", "arg2", "arg3", "arg4", "arg5"}},
	{Name: "entry-args", Doc: "an entry callback reading ip, sp, frame pointer and every argument (fprobe-style)",
		EntryReads: []string{"ip", "sp", "fp", "arg0", "arg1", "arg2", "arg3", "arg4", "arg5"}},
	{Name: "function", Doc: "function tracer only", Function: true},
	{Name: "function-graph", Doc: "function tracer and a graph user reading the return value and frame pointer (what the speed measurements run)",
		Function: true, Graph: true, GraphRetReads: []string{"retval", "fp"}},
	{Name: "graph", Doc: "function-graph user only (reads return value and frame pointer)", Graph: true, GraphRetReads: []string{"retval", "fp"}},
	{Name: "regs", Doc: "kprobe-style full-regs user only", Regs: true},
	{Name: "direct", Doc: "kprobe-style user that sends the call through a direct trampoline", Regs: true, Direct: true},
}

// FindScenario looks a scenario up; the error lists the valid names.
func FindScenario(name string) (Scenario, error) {
	var names []string
	for _, s := range Scenarios {
		if s.Name == name {
			return s, nil
		}
		names = append(names, s.Name)
	}
	sort.Strings(names)
	return Scenario{}, fmt.Errorf("unknown scenario %q: valid are %s", name, strings.Join(names, ", "))
}

// read performs one named accessor read on f.
func read(f *regs.Frame, what string) {
	switch what {
	case "retval":
		f.ReturnValue()
	case "fp":
		f.FramePointer()
	case "sp":
		f.StackPointer()
	case "ip":
		f.InstructionPointer()
	case "ra":
		f.ReturnAddress()
	default:
		var n int
		if _, err := fmt.Sscanf(what, "arg%d", &n); err == nil {
			f.Argument(n)
		}
	}
}

// regsUserSlots are the pt_regs fields a kprobe-style handler reads: every
// register with a meaning at function entry (not s390x r0/r1, which the
// call site's brasl %r0 and the trampoline use as scratch), the instruction
// pointer, and the fields ftrace itself defines (direct caller, full-regs
// marker).
func (h *Harness) regsUserSlots() []string {
	a := h.Arch
	acc := a.Frame.Accessors
	var out []string
	for _, s := range a.Frame.Slots {
		if (s.Reg >= 0 && !a.IsEntryScratch(s.Reg)) || s.Name == acc.Direct || s.Name == acc.FullRegs.Slot ||
			(a.Name == "x86_64" && (s.Name == "CS" || s.Name == "SS")) {
			out = append(out, s.Name)
		}
	}
	return out
}

// Install registers the scenario's users on the harness's kernel. Call it
// before Enable.
func (h *Harness) Install(s Scenario) error {
	k := h.K
	if s.Function {
		if err := k.Ftrace.Register(&ftrace.Ops{Name: "function", Func: func(ip, parent uint64, _ *ftrace.Ops, _ *regs.Frame) {
			h.FunctionHits++
			h.LastTraced = [2]uint64{ip, parent}
		}}); err != nil {
			return err
		}
	}
	if len(s.EntryReads) > 0 {
		if err := k.Ftrace.Register(&ftrace.Ops{Name: "entry-reader", Func: func(ip, parent uint64, _ *ftrace.Ops, f *regs.Frame) {
			for _, w := range s.EntryReads {
				read(f, w)
			}
		}}); err != nil {
			return err
		}
	}
	if s.Regs && h.Setup.Entry.NoFullRegs() {
		// The variant predates arch_ftrace_get_regs (and kprobes on ftrace).
		s.Regs = false
	}
	if s.Regs {
		direct := h.sym(symDirect)
		if err := k.Ftrace.Register(&ftrace.Ops{Name: "kprobe", Func: func(ip, parent uint64, _ *ftrace.Ops, f *regs.Frame) {
			r := f.GetRegs()
			if inv := h.inv; inv != nil {
				inv.FullRegs = append(inv.FullRegs, r != nil)
			}
			if r == nil {
				return
			}
			for _, name := range h.regsUserSlots() {
				r.Get(name)
			}
			if s.Direct {
				r.SetDirectCaller(direct)
			}
		}}); err != nil {
			return err
		}
	}
	if s.Graph {
		if err := k.Graph.Register(&ftrace.GraphOps{Name: "graph",
			EntryFunc: func(*ftrace.Graph, *ftrace.GraphEnt, *ftrace.GraphOps, *regs.Frame) bool { return true },
			RetFunc: func(_ *ftrace.Graph, _ *ftrace.GraphRet, _ *ftrace.GraphOps, f *regs.Frame) {
				if f == nil {
					return
				}
				for _, w := range s.GraphRetReads {
					read(f, w)
				}
			},
		}); err != nil {
			return err
		}
	}
	return nil
}
