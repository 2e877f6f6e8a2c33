package mutate

import (
	"runtime"
	"testing"
	"time"

	"trampemu/harness"
	"trampemu/regs"
)

func TestDebugEach(t *testing.T) {
	a := regs.X86_64
	v, _ := harness.FindVariant(a, "", "ftrace_caller")
	tr, _ := harness.FromVariant(v)
	ms, err := Mutants(a, tr)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d mutants", len(ms))
	p, _ := harness.Pair(a, tr)
	o := &original{t: tr, partner: p}
	cfg := Config{Arch: a}
	t0 := time.Now()
	if err := o.check(cfg); err != nil {
		t.Fatal(err)
	}
	t.Logf("orig %v keys %d", time.Since(t0), len(o.obs.calls))
	for _, m := range ms {
		t0 := time.Now()
		oc := o.classify(cfg, m)
		var st runtime.MemStats
		runtime.ReadMemStats(&st)
		t.Logf("%v %dMB %s %s %s %s %+v", time.Since(t0).Round(time.Millisecond), st.HeapAlloc>>20, m.Where(), m.Mutation(), oc.Class, oc.Detail, oc.Survivor)
	}
}
