package native

import (
	"fmt"
	"math"
	"runtime"
	"syscall"
	"time"
	"unsafe"

	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
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

func mapRegions(m regs.MemoryMap) (*hostMem, error) {
	h := &hostMem{}
	for _, r := range m.Regions() {
		prot := syscall.PROT_READ | syscall.PROT_WRITE
		if r.Perm&regs.PermExec != 0 {
			prot |= syscall.PROT_EXEC
		}
		addr, _, errno := syscall.Syscall6(syscall.SYS_MMAP, uintptr(r.Base), uintptr(r.Size), uintptr(prot),
			syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS|mapFixedNoreplace, ^uintptr(0), 0)
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

// runHere runs the job in this process (the child).
func runHere(j Job) (Result, error) {
	runtime.LockOSThread()
	s, im, err := j.Build()
	if err != nil {
		return Result{}, err
	}
	mem, err := mapRegions(Arch.Memory)
	if err != nil {
		return Result{}, err
	}
	for _, sec := range im.Sections {
		dst, err := mem.span(sec.Addr, len(sec.Data))
		if err != nil {
			return Result{}, fmt.Errorf("section %s: %w", sec.Name, err)
		}
		copy(dst, sec.Data)
	}
	var missing []string
	sym := func(name string) uint64 {
		a, ok := im.Symbol(name)
		if !ok {
			missing = append(missing, name)
		}
		return a
	}
	loop, fn, dispatch := sym("native_loop"), sym("add"), sym("ftrace_ops_list_func")
	result, returns, shadowTop, shadow, graphOps := sym("native_result"), sym("native_returns"), sym("native_shadow_top"), sym("native_shadow"), sym("native_graph_ops")
	if len(missing) > 0 {
		return Result{}, fmt.Errorf("native image lacks %v", missing)
	}
	calls, repeats := j.Calls, j.Repeats
	if calls <= 0 {
		calls = 200000
	}
	if repeats <= 0 {
		repeats = 5
	}
	stack := uintptr(Arch.Memory.Stack.End()-64) &^ 15
	const warmup = 10000
	// timed runs the add loop and returns the best ns per call; add(1, 2)
	// must still return 3.
	timed := func(mode string) (float64, error) {
		callNative(uintptr(loop), stack, warmup, uintptr(fn))
		best := math.Inf(1)
		for i := 0; i < repeats; i++ {
			t0 := time.Now()
			callNative(uintptr(loop), stack, uintptr(calls), uintptr(fn))
			best = math.Min(best, float64(time.Since(t0).Nanoseconds())/float64(calls))
		}
		if got := mem.word(result); got != 3 {
			return 0, fmt.Errorf("%s: add(1, 2) returned %#x natively", mode, got)
		}
		return best, nil
	}
	apply := func(ps []harness.Patch) error {
		for _, p := range ps {
			dst, err := mem.span(p.Addr, len(p.Bytes))
			if err != nil {
				return err
			}
			copy(dst, p.Bytes)
		}
		return nil
	}
	r := Result{Entry: s.Entry.Name, Exit: s.Exit.Name, Calls: calls}
	if r.Off, err = timed("tracing off"); err != nil {
		return r, err
	}
	ps, err := harness.EnablePatches(s, im, dispatch, false)
	if err == nil {
		err = apply(ps)
	}
	if err != nil {
		return r, err
	}
	if r.Function, err = timed("function tracer"); err != nil {
		return r, err
	}
	if ps, err = harness.EnablePatches(s, im, dispatch, true); err == nil {
		err = apply(ps)
	}
	if err != nil {
		return r, err
	}
	if s.Entry.Graph == trampolines.GraphViaOps {
		b, _ := mem.span(graphOps, 8)
		Arch.PutWord(b, 1)
	}
	if r.Graph, err = timed("graph user"); err != nil {
		return r, err
	}
	if want := uint64(warmup + repeats*calls); mem.word(returns) != want {
		return r, fmt.Errorf("graph user: return_to_handler ran %d times for %d calls", mem.word(returns), want)
	}
	if mem.word(shadowTop) != shadow {
		return r, fmt.Errorf("graph user: the shadow stack is unbalanced (top %#x, base %#x)", mem.word(shadowTop), shadow)
	}
	r.FunctionCost, r.GraphCost = r.Function-r.Off, r.Graph-r.Off
	return r, nil
}
