package check

import (
	"fmt"
	"math/rand/v2"
	"time"

	"trampemu/harness"
	"trampemu/kernel"
	"trampemu/regs"
	"trampemu/trampolines"
)

// Config is one check: a trampoline, its partner for the other role, the
// workloads and the scenario.
type Config struct {
	Arch  *regs.Arch
	Tramp harness.Tramp
	// Partner is the trampoline for the other role; nil takes the variant's
	// intended pair (for a user's file: the kernel's current variant).
	Partner *harness.Tramp
	// Workloads to run; nil: all of the arch.
	Workloads []string
	Scenario  harness.UserSet
	// Calls per workload, each with a fresh random register file and
	// arguments; 0 means 8.
	Calls int
	Seed  uint64
	// NoClobber: host functions leave volatile registers alone.
	NoClobber bool
	// Limit bounds the instructions of each batch of calls (0: the
	// emulator's default); a run that reaches it is a control finding.
	Limit uint64
	// Started, when set, is called with each workload's harness before its
	// calls run (e.g. to attach a tracer); an error stops the check.
	Started func(h *harness.Harness) error
	// Observe, when set, sees each call with its invocations before the
	// analysis (they are recycled after, so it must copy what it keeps).
	Observe func(c *harness.Call)
	// NoInterrupts turns the interrupt model off (interrupts.go); with it
	// on, a workload gets more than Calls calls when it takes more runs to
	// interrupt every executed boundary of the trampoline under test.
	NoInterrupts bool
	// InterruptCalls bounds the extra calls the interrupt model gets per
	// workload (0: maxInterruptCalls); boundaries it leaves unvisited are
	// an Unvisited note.
	InterruptCalls int
}

// maxInterruptCalls bounds the extra calls a workload gets for the
// interrupt model to visit every boundary.
const maxInterruptCalls = 1000

// maxIrqRestarts bounds how often a workload's calls go on after a run
// the modelled interrupt broke (a fault, a runaway loop).
const maxIrqRestarts = 16

// callBatch is how many calls one emulator run makes.
const callBatch = 50

// Run checks cfg.Tramp on every workload and returns one Result per
// workload. An error means the check could not run at all (assembly, link,
// setup); problems of the trampoline are findings.
func Run(cfg Config) ([]Result, error) {
	a := cfg.Arch
	partner := cfg.Partner
	if partner == nil {
		p, err := harness.Pair(a, cfg.Tramp)
		if err != nil {
			return nil, err
		}
		partner = &p
	}
	setup := harness.Setup{Arch: a, Entry: cfg.Tramp, Exit: *partner}
	if cfg.Tramp.Role.Returns() {
		setup.Entry, setup.Exit = *partner, cfg.Tramp
	}
	wls := cfg.Workloads
	if len(wls) == 0 {
		wls = harness.WorkloadNames(a)
	}
	if cfg.Scenario.Name == "" {
		s, _ := harness.FindUserSet("default")
		cfg.Scenario = s
	}
	if cfg.Calls <= 0 {
		cfg.Calls = 8
	}
	if v := cfg.Tramp.Variant; v != nil && v.NoReturn && cfg.Limit == 0 {
		cfg.Limit = noReturnLimit // it ends at the limit: reach it soon
	}
	var out []Result
	for wi, w := range wls {
		if _, err := harness.FindWorkload(a, w); err != nil {
			return nil, err
		}
		r, err := runOne(cfg, setup, w, uint64(wi))
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func runOne(cfg Config, setup harness.Setup, workload string, wi uint64) (Result, error) {
	a := cfg.Arch
	other := setup.Exit
	if cfg.Tramp.Role.Returns() {
		other = setup.Entry
	}
	res := Result{Arch: a.Name, Variant: cfg.Tramp.Name, Role: string(cfg.Tramp.Role), Pair: other.Name,
		Workload: workload, Scenario: cfg.Scenario.Name}
	if m := cfg.Tramp.Model; m != nil {
		res.Kernel = &Kernel{Model: m.Model.Name, Reason: m.Reason, Properties: m.Properties, Note: m.Note}
		if m.Makefile != (kernel.Version{}) {
			res.Kernel.MakefileVersion = m.Makefile.String()
		}
	}
	var irq trampolines.Role
	if !cfg.NoInterrupts {
		irq = slotRole(cfg.Tramp.Role)
	}
	cl, err := limitFor(a, cfg.Scenario, workload)
	if err != nil {
		return res, err
	}
	h, err := harness.Start(setup, harness.Options{Checks: true, NoClobber: cfg.NoClobber, Timeout: 60 * time.Second, Limit: cfg.Limit,
		Interrupts: irq, CallLimit: cl.n}, cfg.Scenario)
	if err != nil {
		return res, err
	}
	defer h.Close()
	unit := h.MeasureUnit(cfg.Tramp)
	z, err := newAnalyzer(Subject{Arch: a, Tramp: cfg.Tramp, Setup: setup, Unit: unit, Describe: h.Describe,
		Insn: func(pc uint64) string { return insnText(h.Image, pc) }, Objtool: ObjtoolWarningsOf(h.Image, cfg.Tramp.Role),
		CallLimit: cl.why})
	if err != nil {
		return res, err
	}
	if cfg.Started != nil {
		if err := cfg.Started(h); err != nil {
			return res, err
		}
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, wi))
	var genErr error
	gen := func(int) *harness.Call {
		c, err := h.NewCall(workload, rng)
		if err != nil {
			genErr = err
			return &harness.Call{Workload: workload, Func: h.Image.HostFuncs[harness.HostDirectHook]}
		}
		return c
	}
	h.M.ResetCounts()
	// Batches of calls, each one emulator run with its own time limit: a
	// hang is caught per batch, and a slow machine (or -race) still finishes.
	// Each run returns its observations, which the analysis takes after
	// the run (never inside the emulator's callbacks).
	// The Calls calls run uninterrupted (the baseline the interrupted runs'
	// findings are compared with); with interrupts on, more calls follow,
	// every run interrupted at the next boundary, until every executed
	// boundary was.
	h.SetInterrupting(false)
	calls, extra, restarts := cfg.Calls, 0, 0
	var stops []uint64 // where runs stopped (falloff.go)
	why := ""          // why the interrupt model stopped short, if it did
	maxExtra := maxInterruptCalls
	if cfg.InterruptCalls > 0 {
		maxExtra = cfg.InterruptCalls
	}
	for done := 0; done < calls; {
		n := min(callBatch, calls-done)
		b := h.RunBatch(n, gen)
		done += n
		if genErr != nil {
			return res, genErr
		}
		if cfg.Observe != nil {
			for _, c := range b.Calls {
				cfg.Observe(c)
			}
		}
		z.batch(b)
		irqCut := z.cutShort != nil && z.cutShort.Interrupted
		if b.Stop != nil {
			z.runStop(b.Stop)
			if b.Stop.Emulated {
				stops = append(stops, b.Stop.PC)
			}
		}
		h.Recycle(b) // analysed: the next run reuses the invocations
		if b.Stop != nil {
			if irqCut && restarts < maxIrqRestarts {
				// The modelled interrupt broke the run: the finding is
				// recorded, the next batch starts from the driver again
				// and the model goes on to the next boundary.
				restarts++
				z.cutShort = nil
				continue
			}
			why = whyStopped
			if irqCut {
				why = whyRestartLimit + fmt.Sprintf(" (%d)", maxIrqRestarts)
			}
			break // the machine's state is not to be trusted any more
		}
		if done == calls && irq != "" {
			if miss := len(z.missingBoundaries(executedBoundaries(h.Image, h.M.Blocks(), unit))); miss > 0 {
				if extra >= maxExtra {
					why = whyCallLimit + fmt.Sprintf(" (%d)", maxExtra)
					break
				}
				h.SetInterrupting(true)
				// Each run takes one boundary: enough calls for miss+1
				// runs at the runs per call seen so far.
				perCall := max(int(z.runs)/done, 1)
				more := min((miss+perCall)/perCall, maxExtra-extra)
				calls += more
				extra += more
			}
		}
	}
	blocks := h.M.Blocks()
	if irq != "" {
		z.unvisited(z.missingBoundaries(executedBoundaries(h.Image, blocks, unit)), why)
	}
	z.unknownRan(unknownExecuted(h.Unknown, blocks))
	own := h.EntryUnit() // all of the trampoline's code, not only what the cost counts
	if cfg.Tramp.Role == trampolines.Exit {
		own = h.ExitUnit()
	}
	z.fellOff(fallOffs(h.Image, blocks, own, stops))
	z.finish()
	m, _ := unitCost(h.Image, blocks, unit)
	z.fill(&res, m)
	if cfg.Tramp.Measure != "" && m.Instructions == 0 {
		res.Findings = append(res.Findings, Finding{Kind: Control, Severity: Control.Severity(), Count: 1,
			Summary: cfg.Tramp.Measure + " never ran", Message: cfg.Tramp.Measure + " never ran: no traced call reached it"})
		res.OK = false
	}
	markKnown(&res, cfg.Tramp, other)
	res.OK = res.Errors() == 0
	return res, nil
}

// Variants returns the Tramps of the registry for an arch (all roles when
// role is "").
func Variants(a *regs.Arch, role trampolines.Role) ([]harness.Tramp, error) {
	var out []harness.Tramp
	for _, v := range harness.VariantsOf(a, role) {
		t, err := harness.FromVariant(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", v.Name, err)
		}
		out = append(out, t)
	}
	return out, nil
}
