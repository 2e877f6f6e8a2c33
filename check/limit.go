package check

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
)

// CleanFactor is how many times the instructions of a clean call a checked
// call may run before it counts as runaway: a clean call is the same call
// of the same workload in the same scenario through the arch's current
// pairing (harness.Current), whose cost is known. A trampoline that loops
// is stopped after that many instructions, not after the emulator's
// default limit (emu.DefaultLimit) for a whole batch.
const CleanFactor = 64

// cleanCalls is how many calls the clean cost is averaged over.
const cleanCalls = 4

// callLimit is one (arch, scenario, workload)'s per-call instruction limit
// and the sentence that says how it was chosen.
type callLimit struct {
	n   uint64
	why string
}

// callLimits caches callLimit per arch, scenario and workload: the current
// pairing's cost does not depend on the trampoline under test.
var callLimits sync.Map // string -> callLimit

// limitFor returns the per-call instruction limit of a workload's checked
// calls in the scenario: CleanFactor times the instructions of a clean
// call (driver and kernel stand-ins' guest code included).
func limitFor(a *regs.Arch, sc harness.UserSet, workload string) (callLimit, error) {
	key := a.Name + "\x00" + sc.Name + "\x00" + workload
	if l, ok := callLimits.Load(key); ok {
		return l.(callLimit), nil
	}
	entry, err := harness.Current(a, trampolines.Entry)
	if err != nil {
		return callLimit{}, err
	}
	exit, err := harness.Current(a, trampolines.Exit)
	if err != nil {
		return callLimit{}, err
	}
	h, err := harness.Start(harness.Setup{Arch: a, Entry: entry, Exit: exit}, harness.Options{Checks: true, Timeout: 60 * time.Second}, sc)
	if err != nil {
		return callLimit{}, err
	}
	defer h.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	var genErr error
	b := h.RunBatch(cleanCalls, func(int) *harness.Call {
		c, err := h.NewCall(workload, rng)
		if err != nil {
			genErr = err
			return &harness.Call{Workload: workload, Func: h.Image.HostFuncs[harness.HostDirectHook]}
		}
		return c
	})
	h.Recycle(b)
	if genErr != nil {
		return callLimit{}, genErr
	}
	if b.Stop != nil {
		return callLimit{}, fmt.Errorf("the clean cost of %s %s: the current pairing %s + %s did not finish: %w", a.Name, workload, entry.Name, exit.Name, b.Stop.Err)
	}
	per := (h.M.Executed() + cleanCalls - 1) / cleanCalls
	l := callLimit{n: CleanFactor * per,
		why: fmt.Sprintf("%d x the %d instructions of a clean call of %s through %s + %s", CleanFactor, per, workload, entry.Name, exit.Name)}
	callLimits.Store(key, l)
	return l, nil
}
