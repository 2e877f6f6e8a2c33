package mutate

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"

	"trampemu/asm"
	"trampemu/check"
	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
)

// Classes of a mutant.
const (
	Killed     = "killed"
	Stillborn  = "stillborn"
	Equivalent = "equivalent"
	Survived   = "survived"
)

// ReasonRemovable marks a survivor whose only difference is in frame
// slots nobody reads (the original's unused-store findings).
const ReasonRemovable = "removable"

// ReasonStackLayout marks a survivor that only moved its frame on the
// stack (a frame 8 bytes larger or smaller, still aligned): every value
// the callbacks, the kernel and the caller see is the same, only the
// stack addresses handed to C differ.
const ReasonStackLayout = "stack-layout"

// ReasonUnwindTable marks a survivor whose machine code is the original's
// but whose unwind data (the ORC table the kernel's objtool wrote: an
// UNWIND_HINT_* line deleted or changed) differs, where no ORC walk of the
// check (the interrupt model's boundaries, a return probe's perf walk)
// read a changed entry: the kernel would unwind differently only from
// places the check does not stop at.
const ReasonUnwindTable = "unwind-table"

// unwindTableDiffers is an unwind-table survivor's difference.
const unwindTableDiffers = "the ORC table (.orc_unwind_ip, .orc_unwind)"

// Config is one mutation run.
type Config struct {
	Arch   *regs.Arch
	Tramps []harness.Tramp
	// Calls per workload of each check (0: 8, check's default).
	Calls int
	// Workloads to check (nil: all of the arch, as check does).
	Workloads []string
	// Workers run mutants in parallel (0: two per CPU, runtime.NumCPU()
	// times 2: a build waits on cpp, as and ld, so one per CPU leaves
	// them idle; measured 20-30% faster on 2 cores).
	Workers int
	// Only, when set, keeps the mutants it returns true for.
	Only func(Mutant) bool
	// Progress, when set, is called after each check (originals and
	// mutants) with the number done and the total; from one goroutine at a
	// time.
	Progress func(done, total int)
}

// Survivor is a mutant the check did not kill.
type Survivor struct {
	Mutation string `json:"mutation"`
	Line     string `json:"line"`   // file:line
	Reason   string `json:"reason"` // "removable", "stack-layout", "unwind-table", or "" (a gap in the checks)
	// Finding is the original's unused-store finding a removable survivor
	// matches.
	Finding string `json:"finding,omitempty"`
	// Differs names the first observations that differ (unexplained
	// survivors).
	Differs []string `json:"differs,omitempty"`
}

// Outcome is one mutant's class.
type Outcome struct {
	Mutant Mutant
	Class  string
	// Detail: the killing finding, the build error, the equivalence rule.
	Detail   string
	Survivor *Survivor
}

// Summary is the mutation result of one variant.
type Summary struct {
	Arch    string `json:"arch"`
	Variant string `json:"variant"`
	Role    string `json:"role"`
	Kernel  bool   `json:"kernel"`
	// Bug is the variant's known defect: its error findings can hide a
	// mutant's (one that only breaks what is already broken survives).
	Bug        string     `json:"bug,omitempty"`
	User       bool       `json:"user,omitempty"` // a user's --file
	Mutants    int        `json:"mutants"`
	Killed     int        `json:"killed"`
	Stillborn  int        `json:"stillborn"`
	Equivalent int        `json:"equivalent"`
	Survived   []Survivor `json:"survived"`
	// Outcomes has every mutant with its class, in Mutants' order.
	Outcomes []Outcome `json:"-"`
}

// Unexplained counts the survivors without a reason.
func (s Summary) Unexplained() int {
	n := 0
	for _, v := range s.Survived {
		if v.Reason == "" {
			n++
		}
	}
	return n
}

// Gap reports whether the summary shows a gap in the checks: an
// unexplained survivor of a user's file or of a merged variant without a
// known bug (a draft's or a known bug's findings can mask its mutants).
func (s Summary) Gap() bool {
	return s.Unexplained() > 0 && (s.User || (s.Kernel && s.Bug == ""))
}

// original is what every mutant of a variant is compared with.
type original struct {
	t, partner harness.Tramp
	code       []byte
	// unwind is the image's ORC table (unwindData), objtool its objtool
	// warnings (objtoolKeys): what the checks report on besides the run.
	unwind  []byte
	objtool map[string]int
	errors  map[string]bool   // error findings by errorKey
	unused  map[string]string // slot -> unused-store finding
	obs     *observations
	// reported are the metrics of the original's results a finding can
	// depend on (reportedMetrics), by workload.
	reported map[string]string
	// orcLost are the original's ORC-lost boundaries by workload.
	orcLost map[string][]string
	mutants []Mutant
}

// reportedMetrics are the metrics of a check's result that are verdicts
// of the checks, not costs: the boundaries at which the arch's unwinder
// loses the traced function's caller (the interrupt model's unwind
// column: a trampoline that writes its back chain one instruction later
// loses one more). A mutant whose check reports them differently is
// killed: what the checks report told it apart. (The slots the asm fills
// are observed per call, see observations; the costs are not verdicts: a
// deleted no-op changes them.)
func reportedMetrics(rs []check.Result) map[string]string {
	out := map[string]string{}
	for _, r := range rs {
		m := r.Metrics
		out[r.Workload] = fmt.Sprintf("unwind-lost boundaries %d", m.UnrecoverableInsns)
		if m.HasORC {
			out[r.Workload] += fmt.Sprintf(", ORC-lost boundaries %d", m.ORCUnrecoverableInsns)
		}
	}
	return out
}

// reportedDiff names the first workload whose reported metrics differ
// between the original's and the mutant's results ("" when none does).
func (o *original) reportedDiff(rs []check.Result) string {
	got := reportedMetrics(rs)
	for _, r := range rs {
		if want, ok := o.reported[r.Workload]; ok && got[r.Workload] != want {
			return fmt.Sprintf("%s: %s, the original's %s", r.Workload, got[r.Workload], want)
		}
	}
	return ""
}

// Run mutates each trampoline, checks every mutant and classifies it. An
// error means an original could not be checked at all.
func Run(cfg Config) ([]Summary, error) {
	a := cfg.Arch
	workers := cfg.Workers
	if workers <= 0 {
		workers = 2 * runtime.NumCPU()
	}
	origs := make([]*original, len(cfg.Tramps))
	for i, t := range cfg.Tramps {
		p, err := harness.Pair(a, t)
		if err != nil {
			return nil, err
		}
		ms, err := Mutants(a, t)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.Name, err)
		}
		if cfg.Only != nil {
			kept := ms[:0]
			for _, m := range ms {
				if cfg.Only(m) {
					kept = append(kept, m)
				}
			}
			ms = kept
		}
		origs[i] = &original{t: t, partner: p, mutants: ms}
	}
	total := len(origs)
	for _, o := range origs {
		total += len(o.mutants)
	}
	var mu sync.Mutex
	done := 0
	tick := func() {
		if cfg.Progress == nil {
			return
		}
		mu.Lock()
		done++
		cfg.Progress(done, total)
		mu.Unlock()
	}
	// The originals, in parallel.
	errs := make([]error, len(origs))
	parallel(workers, len(origs), func(i int) {
		errs[i] = origs[i].check(cfg)
		tick()
	})
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	type job struct{ o, m int }
	var jobs []job
	out := make([]Summary, len(origs))
	for i, o := range origs {
		out[i] = Summary{Arch: a.Name, Variant: o.t.Name, Role: string(o.t.Role), Kernel: o.t.Kernel(), User: o.t.Variant == nil,
			Mutants: len(o.mutants), Outcomes: make([]Outcome, len(o.mutants)), Survived: []Survivor{}}
		if o.t.Variant != nil {
			out[i].Bug = o.t.Variant.Bug
		}
		for j := range o.mutants {
			jobs = append(jobs, job{i, j})
		}
	}
	parallel(workers, len(jobs), func(k int) {
		j := jobs[k]
		o := origs[j.o]
		out[j.o].Outcomes[j.m] = o.classify(cfg, o.mutants[j.m])
		tick()
	})
	for i := range out {
		s := &out[i]
		for _, oc := range s.Outcomes {
			switch oc.Class {
			case Killed:
				s.Killed++
			case Stillborn:
				s.Stillborn++
			case Equivalent:
				s.Equivalent++
			case Survived:
				s.Survived = append(s.Survived, *oc.Survivor)
			}
		}
	}
	return out, nil
}

// parallel runs f(0..n-1) on workers goroutines.
func parallel(workers, n int, f func(int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(workers, n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
}

// setup is the pairing of t and partner in check's order.
func setup(a *regs.Arch, t, partner harness.Tramp) harness.Setup {
	if t.Role == trampolines.Exit {
		return harness.Setup{Arch: a, Entry: partner, Exit: t}
	}
	return harness.Setup{Arch: a, Entry: t, Exit: partner}
}

// unwindData is the image's ORC table: .orc_unwind_ip and .orc_unwind as
// linked (x86-64; empty on the other arches), which objtool generated
// from the UNWIND_HINT_* annotations and the code.
func unwindData(im *asm.Image) []byte {
	var b []byte
	for _, name := range []string{".orc_unwind_ip", ".orc_unwind"} {
		if s, ok := im.SectionNamed(name); ok {
			b = append(b, s.Data...)
		}
	}
	return b
}

// objtoolKeys counts the image's objtool warnings by the function they
// name and their text, not their offset or line: a deleted instruction
// moves the places of the warnings after it without changing them.
func objtoolKeys(im *asm.Image) map[string]int {
	out := map[string]int{}
	for _, w := range im.ObjtoolWarnings {
		out[w.Func+": "+w.Text]++
	}
	return out
}

// objtoolDiff names the first warning one of x and y has more often than
// the other ("" when they are the same).
func objtoolDiff(x, y map[string]int) string {
	var keys []string
	for k := range x {
		keys = append(keys, k)
	}
	for k := range y {
		if _, ok := x[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch {
		case y[k] > x[k]:
			return "objtool warns: " + k
		case y[k] < x[k]:
			return "objtool no longer warns: " + k
		}
	}
	return ""
}

// orcLostDiff names the first workload whose ORC-lost boundaries (by
// name) differ between the original's results and rs: for a mutant with
// the original's machine code, where names are the same places.
func orcLostDiff(orig map[string][]string, rs []check.Result) string {
	for _, r := range rs {
		want, ok := orig[r.Workload]
		if got := strings.Join(r.Metrics.ORCUnrecoverable, " "); ok && got != strings.Join(want, " ") {
			return fmt.Sprintf("%s: ORC-lost boundaries %v, the original's %v", r.Workload, r.Metrics.ORCUnrecoverable, want)
		}
	}
	return ""
}

// code is the image's executable bytes.
func code(im *asm.Image) []byte {
	var b []byte
	for _, s := range im.Sections {
		if s.Exec {
			b = append(b, s.Data...)
		}
	}
	return b
}

// mutantLimit bounds the instructions of each batch of calls of a check
// here: a batch of the originals runs about half a million at most (the
// 130-deep chain, fib), and a mutant that recurses or loops without end
// must not take the emulator's default 50 million (nor the memory of a
// million trampoline runs).
const mutantLimit = 2_000_000

// run checks t with partner one workload at a time (each as check.Run
// would, from seed 1) and records the observations; stop, when set, ends
// the run after the first workload for which it returns true.
func run(cfg Config, t, partner harness.Tramp, detailed bool, stop func([]check.Result) bool) ([]check.Result, *observations, error) {
	obs := newObservations(cfg.Arch, ignoredArgs(cfg.Arch, t, partner), detailed)
	obs.baseline = cfg.Calls
	if obs.baseline <= 0 {
		obs.baseline = 8 // check.Run's default
	}
	wls := cfg.Workloads
	if len(wls) == 0 {
		wls = harness.WorkloadNames(cfg.Arch)
	}
	var out []check.Result
	for _, w := range wls {
		rs, err := check.Run(check.Config{Arch: cfg.Arch, Tramp: t, Partner: &partner, Workloads: []string{w},
			Calls: cfg.Calls, Seed: 1, Limit: mutantLimit, Started: obs.started, Observe: obs.observe})
		if err != nil {
			return nil, nil, err
		}
		out = append(out, rs...)
		if stop != nil && stop(rs) {
			break
		}
	}
	return out, obs, nil
}

// errorKey names an error finding independently of its example values.
func errorKey(f check.Finding) string { return string(f.Kind) + "|" + f.Slot + "|" + f.Register }

func (o *original) check(cfg Config) error {
	im, err := setup(cfg.Arch, o.t, o.partner).Build()
	if err != nil {
		return fmt.Errorf("%s: %w", o.t.Name, err)
	}
	o.code, o.unwind, o.objtool = code(im), unwindData(im), objtoolKeys(im)
	rs, obs, err := run(cfg, o.t, o.partner, true, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", o.t.Name, err)
	}
	o.obs = obs
	o.reported = reportedMetrics(rs)
	o.orcLost = map[string][]string{}
	for _, r := range rs {
		o.orcLost[r.Workload] = r.Metrics.ORCUnrecoverable
	}
	o.errors, o.unused = map[string]bool{}, map[string]string{}
	for _, r := range rs {
		for _, f := range r.Findings {
			switch {
			case f.Severity == check.Error:
				o.errors[errorKey(f)] = true
			case f.Kind == check.UnusedStore && f.Slot != "":
				o.unused[f.Slot] = f.String()
			}
		}
	}
	return nil
}

// classify builds and checks one mutant.
func (o *original) classify(cfg Config, m Mutant) Outcome {
	t := m.Apply(o.t)
	oc := Outcome{Mutant: m}
	im, err := setup(cfg.Arch, t, o.partner).Build()
	if err != nil {
		oc.Class, oc.Detail = Stillborn, firstLine(err.Error())
		return oc
	}
	// objtool's warnings and the ORC table are what the checks report on
	// besides the runs: a mutant that changes them (an UNWIND_HINT_* line
	// deleted) is not equivalent however alike its machine code is.
	if d := objtoolDiff(o.objtool, objtoolKeys(im)); d != "" {
		oc.Class, oc.Detail = Killed, d
		return oc
	}
	sameCode, sameUnwind := bytes.Equal(code(im), o.code), bytes.Equal(unwindData(im), o.unwind)
	if sameCode && sameUnwind {
		oc.Class, oc.Detail = Equivalent, "same machine code and unwind table"
		return oc
	}
	var first string
	newError := func(rs []check.Result) bool {
		for _, r := range rs {
			for _, f := range r.Findings {
				if f.Severity == check.Error && !o.errors[errorKey(f)] {
					first = r.Workload + ": " + f.String()
					return true
				}
			}
		}
		return false
	}
	rs, obs, err := run(cfg, t, o.partner, false, newError)
	if err != nil {
		oc.Class, oc.Detail = Stillborn, firstLine(err.Error())
		return oc
	}
	got := map[string]bool{}
	for _, r := range rs {
		for _, f := range r.Findings {
			if f.Severity == check.Error {
				got[errorKey(f)] = true
			}
		}
	}
	if first != "" || !sameKeys(got, o.errors) {
		if first == "" {
			first = "an error finding of the original is gone"
		}
		oc.Class, oc.Detail = Killed, firstLine(first)
		return oc
	}
	if d := o.reportedDiff(rs); d != "" {
		oc.Class, oc.Detail = Killed, d
		return oc
	}
	if sameCode {
		if d := orcLostDiff(o.orcLost, rs); d != "" {
			oc.Class, oc.Detail = Killed, d
			return oc
		}
	}
	if o.obs.same(obs) {
		if sameCode && !sameUnwind {
			// The table changed and no walk of the check read a changed
			// entry: not equivalent (the kernel unwinds differently from
			// elsewhere), a survivor with its reason.
			oc.Class = Survived
			oc.Survivor = &Survivor{Mutation: m.Mutation(), Line: m.Where(), Reason: ReasonUnwindTable, Differs: []string{unwindTableDiffers}}
			return oc
		}
		oc.Class, oc.Detail = Equivalent, "same observations"
		return oc
	}
	// A survivor: run it again keeping every value, to say what differs.
	if _, obs, err = run(cfg, t, o.partner, true, nil); err != nil {
		oc.Class, oc.Detail = Stillborn, firstLine(err.Error())
		return oc
	}
	diff := o.obs.diff(obs)
	if len(diff) == 0 && sameCode && !sameUnwind {
		oc.Class = Survived
		oc.Survivor = &Survivor{Mutation: m.Mutation(), Line: m.Where(), Reason: ReasonUnwindTable, Differs: []string{unwindTableDiffers}}
		return oc
	}
	if len(diff) == 0 {
		oc.Class, oc.Detail = Equivalent, "same observations"
		return oc
	}
	s := &Survivor{Mutation: m.Mutation(), Line: m.Where()}
	if f, ok := o.removable(diff, obs); ok {
		s.Reason, s.Finding = ReasonRemovable, f
	} else if o.obs.onlyStackLayout(diff, obs) {
		s.Reason = ReasonStackLayout
		s.Differs = summarizeDiff(diff, 3)
	} else {
		s.Differs = summarizeDiff(diff, 6)
	}
	oc.Class, oc.Survivor = Survived, s
	return oc
}

// removable reports whether the mutant only changed work nobody
// observes: every difference is a frame slot, at least one of them one the
// original reports as unused-store (that finding is returned), and every
// other one a slot C read in neither run (a store moved onto a slot
// nobody reads).
func (o *original) removable(diff []difference, m *observations) (string, bool) {
	var found []string
	for _, d := range diff {
		if d.Slot == "" {
			return "", false
		}
		if f, ok := o.unused[d.Slot]; ok {
			found = append(found, f)
		} else if o.obs.read[d.Slot] || m.read[d.Slot] {
			return "", false
		}
	}
	if len(found) == 0 {
		return "", false
	}
	sort.Strings(found)
	return found[0], true
}

// ignoredArgs are the host-call arguments of the pairing the kernel does
// not use: the frame_pointer arguments, used only with
// HAVE_FUNCTION_GRAPH_FP_TEST (kernel/trace/fgraph.c
// ftrace_push_return_trace / ftrace_pop_return_trace), which neither
// x86-64 nor s390x defines (reference fgraph-fprobe.md).
func ignoredArgs(a *regs.Arch, t, partner harness.Tramp) map[string]int {
	exit := t
	if t.Role != trampolines.Exit {
		exit = partner
	}
	out := map[string]int{}
	for name, fp := range hooks[a.Name].framePointerArgs {
		if name == harness.HostReturnToHandler && exit.ExitABI != trampolines.ExitLegacy {
			continue // the argument is the register frame there
		}
		out[name] = fp
	}
	return out
}

// summarizeDiff lists the distinct differences (at most n), each with the
// first call it shows in and how many calls show it.
func summarizeDiff(diff []difference, n int) []string {
	var order []string
	first, count := map[string]string{}, map[string]int{}
	for _, d := range diff {
		if _, ok := first[d.What]; !ok {
			order = append(order, d.What)
			first[d.What] = d.Call
		}
		count[d.What]++
	}
	var out []string
	for _, w := range order[:min(len(order), n)] {
		out = append(out, fmt.Sprintf("%s (%s, %d calls)", w, first[w], count[w]))
	}
	return out
}

func sameKeys(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
