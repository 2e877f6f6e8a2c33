package native

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"trampemu/harness"
	"trampemu/trampolines"
)

// plan is a linked pairing as the child needs it: the bytes to load, the
// patches of each mode, and the addresses it calls and checks. The parent
// builds it (the child spawns no assembler: callgrind, valgrind 3.19,
// asserts on the SIGCHLD a Go child gets from its own children) and sends
// it as the first line of the child's stdin.
type plan struct {
	Name     string                   `json:"name"`
	Sections []planSection            `json:"sections"`
	Patches  map[Mode][]harness.Patch `json:"patches"`
	// Loop is native_loop, Fn the workload add; Result, Returns,
	// ShadowTop, Shadow and GraphOps the runtime's words the checks read;
	// Callgrind is native_callgrind, a valgrind client request
	// (trampolines/native/x86_64.S).
	Loop, Fn, Result, Returns, ShadowTop, Shadow, GraphOps, Callgrind uint64
	// GraphViaOps: the graph user starts through the ops list
	// (native_graph_ops set) rather than a patched ftrace_graph_caller.
	GraphViaOps bool `json:"graph_via_ops"`
	// EntryUnit and ExitUnit are the trampolines' code [start, end).
	EntryUnit, ExitUnit [2]uint64
}

type planSection struct {
	Addr uint64 `json:"addr"`
	Data []byte `json:"data"`
}

// makePlan builds the job's pairing for the host at layout l (nil: the
// emulator's layout) and plans its run.
func makePlan(j Job, l *Layout) (*plan, error) {
	s, im, err := j.Build()
	if l != nil {
		s, im, err = j.BuildAt(*l)
	}
	if err != nil {
		return nil, err
	}
	p := &plan{Name: j.Name(), Patches: map[Mode][]harness.Patch{}, GraphViaOps: s.Entry.Graph == trampolines.GraphViaOps}
	for _, sec := range im.Sections {
		p.Sections = append(p.Sections, planSection{Addr: sec.Addr, Data: sec.Data})
	}
	var missing []string
	sym := func(dst *uint64, name string) {
		a, ok := im.Symbol(name)
		if !ok {
			missing = append(missing, name)
		}
		*dst = a
	}
	var dispatch, hookWord, hook uint64
	sym(&hookWord, "native_return_hook")
	// What the graph user's swap puts in the return-address slot: the
	// pairing's return path.
	if s.Exit.Role == trampolines.Rethook {
		sym(&hook, "arch_rethook_trampoline")
	} else {
		sym(&hook, "return_to_handler")
	}
	sym(&p.Loop, "native_loop")
	sym(&p.Fn, "add")
	sym(&dispatch, "ftrace_ops_list_func")
	sym(&p.Result, "native_result")
	sym(&p.Returns, "native_returns")
	sym(&p.ShadowTop, "native_shadow_top")
	sym(&p.Shadow, "native_shadow")
	sym(&p.GraphOps, "native_graph_ops")
	sym(&p.Callgrind, "native_callgrind")
	if len(missing) > 0 {
		return nil, fmt.Errorf("native image of %s lacks %v", j.Name(), missing)
	}
	if err := p.writeWord(hookWord, hook); err != nil {
		return nil, fmt.Errorf("native image of %s: native_return_hook: %w", j.Name(), err)
	}
	for _, u := range []struct {
		role trampolines.Role
		dst  *[2]uint64
	}{{trampolines.Entry, &p.EntryUnit}, {trampolines.Exit, &p.ExitUnit}} {
		unit, ok := im.Unit(string(u.role))
		if !ok {
			return nil, fmt.Errorf("native image of %s has no %s unit", j.Name(), u.role)
		}
		*u.dst = [2]uint64{unit.Start, unit.End}
	}
	if l != nil && (int(p.EntryUnit[0]%64) != l.Entry || int(p.ExitUnit[0]%64) != l.Exit) {
		return nil, fmt.Errorf("native image of %s: entry at %#x, exit at %#x, not at offsets %d and %d of a 64-byte line", j.Name(), p.EntryUnit[0], p.ExitUnit[0], l.Entry, l.Exit)
	}
	if p.Patches[Function], err = harness.EnablePatches(s, im, dispatch, false); err != nil {
		return nil, err
	}
	if p.Patches[Graph], err = harness.EnablePatches(s, im, dispatch, true); err != nil {
		return nil, err
	}
	return p, nil
}

// writeWord stores a little-endian word into the section holding addr.
func (p *plan) writeWord(addr, v uint64) error {
	for i := range p.Sections {
		sec := &p.Sections[i]
		if addr >= sec.Addr && addr+8 <= sec.Addr+uint64(len(sec.Data)) {
			binary.LittleEndian.PutUint64(sec.Data[addr-sec.Addr:], v)
			return nil
		}
	}
	return fmt.Errorf("%#x is in no section", addr)
}

// sendPlan writes the plan as one line.
func sendPlan(w io.Writer, p *plan) error {
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// errNoPlan: stdin ended before a plan line.
var errNoPlan = errors.New("no plan on stdin")

// readPlan reads the plan line.
func readPlan(sc *bufio.Scanner) (*plan, error) {
	if !sc.Scan() {
		if sc.Err() != nil {
			return nil, sc.Err()
		}
		return nil, errNoPlan
	}
	var p plan
	if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
		return nil, fmt.Errorf("bad plan: %v", err)
	}
	return &p, nil
}
