package check

import (
	"time"

	"trampemu/harness"
)

// Speed is how fast traced calls run through a pairing.
type Speed struct {
	Workload    string  `json:"workload"`
	Calls       uint64  `json:"calls"`
	NsPerCall   float64 `json:"ns_per_call"`
	CallsPerSec float64 `json:"calls_per_sec"`
	Checks      bool    `json:"checks"`
}

// MeasureSpeed runs n traced calls of workload through the pairing in one
// emulator run, with a function tracer and a graph user registered, and
// times them. With checks, the observation hooks are on (the checked
// driver, probes, poison); without, the fast driver runs with none.
func MeasureSpeed(setup harness.Setup, workload string, n uint64, checks bool) (Speed, error) {
	sc, err := harness.FindUserSet("function-graph")
	if err != nil {
		return Speed{}, err
	}
	h, err := harness.Start(setup, harness.Options{Checks: checks}, sc)
	if err != nil {
		return Speed{}, err
	}
	defer h.Close()
	sp := Speed{Workload: workload, Calls: n, Checks: checks}
	var elapsed time.Duration
	if checks {
		calls, err := harness.RandomCalls(h, workload, int(n), 1)
		if err != nil {
			return sp, err
		}
		start := time.Now()
		if err := h.RunChecked(calls); err != nil {
			return sp, err
		}
		elapsed = time.Since(start)
	} else {
		start := time.Now()
		if err := h.RunFast(workload, []uint64{1, 2, 3, 4, 5, 6}, n); err != nil {
			return sp, err
		}
		elapsed = time.Since(start)
	}
	sp.NsPerCall = float64(elapsed.Nanoseconds()) / float64(n)
	sp.CallsPerSec = float64(n) / elapsed.Seconds()
	return sp, nil
}
