package check

import (
	"fmt"
	"runtime"
	"slices"
	"time"

	"golang.org/x/sys/unix"

	"trampemu/emu"
	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
)

// Emulation is how fast an arch's current pairing runs in the emulator,
// with checks off, against raw Unicorn running the same instruction
// stream.
//
// The raw baseline: a second machine with the same image, the same fast
// driver and a function tracer registered and enabled, on which
// emu.Machine.GoRaw removed every trampemu hook (block counter, host
// functions): the host stubs are then the return instructions they are and
// Go is never called. That is the instruction stream of a function-tracer
// traced call (driver, fentry call, entry trampoline, the callback stub,
// the function) minus the host work; before timing, emu's per-instruction
// counter checks on twins of both machines that the two streams are the
// same: per call, the sequence of executed instruction addresses (its
// length and hash, computed in the C code hook: emu.PCTrace), and the
// instructions, loads and stores in all. A graph return cannot be run
// raw: without Go nobody swaps the return address, so the graph call has
// no raw twin; its speed is shown, the ratio is over the function-tracer
// call.
//
// The machines are timed in interleaved rounds (every configuration once
// per round); the ratio is the median of the per-round ratios, with their
// range, so that a round the machine's other load slowed counts as one
// round, not as the answer.
type Emulation struct {
	Arch  string `json:"arch"`
	Entry string `json:"entry"`
	Exit  string `json:"exit"`
	// TracedCallsPerS: traced calls of add per second with a function
	// tracer and a graph user (entry and exit trampoline every call), at
	// the median round's speed.
	TracedCallsPerS float64 `json:"traced_calls_per_s"`
	// RawUnicornRatio: ns per function-tracer traced call in the emulator
	// (checks off) over ns per call of the same stream on raw Unicorn, the
	// median over the rounds of each round's ratio; RatioSpread is that
	// median with the smallest and largest round's.
	RawUnicornRatio float64 `json:"raw_unicorn_ratio"`
	RatioSpread     Spread  `json:"raw_unicorn_ratio_spread"`
	// RatioIQR is the rounds' ratios' interquartile range [25th, 75th
	// percentile]: on a loaded machine a preempted sample makes the range
	// wide, the quartiles show where most rounds lie.
	RatioIQR [2]float64 `json:"raw_unicorn_ratio_iqr"`
	// StreamCalls is the number of calls whose PC traces were compared,
	// PCTrace the first call's (the same on both machines).
	StreamCalls int         `json:"stream_calls"`
	PCTrace     emu.PCTrace `json:"pc_trace_per_call"`
	// The timings behind them: ns per call, median and range over the
	// repeats, each repeat Calls calls in one emulator run, in CPU time of
	// the emulating thread (other load on the machine does not count).
	GraphNs    Spread `json:"graph_ns"`
	FunctionNs Spread `json:"function_ns"`
	RawNs      Spread `json:"raw_ns"`
	// BlocksNs is the same stream with only the block hook on (counter and
	// instruction limit; host stubs plain returns, no Go): between RawNs
	// and FunctionNs, it splits the overhead into the block hook and the
	// host calls into Go.
	BlocksNs Spread `json:"blocks_only_ns"`
	// ChecksOnNs is the graph call (the same users) with checks on: the
	// checked driver (canaries in every register, the results compared),
	// the trampolines' enter and leave events, stack poison, the host
	// calls' register files and frames recorded (harness.Options.Checks),
	// each call handed to the analysis' callback and its observations
	// recycled; the memory probes' budget is spent in the warm-up round.
	ChecksOnNs Spread `json:"checks_on_ns"`
	// ChecksOnRatio is checks on over checks off (GraphNs), the median of
	// the rounds' ratios; ChecksOnSpread that median with the smallest and
	// largest round's.
	ChecksOnRatio  float64 `json:"checks_on_ratio"`
	ChecksOnSpread Spread  `json:"checks_on_ratio_spread"`
	// InsnsPerCall is the instructions of one function-tracer traced call
	// (the same raw and hooked).
	InsnsPerCall float64 `json:"insns_per_call"`
	Calls        uint64  `json:"calls"`
	Repeats      int     `json:"repeats"`
}

// Spread is a median with the smallest and largest value.
type Spread struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

func spreadOf(xs []float64) Spread {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return Spread{}
	}
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return Spread{Median: med, Min: s[0], Max: s[len(s)-1]}
}

// perCall is the CPU time per call of calls calls that took from thread
// CPU time t0 to t1 (ns).
func perCall(t0, t1 int64, calls uint64) float64 {
	return float64(t1-t0) / float64(calls)
}

// quantile is the q-quantile of xs, linearly interpolated between the
// order statistics (0 for no values).
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	pos := q * float64(len(s)-1)
	i := int(pos)
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[i] + (pos-float64(i))*(s[i+1]-s[i])
}

// MeasureEmulation times the arch's current pairing: repeats rounds, each
// one run of calls traced calls per configuration (graph with checks off
// and on, function tracer, block hook only, raw), the configurations
// interleaved within a round.
func MeasureEmulation(a *regs.Arch, calls uint64, repeats int) (Emulation, error) {
	em := Emulation{Arch: a.Name, Calls: calls, Repeats: repeats}
	entry, err := harness.Current(a, trampolines.Entry)
	if err != nil {
		return em, err
	}
	exit, err := harness.Current(a, trampolines.Exit)
	if err != nil {
		return em, err
	}
	em.Entry, em.Exit = entry.Name, exit.Name
	setup := harness.Setup{Arch: a, Entry: entry, Exit: exit}
	start := func(scenario string) (*harness.Harness, error) {
		sc, err := harness.FindUserSet(scenario)
		if err != nil {
			return nil, err
		}
		return harness.Start(setup, harness.Options{Checks: false, Timeout: 60 * time.Second}, sc)
	}
	graph, err := start("function-graph")
	if err != nil {
		return em, err
	}
	defer graph.Close()
	checked, runChecked, err := startChecked(setup)
	if err != nil {
		return em, err
	}
	defer checked.Close()
	fn, err := start("function")
	if err != nil {
		return em, err
	}
	defer fn.Close()
	raw, err := start("function")
	if err != nil {
		return em, err
	}
	defer raw.Close()
	if err := raw.M.GoRaw(); err != nil {
		return em, err
	}
	blocks, err := start("function")
	if err != nil {
		return em, err
	}
	defer blocks.Close()
	if err := blocks.M.DropHostFunctions(); err != nil {
		return em, err
	}
	// The stream check runs on twins of fn and raw: translations made while
	// the counter's hooks existed keep a hook dispatch (Unicorn removes a
	// deleted hook only when a run ends), which would slow the timed runs.
	fnTwin, err := start("function")
	if err != nil {
		return em, err
	}
	defer fnTwin.Close()
	rawTwin, err := start("function")
	if err != nil {
		return em, err
	}
	defer rawTwin.Close()
	if err := rawTwin.M.GoRaw(); err != nil {
		return em, err
	}
	hooked, trace, err := sameStream(fnTwin, rawTwin, 16)
	if err != nil {
		return em, err
	}
	em.InsnsPerCall = float64(hooked.Instructions) / 16
	em.StreamCalls, em.PCTrace = 16, trace
	args := []uint64{1, 2, 3, 4, 5, 6}
	// The emulator runs on the calling thread (the engine and its Go
	// callbacks): its CPU time is the run's cost whatever else the machine
	// runs, where wall time on a shared machine swings by 2-10x.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	timeOne := func(h *harness.Harness) (float64, error) {
		t0, err := threadCPU()
		if err != nil {
			return 0, err
		}
		if err := h.RunFast("add", args, calls); err != nil {
			return 0, err
		}
		t1, err := threadCPU()
		if err != nil {
			return 0, err
		}
		return perCall(t0, t1, calls), nil
	}
	timeChecked := func() (float64, error) {
		t0, err := threadCPU()
		if err != nil {
			return 0, err
		}
		if err := runChecked(int(calls)); err != nil {
			return 0, err
		}
		t1, err := threadCPU()
		if err != nil {
			return 0, err
		}
		return perCall(t0, t1, calls), nil
	}
	var gs, cs, fs, rs, bs, ratios, cratios []float64
	// One untimed round warms the translation caches.
	for r := -1; r < repeats; r++ {
		g, err := timeOne(graph)
		if err != nil {
			return em, fmt.Errorf("%s graph: %w", a.Name, err)
		}
		c, err := timeChecked()
		if err != nil {
			return em, fmt.Errorf("%s graph, checks on: %w", a.Name, err)
		}
		f, err := timeOne(fn)
		if err != nil {
			return em, fmt.Errorf("%s function tracer: %w", a.Name, err)
		}
		w, err := timeOne(raw)
		if err != nil {
			return em, fmt.Errorf("%s raw: %w", a.Name, err)
		}
		k, err := timeOne(blocks)
		if err != nil {
			return em, fmt.Errorf("%s block hook only: %w", a.Name, err)
		}
		if r >= 0 {
			gs, cs, fs, rs, bs = append(gs, g), append(cs, c), append(fs, f), append(rs, w), append(bs, k)
			ratios, cratios = append(ratios, f/w), append(cratios, c/g)
		}
	}
	if graph.Returns == 0 || fn.FunctionHits == 0 {
		return em, fmt.Errorf("%s: the timed calls were not traced (%d graph returns, %d function-tracer hits)", a.Name, graph.Returns, fn.FunctionHits)
	}
	if n := uint64(repeats+1) * calls; checked.Returns != n || checked.FunctionHits != n {
		return em, fmt.Errorf("%s: the checked calls were not all traced (%d returns, %d function-tracer hits for %d calls)", a.Name, checked.Returns, checked.FunctionHits, n)
	}
	em.ChecksOnNs, em.ChecksOnSpread = spreadOf(cs), spreadOf(cratios)
	em.ChecksOnRatio = em.ChecksOnSpread.Median
	em.GraphNs, em.FunctionNs, em.RawNs, em.BlocksNs = spreadOf(gs), spreadOf(fs), spreadOf(rs), spreadOf(bs)
	em.TracedCallsPerS = 1e9 / em.GraphNs.Median
	em.RatioSpread = spreadOf(ratios)
	em.RawUnicornRatio = em.RatioSpread.Median
	em.RatioIQR = [2]float64{quantile(ratios, 0.25), quantile(ratios, 0.75)}
	return em, nil
}

// startChecked starts the pairing with a function tracer and a graph user
// and checks on, and returns it with a function that makes n checked calls
// of add in one run of the checked driver: one call reused (the driver sets
// its canaries and arguments every time), each finished call handed to a
// callback that drops it, as a streaming analysis would, and its
// invocations recycled.
func startChecked(setup harness.Setup) (*harness.Harness, func(n int) error, error) {
	sc, err := harness.FindUserSet("function-graph")
	if err != nil {
		return nil, nil, err
	}
	h, err := harness.Start(setup, harness.Options{Checks: true, Timeout: 60 * time.Second, OnCall: func(*harness.Call) {}}, sc)
	if err != nil {
		return nil, nil, err
	}
	calls, err := harness.RandomCalls(h, "add", 1, 1)
	if err != nil {
		h.Close()
		return nil, nil, err
	}
	c := calls[0]
	run := func(n int) error {
		return h.RunCalls(n, func(int) *harness.Call {
			c.Results, c.Done = c.Results[:0], false
			return c
		})
	}
	return h, run, nil
}

// threadCPU is the calling thread's CPU time in ns.
func threadCPU() (int64, error) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, fmt.Errorf("the thread's CPU clock: %w", err)
	}
	return ts.Nano(), nil
}

// sameStream checks that n fast-driver calls of add execute the same
// stream on machines a and b (each then unfit for timing: see
// emu.ExactCounter.Close): call by call the same sequence of instruction
// addresses (emu.PCTrace), and in all the same instructions, loads and
// stores. It returns the count and the first call's trace.
func sameStream(a, b *harness.Harness, n uint64) (emu.ExactCount, emu.PCTrace, error) {
	x, tx, err := streamPerCall(a, n)
	if err != nil {
		return x, emu.PCTrace{}, err
	}
	y, ty, err := streamPerCall(b, n)
	if err != nil {
		return x, emu.PCTrace{}, err
	}
	for i := range tx {
		if tx[i] != ty[i] || tx[i].Count == 0 {
			return x, tx[0], fmt.Errorf("%s: the raw run is not the traced call's stream: call %d executed %d instructions (PC trace hash %#x) hooked, %d (%#x) raw", a.Arch.Name, i+1, tx[i].Count, tx[i].Hash, ty[i].Count, ty[i].Hash)
		}
	}
	if x != y || x.Instructions == 0 {
		return x, tx[0], fmt.Errorf("%s: the raw run is not the traced call's stream: hooked %+v, raw %+v per %d calls", a.Arch.Name, x, y, n)
	}
	return x, tx[0], nil
}

// streamPerCall counts, with emu's per-instruction counter over the text
// and the host stubs, what n fast-driver calls of add execute, one call
// per run so that each call's PC trace is its own.
func streamPerCall(h *harness.Harness, n uint64) (emu.ExactCount, []emu.PCTrace, error) {
	mm := h.Arch.Memory
	ec, err := h.M.CountExact(emu.Range{Lo: mm.Text.Base, Hi: mm.Text.End()}, emu.Range{Lo: mm.Stubs.Base, Hi: mm.Stubs.End()})
	if err != nil {
		return emu.ExactCount{}, nil, err
	}
	var traces []emu.PCTrace
	var runErr error
	for range n {
		ec.ResetPCTrace()
		if runErr = h.RunFast("add", []uint64{1, 2, 3, 4, 5, 6}, 1); runErr != nil {
			break
		}
		traces = append(traces, ec.PCTrace())
	}
	if err := ec.Close(); err != nil {
		return emu.ExactCount{}, nil, err
	}
	if runErr != nil {
		return emu.ExactCount{}, nil, runErr
	}
	c := ec.Counts()
	return emu.ExactCount{Instructions: c[0].Instructions + c[1].Instructions, Loads: c[0].Loads + c[1].Loads,
		Stores: c[0].Stores + c[1].Stores, LoadBytes: c[0].LoadBytes + c[1].LoadBytes, StoreBytes: c[0].StoreBytes + c[1].StoreBytes}, traces, nil
}
