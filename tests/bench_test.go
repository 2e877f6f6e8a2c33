package tests

import (
	"syscall"
	"testing"

	"trampemu/check"
	"trampemu/harness"
	"trampemu/regs"
)

// benchPairings are the pairings BenchmarkTracedCall times per arch.
var benchPairings = map[string][][2]string{
	"x86_64": {
		{"ftrace_caller", "rth-fixed"}, {"ftrace_caller", "rth-merged"}, {"ftrace_caller", "rth-full-fregs"},
		{"ftrace_regs_caller", "rth-fixed"}, {"ftrace_caller-v5.10", "rth-legacy"},
	},
	"s390x": {
		{"ftrace_caller", "rth-merged"}, {"ftrace_regs_caller", "rth-merged"}, {"ftrace_caller-v6.13", "rth-retval"},
	},
	"arm64": {
		{"ftrace_caller", "rth-merged"}, {"ftrace_caller", "rth-v7-draft"}, {"ftrace_caller-v6.2", "rth-retval"},
		{"ftrace_regs_caller-v5.10", "rth-legacy"},
	},
}

// BenchmarkTracedCall/<arch>/<entry>+<exit>/checks-{off,on}: b.N traced
// calls of the add workload in one run, with a function tracer and a graph
// user registered. Reports ns per traced call and traced calls per second.
func BenchmarkTracedCall(b *testing.B) {
	for _, a := range regs.Arches {
		if len(benchPairings[a.Name]) == 0 {
			b.Fatalf("no benchmark pairings for %s", a.Name)
		}
		for _, p := range benchPairings[a.Name] {
			for _, checks := range []bool{false, true} {
				name := a.Name + "/" + p[0] + "+" + p[1] + "/checks-off"
				if checks {
					name = a.Name + "/" + p[0] + "+" + p[1] + "/checks-on"
				}
				b.Run(name, func(b *testing.B) {
					setup := harness.Setup{Arch: a, Entry: variant(b, a, p[0]), Exit: variant(b, a, p[1])}
					h, err := harness.Start(setup, harness.Options{Checks: checks, OnCall: func(*harness.Call) {}}, scenario(b, "function-graph"))
					if err != nil {
						b.Fatal(err)
					}
					defer h.Close()
					b.ResetTimer()
					if checks {
						// One call object reused: the driver sets canaries and
						// arguments from it every time.
						calls, cerr := harness.RandomCalls(h, "add", 1, 1)
						if cerr != nil {
							b.Fatal(cerr)
						}
						err = h.RunCalls(b.N, func(int) *harness.Call {
							c := calls[0]
							c.Results, c.Done = c.Results[:0], false
							return c
						})
					} else {
						err = h.RunFast("add", []uint64{1, 2}, uint64(b.N))
					}
					if err != nil {
						b.Fatal(err)
					}
					b.StopTimer()
					if h.Returns != uint64(b.N) || h.Dispatches < uint64(b.N) || h.FunctionHits != uint64(b.N) {
						b.Fatalf("%d dispatches, %d function-tracer hits and %d returns for %d calls", h.Dispatches, h.FunctionHits, h.Returns, b.N)
					}
					ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
					b.ReportMetric(ns, "ns/tracedcall")
					b.ReportMetric(1e9/ns, "tracedcalls/s")
				})
			}
		}
	}
}

// BenchmarkCheck/<arch>/<variant>: what `trampemu check` costs per traced
// call: the checked run with every observation and the analysis into
// findings (add workload, default scenario), machine set-up included.
// interrupts-off leaves the interrupt model out (every run interrupted at
// one boundary costs a Go call and a poison of the stack below sp).
func BenchmarkCheck(b *testing.B) {
	for _, a := range regs.Arches {
		for _, name := range []string{"ftrace_caller", "rth-merged"} {
			for _, irq := range []bool{true, false} {
				sub := a.Name + "/" + name + "/interrupts-on"
				if !irq {
					sub = a.Name + "/" + name + "/interrupts-off"
				}
				b.Run(sub, func(b *testing.B) {
					tr := variant(b, a, name)
					runCheck(b, check.Config{Arch: a, Tramp: tr, Workloads: []string{"add"}, Calls: 1, NoInterrupts: true}) // build once
					b.ResetTimer()
					rs := runCheck(b, check.Config{Arch: a, Tramp: tr, Workloads: []string{"add"}, Calls: b.N, Seed: 1, NoInterrupts: !irq})
					if !rs[0].OK {
						b.Fatalf("findings: %s", findings(rs[0]))
					}
					ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
					b.ReportMetric(ns, "ns/checkedcall")
					b.ReportMetric(1e9/ns, "checkedcalls/s")
				})
			}
		}
	}
}

// cpuSeconds is the process's user and system CPU time so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// BenchmarkDefaultCheck/<arch>/interrupts-{on,off}: what the default
// `trampemu check --arch A` costs: every registry variant of the arch on
// every workload, 8 calls each (more with interrupts on, until every
// boundary was interrupted), machine set-ups included. Reports seconds per
// whole check.
func BenchmarkDefaultCheck(b *testing.B) {
	for _, a := range regs.Arches {
		for _, irq := range []bool{true, false} {
			sub := a.Name + "/interrupts-on"
			if !irq {
				sub = a.Name + "/interrupts-off"
			}
			b.Run(sub, func(b *testing.B) {
				// Assemble and link every pairing first (the image cache):
				// the figure is the check's, not the assembler's.
				for _, v := range harness.VariantsOf(a, "") {
					runCheck(b, check.Config{Arch: a, Tramp: variant(b, a, v.Name), Workloads: []string{"add"}, Calls: 1, NoInterrupts: true})
				}
				b.ResetTimer()
				cpu0 := cpuSeconds()
				for i := 0; i < b.N; i++ {
					for _, v := range harness.VariantsOf(a, "") {
						runCheck(b, check.Config{Arch: a, Tramp: variant(b, a, v.Name), Seed: 1, NoInterrupts: !irq})
					}
				}
				b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/check")
				// CPU time too: on a shared machine it varies less than the clock.
				b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/check")
			})
		}
	}
}
