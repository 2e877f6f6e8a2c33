package tests

import (
	"math/rand/v2"
	"testing"

	"trampemu/emu"
	"trampemu/harness"
	"trampemu/regs"
)

// RunBatch returns each run's observations as data, after the run: every
// call with its trampoline runs, each carrying the facts it is checked
// against (the ops pointer, the driver's sp, the poison constant, the
// clobber values, the graph user), and the run's counters; a run the
// instruction limit stops comes back with a Stop saying so. Every arch.
func TestRunBatchObservations(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			setup := harness.Setup{Arch: a, Entry: variant(t, a, "ftrace_caller"), Exit: variant(t, a, mergedExit(a))}
			h, err := harness.Start(setup, harness.Options{Checks: true}, scenario(t, "function-graph"))
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			r := rand.New(rand.NewPCG(3, 3))
			gen := func(int) *harness.Call {
				c, err := h.NewCall("add", r)
				if err != nil {
					t.Fatal(err)
				}
				return c
			}
			const n = 40 // two driver batches
			b := h.RunBatch(n, gen)
			if b.Stop != nil {
				t.Fatal(b.Stop.Err)
			}
			if len(b.Calls) != n {
				t.Fatalf("%d calls in the batch, want %d", len(b.Calls), n)
			}
			runs := 0
			for i, c := range b.Calls {
				if !c.Done || len(c.Invocations) != 2 {
					t.Fatalf("call %d: done %v with %d trampoline runs, want done with 2", i, c.Done, len(c.Invocations))
				}
				for _, inv := range c.Invocations {
					runs++
					if inv.Ops != h.K.FunctionTraceOp || inv.Ops == 0 {
						t.Errorf("call %d: ops %#x, want function_trace_op %#x", i, inv.Ops, h.K.FunctionTraceOp)
					}
					if inv.DriverSP == 0 || inv.DriverSP < inv.Before[a.SP] {
						t.Errorf("call %d: driver sp %#x below the trampoline's entry sp %#x", i, inv.DriverSP, inv.Before[a.SP])
					}
					if inv.PoisonXor != emu.PoisonXor || !inv.GraphActive || inv.Clobbered[a.Ret[0]] != emu.ClobberValue(a.Ret[0]) {
						t.Errorf("call %d: run facts %+v", i, inv.RunFacts)
					}
				}
			}
			if runs != 2*n || b.Prepares != 0 {
				t.Errorf("%d runs, %d prepare_ftrace_return calls; want %d and 0 (the graph entry of ftrace_caller is ftrace_graph_func)", runs, b.Prepares, 2*n)
			}
			h.Recycle(b)
			if len(b.Calls[0].Invocations) != 0 {
				t.Errorf("Recycle left the invocations in the calls")
			}
			if h.Returns == 0 || h.Dispatches != uint64(n) {
				t.Errorf("kernel counters: %d dispatches, %d returns; want %d and more than 0", h.Dispatches, h.Returns, n)
			}

			// A run the instruction limit stops: a Stop, runaway, with the
			// call it cut short last.
			h.Opts.Limit = 50
			b = h.RunBatch(4, gen)
			h.Opts.Limit = 0
			if b.Stop == nil || !b.Stop.Emulated || !b.Stop.Runaway || b.Stop.Arch != a.Name {
				t.Fatalf("stop = %+v, want the instruction limit", b.Stop)
			}
			if len(b.Calls) == 0 || b.Calls[len(b.Calls)-1].Done {
				t.Errorf("the cut-short call is missing or done: %d calls", len(b.Calls))
			}
		})
	}
}

// mergedExit is the arch's v6.14+ return_to_handler without a known bug:
// rth-merged, and on riscv64 (whose v6.14 form and fix both have one)
// rth-retval.
func mergedExit(a *regs.Arch) string {
	if a == regs.RISCV64 {
		return "rth-retval"
	}
	return "rth-merged"
}
