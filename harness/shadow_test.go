package harness

import (
	"testing"

	"trampemu/ftrace"
	"trampemu/regs"
	"trampemu/trampolines"
)

// TestShadowMarksEveryCall: with checks on, a finished call's Shadow is
// the tasks' shadow stacks it left unbalanced, from the marks taken as its
// first invocation began and the stacks as each ended (beginInvocation,
// endInvocation): an ops callback that pushes a second copy of the graph
// entry's frame leaves one frame per call behind, every arch; without it,
// none.
func TestShadowMarksEveryCall(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			sc, err := FindUserSet("graph")
			if err != nil {
				t.Fatal(err)
			}
			for _, leak := range []bool{false, true} {
				h := startCurrent(t, a, sc, Options{Checks: true})
				if leak {
					if err := h.K.Ftrace.Register(&ftrace.Ops{Name: "leaky", Func: func(ip, parent uint64, _ *ftrace.Ops, _ *regs.Frame) {
						if fs, err := h.K.Graph.Frames(); err == nil && len(fs) > 0 {
							f := fs[0]
							h.K.Graph.Enter(f.Ret, f.Func, f.FP, f.Retp, nil)
						}
					}}); err != nil {
						t.Fatal(err)
					}
				}
				calls, err := RandomCalls(h, "add", 2, 2)
				if err != nil {
					t.Fatal(err)
				}
				b := h.RunBatch(len(calls), func(i int) *Call { return calls[i] })
				if b.Stop != nil {
					t.Fatal(b.Stop.Err)
				}
				for i, c := range b.Calls {
					if !c.Done {
						t.Fatalf("leak %v: call %d not done", leak, i)
					}
					if got := len(c.Shadow) > 0; got != leak {
						t.Errorf("leak %v: call %d: shadow %+v", leak, i, c.Shadow)
					}
				}
				h.Close()
			}
		})
	}
}

// startCurrent starts arch a's current pairing with the users of sc.
func startCurrent(t *testing.T, a *regs.Arch, sc UserSet, o Options) *Harness {
	t.Helper()
	entry, err := Current(a, trampolines.Entry)
	if err != nil {
		t.Fatal(err)
	}
	exit, err := Current(a, trampolines.Exit)
	if err != nil {
		t.Fatal(err)
	}
	h, err := Start(Setup{Arch: a, Entry: entry, Exit: exit}, o, sc)
	if err != nil {
		t.Fatal(err)
	}
	return h
}
