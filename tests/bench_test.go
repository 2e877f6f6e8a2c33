package tests

import (
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
}

// BenchmarkTracedCall/<arch>/<entry>+<exit>/checks-{off,on}: b.N traced
// calls of the add workload in one run, with a function tracer and a graph
// user registered. Reports ns per traced call and traced calls per second.
func BenchmarkTracedCall(b *testing.B) {
	for _, a := range regs.Arches {
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
func BenchmarkCheck(b *testing.B) {
	for _, a := range regs.Arches {
		for _, name := range []string{"ftrace_caller", "rth-merged"} {
			b.Run(a.Name+"/"+name, func(b *testing.B) {
				tr := variant(b, a, name)
				rs := runCheck(b, check.Config{Arch: a, Tramp: tr, Workloads: []string{"add"}, Calls: b.N, Seed: 1})
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
