package tests

import (
	"math/rand/v2"
	"strings"
	"testing"

	"trampemu/harness"
	"trampemu/regs"
)

// The checked driver makes its calls in batches from guest memory: across
// batch boundaries every call comes back done, with its result and with its
// own trampoline runs (tied to it by the cursor tag of the watch events);
// a call the driver cannot make is an error and no call is reported done.
// Both arches.
func TestCheckedDriverBatches(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			var done []*harness.Call
			invs := map[*harness.Call]int{}
			setup := harness.Setup{Arch: a, Entry: variant(t, a, "ftrace_caller"), Exit: variant(t, a, mergedExit(a))}
			h, err := harness.Start(setup, harness.Options{Checks: true, OnCall: func(c *harness.Call) {
				if c.Done {
					done = append(done, c)
				}
				invs[c] = len(c.Invocations)
			}}, scenario(t, "function-graph"))
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			r := rand.New(rand.NewPCG(7, 7))
			const n = 70 // three batches of at most 32
			err = h.RunCalls(n, func(int) *harness.Call {
				c, err := h.NewCall("add", r)
				if err != nil {
					t.Fatal(err)
				}
				return c
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(done) != n {
				t.Fatalf("%d calls done, want %d", len(done), n)
			}
			for i, c := range done {
				if len(c.Results) != 1 || c.Results[0] != c.Want[0] {
					t.Errorf("call %d: result %#x, want %#x", i, c.Results, c.Want)
				}
				if invs[c] != 2 {
					t.Errorf("call %d: %d trampoline runs, want 2 (entry and exit)", i, invs[c])
				}
			}

			done = nil
			fn, _ := h.Image.Symbol("add")
			err = h.RunCalls(1, func(int) *harness.Call {
				return &harness.Call{Workload: "add", Func: fn, Args: make([]uint64, len(a.Args)+3)}
			})
			if err == nil || !strings.Contains(err.Error(), "at most") {
				t.Errorf("a call with too many arguments: got %v, want an error saying how many the driver passes", err)
			}
			if len(done) != 0 {
				t.Errorf("%d calls reported done after the driver refused the batch", len(done))
			}
		})
	}
}
