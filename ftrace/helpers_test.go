package ftrace

import (
	"errors"
	"testing"

	"trampemu/regs"
)

// env is one arch's guest: FlatMemory over the heap and stack regions, a
// Graph, and one struct ftrace_regs on the stack that every simulated call
// uses.
type env struct {
	t     testing.TB
	arch  *regs.Arch
	mem   *regs.FlatMemory
	heap  *Heap
	g     *Graph
	fregs *regs.Frame
	rth   uint64 // return_to_handler
	sp    uint64 // stack pointer of the traced function at entry
	warns []Warning
}

func newEnv(t testing.TB, a *regs.Arch) *env { return newEnvCfg(t, a, false) }

func newEnvCfg(t testing.TB, a *regs.Arch, noDirect bool) *env {
	t.Helper()
	e := &env{t: t, arch: a}
	e.mem = regs.NewFlatMemory(a, a.Memory.Heap, a.Memory.Stack)
	e.heap = NewHeap(a.Memory.Heap)
	e.rth = a.Memory.Stubs.Base + 0x40
	g, err := NewGraph(GraphConfig{Arch: a, Mem: e.mem, Heap: e.heap, ReturnToHandler: e.rth,
		Warn: func(w Warning) { e.warns = append(e.warns, w) }, NoDirect: noDirect})
	if err != nil {
		t.Fatal(err)
	}
	e.g = g
	e.fregs = regs.NewFrame(a, e.mem, a.Memory.Stack.Base+0x1000, nil)
	e.sp = a.Memory.Stack.Base + 0x2000
	return e
}

// archs runs f once per architecture as a subtest.
func archs(t *testing.T, f func(t *testing.T, a *regs.Arch)) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) { f(t, a) })
	}
}

// fn returns the address of traced function n (in the text region).
func (e *env) fn(n int) uint64 { return e.arch.Memory.Text.Base + 0x100*uint64(n+1) }

// caller returns a return address in the text region for call site n.
func (e *env) caller(n int) uint64 { return e.arch.Memory.Text.Base + 0x10000 + 0x10*uint64(n) }

// setEntry fills the ftrace_regs the entry trampoline would: argument 0 and
// the return address (s390x r14, x86-64 the word at sp).
func (e *env) setEntry(arg, ret uint64) {
	acc := e.arch.Frame.Accessors
	e.fregs.Set(acc.Args[0], arg)
	e.fregs.Set(acc.SP, e.sp)
	if acc.RetAddr != "" {
		e.fregs.Set(acc.RetAddr, ret)
	} else {
		e.mem.WriteWord(e.sp, ret)
	}
}

// call simulates one call of traced function fn from call site n: entry
// trampoline -> Enter, the body, and when traced return_to_handler ->
// Return with the return value in fregs. It returns the body's result.
func (e *env) call(fn uint64, n int, arg uint64, body func(uint64) uint64) uint64 {
	e.t.Helper()
	ret := e.caller(n)
	e.setEntry(arg, ret)
	traced := e.g.Enter(ret, fn, 0, e.sp, e.fregs)
	res := body(arg)
	if traced {
		e.fregs.SetReturnValue(res)
		got, err := e.g.Return(e.fregs)
		if err != nil {
			e.t.Fatalf("Return: %v", err)
		}
		if got != ret {
			e.t.Fatalf("Return = %#x, want %#x", got, ret)
		}
	}
	return res
}

// word reads shadow-stack word i of the current task.
func (e *env) word(i int) uint64 { return e.mem.ReadWord(e.g.Current().Stack + 8*uint64(i)) }

// empty asserts the current task's shadow stack is back to empty.
func (e *env) empty() {
	e.t.Helper()
	if tk := e.g.Current(); tk.Curr != 0 || tk.Depth != -1 {
		e.t.Fatalf("task state curr=%d depth=%d, want 0 and -1", tk.Curr, tk.Depth)
	}
}

// noFaults asserts no access left the mapped regions.
func (e *env) noFaults() {
	e.t.Helper()
	if len(e.mem.Faults) > 0 {
		e.t.Fatalf("guest memory faults: %v", e.mem.Faults)
	}
}

func wantErrno(t *testing.T, err error, want Errno) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("error %v, want %v", err, want)
	}
}

// accept is an EntryFunc that traces everything.
func accept(*Graph, *GraphEnt, *GraphOps, *regs.Frame) bool { return true }
