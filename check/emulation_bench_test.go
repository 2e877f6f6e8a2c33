package check

import (
	"runtime"
	"testing"

	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
)

// BenchmarkRawUnicorn/<arch>/{hooked,raw}: b.N function-tracer traced
// calls of add through the arch's current pairing, checks off (hooked) and
// on raw Unicorn with every trampemu hook removed (raw: the same
// instruction stream, see Emulation). benchstat on the two gives the
// overhead trampemu adds.
func BenchmarkRawUnicorn(b *testing.B) {
	for _, a := range regs.Arches {
		for _, raw := range []bool{false, true} {
			name := a.Name + "/hooked"
			if raw {
				name = a.Name + "/raw"
			}
			b.Run(name, func(b *testing.B) {
				h := currentHarness(b, a, "function", harness.Options{})
				if raw {
					if err := h.M.GoRaw(); err != nil {
						b.Fatal(err)
					}
				}
				b.ResetTimer()
				if err := h.RunFast("add", []uint64{1, 2}, uint64(b.N)); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if !raw && h.FunctionHits != uint64(b.N) {
					b.Fatalf("%d function-tracer hits for %d calls", h.FunctionHits, b.N)
				}
				if raw && h.FunctionHits != 0 {
					b.Fatalf("raw run called Go: %d function-tracer hits", h.FunctionHits)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/tracedcall")
			})
		}
	}
}

// BenchmarkTracedCallProfile/<arch>/<part> splits the cost of a traced call
// through the arch's current pairing (checks off, the fast driver, add) the
// way a profile would, one configuration per step, each adding one part of
// trampemu's work to the raw instruction stream:
//
//   - raw: raw Unicorn, every trampemu hook removed (emu.Machine.GoRaw);
//   - blocks: plus the C block hook (counter, instruction limit), host
//     stubs plain returns;
//   - c-dispatch: plus the host call of ftrace_ops_list_func done in C (a
//     plain function tracer's bookkeeping, harness armFast): reading its
//     arguments, the volatile-register clobber as one batch;
//   - go-dispatch: the same host call through Go (harness.Options.NoFast):
//     the cgo crossing, the ftrace model, the function tracer;
//   - graph: a function tracer and a graph user (entry and exit trampoline
//     every call, both host calls in Go).
//
// benchstat over the parts gives each part's ns; -benchmem shows that a
// host call allocates nothing.
func BenchmarkTracedCallProfile(b *testing.B) {
	parts := []struct {
		name, scenario string
		opts           harness.Options
		prep           func(h *harness.Harness) error
	}{
		{"raw", "function", harness.Options{}, func(h *harness.Harness) error { return h.M.GoRaw() }},
		{"blocks", "function", harness.Options{}, func(h *harness.Harness) error { return h.M.DropHostFunctions() }},
		{"c-dispatch", "function", harness.Options{}, nil},
		{"go-dispatch", "function", harness.Options{NoFast: true}, nil},
		{"graph", "function-graph", harness.Options{}, nil},
	}
	for _, a := range regs.Arches {
		for _, p := range parts {
			b.Run(a.Name+"/"+p.name, func(b *testing.B) {
				h := currentHarness(b, a, p.scenario, p.opts)
				if p.prep != nil {
					if err := p.prep(h); err != nil {
						b.Fatal(err)
					}
				}
				// Warm the translations outside the timing.
				if err := h.RunFast("add", []uint64{1, 2}, 64); err != nil {
					b.Fatal(err)
				}
				hits := h.FunctionHits
				b.ReportAllocs()
				b.ResetTimer()
				if err := h.RunFast("add", []uint64{1, 2}, uint64(b.N)); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				traced := p.prep == nil
				if got := h.FunctionHits - hits; traced && got != uint64(b.N) {
					b.Fatalf("%d function-tracer hits for %d calls", got, b.N)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/tracedcall")
			})
		}
	}
}

// currentPair is the arch's current entry and exit.
func currentPair(tb testing.TB, a *regs.Arch) (entry, exit harness.Tramp) {
	tb.Helper()
	entry, err := harness.Current(a, trampolines.Entry)
	if err != nil {
		tb.Fatal(err)
	}
	if exit, err = harness.Current(a, trampolines.Exit); err != nil {
		tb.Fatal(err)
	}
	return entry, exit
}

// currentHarness starts the arch's current pairing with the scenario's
// users, closed when the test or benchmark ends.
func currentHarness(tb testing.TB, a *regs.Arch, scenario string, o harness.Options) *harness.Harness {
	tb.Helper()
	entry, exit := currentPair(tb, a)
	sc, err := harness.FindUserSet(scenario)
	if err != nil {
		tb.Fatal(err)
	}
	h, err := harness.Start(harness.Setup{Arch: a, Entry: entry, Exit: exit}, o, sc)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(h.Close)
	return h
}

// BenchmarkChecksOn/<arch>/checks-{off,on}: b.N traced calls of add with a
// function tracer and a graph user through the arch's current pairing,
// checks off (the fast driver) and on (the checked driver with every
// observation: startChecked, as MeasureEmulation's checks-on column), in
// one run each after a warm-up that spends the memory probes' budget.
// benchstat on the two gives what the checks add per call; -benchmem
// shows what a checked call allocates; -cpuprofile where it goes.
func BenchmarkChecksOn(b *testing.B) {
	for _, a := range regs.Arches {
		for _, checks := range []bool{false, true} {
			name := a.Name + "/checks-off"
			if checks {
				name = a.Name + "/checks-on"
			}
			b.Run(name, func(b *testing.B) {
				var h *harness.Harness
				var run func(int) error
				if checks {
					entry, exit := currentPair(b, a)
					var err error
					if h, run, err = startChecked(harness.Setup{Arch: a, Entry: entry, Exit: exit}); err != nil {
						b.Fatal(err)
					}
					b.Cleanup(h.Close)
				} else {
					h = currentHarness(b, a, "function-graph", harness.Options{})
					run = func(n int) error { return h.RunFast("add", []uint64{1, 2}, uint64(n)) }
				}
				if err := run(1024); err != nil {
					b.Fatal(err)
				}
				returns := h.Returns
				// The emulating thread's CPU time as well: on a shared
				// machine it varies much less than the clock.
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				b.ReportAllocs()
				b.ResetTimer()
				t0, err := threadCPU()
				if err != nil {
					b.Fatal(err)
				}
				if err := run(b.N); err != nil {
					b.Fatal(err)
				}
				t1, err := threadCPU()
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if got := h.Returns - returns; got != uint64(b.N) {
					b.Fatalf("%d graph returns for %d calls", got, b.N)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/tracedcall")
				b.ReportMetric(float64(t1-t0)/float64(b.N), "cpu-ns/tracedcall")
			})
		}
	}
}
