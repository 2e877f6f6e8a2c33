package native

import (
	"bufio"
	"fmt"
	"io"
	"runtime"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"trampemu/harness"
	"trampemu/regs"
)

// callNative is in call_linux_amd64.s.
func callNative(fn, stack, a0, a1 uintptr)

// Supported reports whether this host can run the native timing.
func Supported() error { return nil }

// mapFixedNoreplace is MAP_FIXED_NOREPLACE (linux/mman.h): fail rather
// than replace an existing mapping.
const mapFixedNoreplace = 0x100000

// hostMem is the native memory map, mapped at its addresses.
type hostMem struct{ regions []hostRegion }

type hostRegion struct {
	regs.Region
	mem []byte
}

// mapRegions maps the memory map at its addresses. underValgrind: valgrind
// 3.19 does not know MAP_FIXED_NOREPLACE and places the mapping elsewhere;
// the region is then unmapped and mapped again with MAP_FIXED (valgrind
// keeps its own mappings away from the low 2 GiB used here).
func mapRegions(m regs.MemoryMap, underValgrind bool) (*hostMem, error) {
	h := &hostMem{}
	for _, r := range m.Regions() {
		prot := syscall.PROT_READ | syscall.PROT_WRITE
		if r.Perm&regs.PermExec != 0 {
			prot |= syscall.PROT_EXEC
		}
		addr, _, errno := syscall.Syscall6(syscall.SYS_MMAP, uintptr(r.Base), uintptr(r.Size), uintptr(prot),
			syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS|mapFixedNoreplace, ^uintptr(0), 0)
		if errno == 0 && addr != uintptr(r.Base) && underValgrind {
			syscall.Syscall(syscall.SYS_MUNMAP, addr, uintptr(r.Size), 0)
			addr, _, errno = syscall.Syscall6(syscall.SYS_MMAP, uintptr(r.Base), uintptr(r.Size), uintptr(prot),
				syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS|syscall.MAP_FIXED, ^uintptr(0), 0)
		}
		if errno != 0 {
			return nil, fmt.Errorf("native: mapping %s at %#x (%d bytes): %v", r.Name, r.Base, r.Size, errno)
		}
		if addr != uintptr(r.Base) {
			return nil, fmt.Errorf("native: %s mapped at %#x, not at %#x (the kernel ignored MAP_FIXED_NOREPLACE)", r.Name, addr, r.Base)
		}
		// The mapping is not Go memory: convert through the variable, as
		// the address came from mmap.
		p := *(*unsafe.Pointer)(unsafe.Pointer(&addr))
		h.regions = append(h.regions, hostRegion{r, unsafe.Slice((*byte)(p), r.Size)})
	}
	return h, nil
}

// span returns the host bytes of [addr, addr+n).
func (h *hostMem) span(addr uint64, n int) ([]byte, error) {
	for _, r := range h.regions {
		if addr >= r.Base && addr+uint64(n) <= r.End() {
			off := addr - r.Base
			return r.mem[off : off+uint64(n)], nil
		}
	}
	return nil, fmt.Errorf("native: %#x+%d is outside the native memory map", addr, n)
}

func (h *hostMem) word(addr uint64) uint64 {
	b, err := h.span(addr, 8)
	if err != nil {
		return 0
	}
	return Arch.Word(b)
}

func (h *hostMem) setWord(addr, v uint64) {
	if b, err := h.span(addr, 8); err == nil {
		Arch.PutWord(b, v)
	}
}

// runner is a pairing mapped into this process (the child), switchable
// between the modes.
type runner struct {
	plan       *plan
	mem        *hostMem
	stack      uintptr
	original   []harness.Patch // the bytes every mode's patches overwrite
	mode       Mode
	graphCalls uint64 // calls made in graph mode: return_to_handler must run as often
}

// newRunner maps and loads the planned pairing, tracing off.
func newRunner(p *plan, underValgrind bool) (*runner, error) {
	mem, err := mapRegions(Arch.Memory, underValgrind)
	if err != nil {
		return nil, err
	}
	return loadRunner(mem, p)
}

// loadRunner loads the planned pairing into mapped memory (over whatever
// an earlier pairing left there), tracing off.
func loadRunner(mem *hostMem, p *plan) (*runner, error) {
	for _, sec := range p.Sections {
		dst, err := mem.span(sec.Addr, len(sec.Data))
		if err != nil {
			return nil, fmt.Errorf("section at %#x: %w", sec.Addr, err)
		}
		copy(dst, sec.Data)
	}
	r := &runner{plan: p, mem: mem, mode: Off}
	r.stack = uintptr(Arch.Memory.Stack.End()-64) &^ 15
	for _, m := range []Mode{Function, Graph} {
		for _, pt := range p.Patches[m] {
			b, err := mem.span(pt.Addr, len(pt.Bytes))
			if err != nil {
				return nil, err
			}
			r.original = append(r.original, harness.Patch{Addr: pt.Addr, Bytes: append([]byte(nil), b...)})
		}
	}
	return r, nil
}

func (r *runner) apply(ps []harness.Patch) {
	for _, p := range ps {
		dst, _ := r.mem.span(p.Addr, len(p.Bytes)) // checked in newRunner
		copy(dst, p.Bytes)
	}
}

// setMode patches the code for m: the original bytes back first (saved
// before any patch), then m's patches; a graph user through the ops list
// sets native_graph_ops.
func (r *runner) setMode(m Mode) error {
	if m == r.mode {
		return nil
	}
	if m != Off && m != Function && m != Graph {
		return fmt.Errorf("unknown mode %q", m)
	}
	r.apply(r.original)
	r.apply(r.plan.Patches[m])
	graphOps := uint64(0)
	if m == Graph && r.plan.GraphViaOps {
		graphOps = 1
	}
	r.mem.setWord(r.plan.GraphOps, graphOps)
	r.mode = m
	return nil
}

// call runs n calls of add(1, 2) natively and checks what they did: the
// result 3, and in graph mode return_to_handler once per call with the
// shadow stack balanced.
func (r *runner) call(n int) error {
	if n <= 0 {
		return nil
	}
	p := r.plan
	r.mem.setWord(p.Result, 0)
	callNative(uintptr(p.Loop), r.stack, uintptr(n), uintptr(p.Fn))
	if got := r.mem.word(p.Result); got != 3 {
		return fmt.Errorf("%s: add(1, 2) returned %#x natively", r.mode, got)
	}
	if r.mode == Graph {
		r.graphCalls += uint64(n)
	}
	if got := r.mem.word(p.Returns); got != r.graphCalls {
		return fmt.Errorf("%s: return_to_handler ran %d times for %d calls with a graph user", r.mode, got, r.graphCalls)
	}
	if top := r.mem.word(p.ShadowTop); top != p.Shadow {
		return fmt.Errorf("%s: the shadow stack is unbalanced (top %#x, base %#x)", r.mode, top, p.Shadow)
	}
	return nil
}

// pin binds this thread to cpu (sched_setaffinity).
func pin(cpu int) error {
	runtime.LockOSThread()
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return fmt.Errorf("pinning to CPU %d: %v", cpu, err)
	}
	return nil
}

// hostCPU picks the CPU the children are pinned to: the highest-numbered
// one this process may run on.
func hostCPU() (int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return 0, fmt.Errorf("native: sched_getaffinity: %v", err)
	}
	for cpu := len(set)*64 - 1; cpu >= 0; cpu-- {
		if set.IsSet(cpu) {
			return cpu, nil
		}
	}
	return 0, fmt.Errorf("native: no CPU in this process's affinity mask")
}

// serveHere (the child) answers "MODE WARMUP CALLS" lines with the ns per
// call of CALLS timed calls after WARMUP untimed ones, until "quit".
func serveHere(t childTask, in io.Reader, out io.Writer) error {
	if err := pin(t.CPU); err != nil {
		return err
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	p, err := readPlan(sc)
	if err != nil {
		return err
	}
	r, err := newRunner(p, false)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(out)
	fmt.Fprintln(w, "ready")
	if err := w.Flush(); err != nil {
		return err
	}
	for sc.Scan() {
		var m Mode
		var warmup, calls int
		if sc.Text() == "quit" {
			return nil
		}
		if _, err := fmt.Sscan(sc.Text(), &m, &warmup, &calls); err != nil || calls <= 0 {
			return fmt.Errorf("bad request %q", sc.Text())
		}
		if err := r.setMode(m); err != nil {
			return err
		}
		if err := r.call(warmup); err != nil {
			return err
		}
		t0 := time.Now()
		callNative(uintptr(p.Loop), r.stack, uintptr(calls), uintptr(p.Fn))
		ns := float64(time.Since(t0).Nanoseconds()) / float64(calls)
		if m == Graph {
			r.graphCalls += uint64(calls)
		}
		if err := r.call(1); err != nil { // checks the timed calls too
			return err
		}
		fmt.Fprintf(w, "%g\n", ns)
		if err := w.Flush(); err != nil {
			return err
		}
	}
	return sc.Err()
}

// Callgrind client requests (valgrind's callgrind.h: VG_USERREQ_TOOL_BASE
// ('C','T') and the enum after it).
const (
	callgrindDumpStats          = 0x43540000
	callgrindStartInstrumenting = 0x43540004
)

// countHere (the child under callgrind, started with --instr-atstart=no)
// reads plans until EOF and runs each pairing for t.Count calls with a
// graph user, so both trampolines run once per call. It asks callgrind to
// start instrumenting once the first pairing is loaded (the Go runtime's
// start and the plan decoding run uninstrumented, much faster) and to dump
// its counts after each pairing, so profile part i+1 holds pairing i. It
// says "done" at the end.
func countHere(t childTask, in io.Reader, out io.Writer) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var plans []*plan
	for {
		p, err := readPlan(sc)
		if err == errNoPlan && len(plans) > 0 {
			break
		}
		if err != nil {
			return err
		}
		plans = append(plans, p)
	}
	mem, err := mapRegions(Arch.Memory, true)
	if err != nil {
		return err
	}
	for i, p := range plans {
		r, err := loadRunner(mem, p)
		if err != nil {
			return err
		}
		if err := r.setMode(Graph); err != nil {
			return err
		}
		if i == 0 {
			callNative(uintptr(p.Callgrind), r.stack, callgrindStartInstrumenting, 0)
		}
		if err := r.call(t.Count); err != nil {
			return fmt.Errorf("%s: %w", p.Name, err)
		}
		callNative(uintptr(p.Callgrind), r.stack, callgrindDumpStats, 0)
	}
	_, err = fmt.Fprintln(out, "done")
	return err
}
