package scenarios

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"trampemu/asm"
	"trampemu/check"
	"trampemu/emu"
	"trampemu/ftrace"
	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
)

// CompareConfig is what the fprobe comparison runs.
type CompareConfig struct {
	Arches []*regs.Arch
	// Probes are the numbers of fprobes per cell (default 1, 2, 8, 64).
	Probes []int
	// CPUs and Tasks are the machine the memory figures are stated for
	// (rethook pools scale with possible CPUs, shadow stacks with tasks).
	CPUs, Tasks int
	// Calls are the traced calls of add per cell (default 4).
	Calls int
	// MaxUsers bounds the fgraph dispatch rows (1..MaxUsers, default 16).
	MaxUsers int
}

// DefaultCompareConfig is what `trampemu fprobe` and the report run.
func DefaultCompareConfig() CompareConfig {
	return CompareConfig{Arches: regs.Arches, Probes: []int{1, 2, 8, 64}, CPUs: 16, Tasks: 1000, Calls: 4, MaxUsers: ftrace.ArraySize}
}

// TrampCost is one trampoline's work per traced call (block counters times
// the disassembler's facts).
type TrampCost struct {
	Trampoline   string  `json:"trampoline"`
	Instructions float64 `json:"instructions"`
	Loads        float64 `json:"loads"`
	Stores       float64 `json:"stores"`
	LoadBytes    float64 `json:"load_bytes"`
	StoreBytes   float64 `json:"store_bytes"`
}

// CSide is the kernel C side's work per traced call, counted by the Go
// kernel: ftrace_ops visited and filter-hash lookups of the dispatch
// (ftrace.Ftrace.OpsVisited, HashLookups; fgraph's loop over its users'
// filters adds to the lookups), rethook pool gets and puts, shadow-stack
// words written and read, atomic read-modify-writes.
type CSide struct {
	OpsVisited  float64 `json:"ops_visited"`
	HashLookups float64 `json:"hash_lookups"`
	PoolOps     float64 `json:"pool_ops"`
	ShadowWords float64 `json:"shadow_words"`
	Atomics     float64 `json:"atomics"`
}

// DesignRow is one cell of the design comparison.
type DesignRow struct {
	Arch   string `json:"arch"`
	Design string `json:"design"`
	Probes int    `json:"probes"`
	// Functions is "one" (every probe on add) or "different" (one probe
	// on add, the others on other functions).
	Functions string    `json:"functions"`
	Exit      bool      `json:"exit"`
	DataBytes int       `json:"data_bytes"`
	Entry     TrampCost `json:"entry"`
	ExitCost  TrampCost `json:"exit_cost"`
	CSide     CSide     `json:"c_side"`
	// MemoryBytes is what the probes reserve on the stated machine:
	// rethook pools (probes x nodes x node size, objpool rings), or shadow
	// stacks (tasks x 4096 bytes, allocated for every task once fgraph has
	// a user).
	MemoryBytes int64 `json:"memory_bytes"`
	// NMissed is the probes' nmissed per traced call (fgraph's 32-word
	// reservation cannot hold more than 31 exit probes on one function).
	NMissed float64 `json:"nmissed"`
	// NativeNs and CI95 are the native ns per traced return of the
	// design's pairing on the host CPU and its 95% interval [lo, hi]
	// (AttachNative: the one-probe entry+exit cell on one function of the
	// native arch; null where not measured).
	NativeNs *float64    `json:"native_ns"`
	CI95     *[2]float64 `json:"ci95"`
}

// NativeReturn is one return path timed on the host CPU (package native's
// ReturnCost): ns per traced return of a pairing with its 95% interval.
type NativeReturn struct {
	Arch    string     `json:"arch"`
	Design  string     `json:"design"`
	Pairing string     `json:"pairing"`
	Ns      float64    `json:"ns"`
	CI95    [2]float64 `json:"ci95"`
	// SameEntry: timed after the other design's entry (the two return
	// paths under one entry, NativeDiff's A or B), not the pairing the
	// design's rows run: not attached to a row.
	SameEntry bool `json:"same_entry,omitempty"`
}

// NativeDiff is B minus A in graph mode on the host CPU, the two return
// paths under one entry, with its 95% interval and the signed-rank p.
type NativeDiff struct {
	A           string     `json:"a"`
	B           string     `json:"b"`
	DiffNs      float64    `json:"diff_ns"`
	CI95        [2]float64 `json:"ci95"`
	P           float64    `json:"p"`
	Significant bool       `json:"significant"`
}

// DesignPairingName is the pairing ("entry+exit", variant names) a
// design's rows run on arch a: the one to time natively for them.
func DesignPairingName(a *regs.Arch, d ftrace.FprobeDesign) (string, error) {
	entry, exit, err := designPairing(a, d)
	if err != nil {
		return "", err
	}
	return entry.Name + "+" + exit.Name, nil
}

// AttachNative records a design's native return cost on arch: in
// NativeReturns, and as native_ns and ci95 of its one-probe entry+exit
// cell on one function without data (the work the native stand-ins do: one
// hooked return). It reports whether that cell exists.
func (c *Comparison) AttachNative(r NativeReturn) bool {
	c.NativeReturns = append(c.NativeReturns, r)
	found := false
	if r.SameEntry {
		return false
	}
	for i := range c.FprobeDesigns {
		row := &c.FprobeDesigns[i]
		if row.Arch == r.Arch && row.Design == r.Design && row.Probes == 1 && row.Functions == "one" && row.Exit && row.DataBytes == 0 {
			ns, ci := r.Ns, r.CI95
			row.NativeNs, row.CI95 = &ns, &ci
			found = true
		}
	}
	return found
}

// ModeRow is one fgraph dispatch cell: N graph users on one function.
type ModeRow struct {
	Arch string `json:"arch"`
	// Mode is the dispatch form (ftrace.GraphDispatch): "merged" (v6.11+:
	// one graph_ops, a lone user called directly, several looped over with
	// each filter tested), "per-ops-draft" (the v5-v9 drafts with
	// WITH_ARGS: each user's own ftrace_ops, function_graph_enter_ops) or
	// "loop" (the drafts without WITH_ARGS: ftrace_graph_caller ->
	// function_graph_enter testing every user's hash, on the arch's
	// ftrace_graph_caller pairing). OpsVisited counts ftrace_ops the
	// dispatch visited (the loop's fgraph_ops are not ftrace_ops: 0),
	// HashLookups every filter-hash test (ftrace's list function's and
	// fgraph's own).
	Mode  string `json:"mode"`
	Users int    `json:"users"`
	// Pairing names the entry and exit variants the row ran.
	Pairing     string    `json:"pairing"`
	OpsVisited  float64   `json:"ops_visited"`
	HashLookups float64   `json:"hash_lookups"`
	ShadowWords float64   `json:"shadow_words"`
	Entry       TrampCost `json:"entry"`
	Exit        TrampCost `json:"exit"`
}

// Comparison is the fprobe question's numbers.
type Comparison struct {
	CPUs          int         `json:"cpus"`
	Tasks         int         `json:"tasks"`
	FprobeDesigns []DesignRow `json:"fprobe_designs"`
	FgraphModes   []ModeRow   `json:"fgraph_modes"`
	// NativeReturns and NativeDiff are the host CPU's timing of the two
	// return paths (AttachNative; absent when not run), NativeNote why
	// they are absent.
	NativeReturns []NativeReturn `json:"native_returns,omitempty"`
	NativeDiff    *NativeDiff    `json:"native_diff,omitempty"`
	NativeNote    string         `json:"native_note,omitempty"`
	// DispatchScenarios is every scenario on the fgraph design run under
	// each dispatch form, per arch (DispatchScenarioRuns).
	DispatchScenarios []DispatchRun `json:"dispatch_scenarios"`
}

// DispatchRun is one arch's scenarios under one fgraph dispatch form: how
// many ran and passed, and the ones that failed.
type DispatchRun struct {
	Arch     string   `json:"arch"`
	Dispatch string   `json:"dispatch"`
	Run      int      `json:"run"`
	Passed   int      `json:"passed"`
	Failed   []string `json:"failed"`
}

// DispatchScenarioRuns runs every scenario on the fgraph design under each
// dispatch form on each arch.
func DispatchScenarioRuns(as []*regs.Arch) ([]DispatchRun, error) {
	var out []DispatchRun
	for _, a := range as {
		for _, d := range ftrace.GraphDispatches {
			r := DispatchRun{Arch: a.Name, Dispatch: d.String(), Failed: []string{}}
			for _, s := range All() {
				o, err := s.RunDispatch(a, ftrace.HeaderMerged, d, nil)
				if err != nil {
					return out, err
				}
				r.Run++
				if o.OK {
					r.Passed++
				} else {
					r.Failed = append(r.Failed, s.Name+": "+strings.Join(o.Findings, "; "))
				}
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// CompareFprobe runs every cell of cfg through the trampolines and the Go
// kernel and returns the counts. Nothing is computed from constants but
// the memory of the stated machine (from the same formulas the models
// allocate with).
func CompareFprobe(cfg CompareConfig) (Comparison, error) {
	def := DefaultCompareConfig()
	if len(cfg.Arches) == 0 {
		cfg.Arches = def.Arches
	}
	if len(cfg.Probes) == 0 {
		cfg.Probes = def.Probes
	}
	if cfg.CPUs <= 0 {
		cfg.CPUs = def.CPUs
	}
	if cfg.Tasks <= 0 {
		cfg.Tasks = def.Tasks
	}
	if cfg.Calls <= 0 {
		cfg.Calls = def.Calls
	}
	if cfg.MaxUsers <= 0 || cfg.MaxUsers > ftrace.ArraySize {
		cfg.MaxUsers = def.MaxUsers
	}
	out := Comparison{CPUs: cfg.CPUs, Tasks: cfg.Tasks, FprobeDesigns: []DesignRow{}, FgraphModes: []ModeRow{}}
	type shape struct {
		exit bool
		data int
	}
	shapes := []shape{{false, 0}, {true, 0}, {true, 8}}
	for _, a := range cfg.Arches {
		for _, d := range harness.FprobeDesignsOf(a) {
			for _, fn := range []string{"one", "different"} {
				for _, n := range cfg.Probes {
					for _, sh := range shapes {
						row, err := compareCell(a, d, fn, n, sh.exit, sh.data, cfg)
						if err != nil {
							return out, fmt.Errorf("fprobe comparison %s %s %s x%d exit=%v data=%d: %w", a.Name, d, fn, n, sh.exit, sh.data, err)
						}
						out.FprobeDesigns = append(out.FprobeDesigns, row)
					}
				}
			}
		}
		for _, d := range ftrace.GraphDispatches {
			pairing, err := dispatchPairing(a, d)
			if err != nil {
				return out, err
			}
			if pairing == nil {
				continue // no ftrace_graph_caller entry on the arch: no loop rows
			}
			for u := 1; u <= cfg.MaxUsers; u++ {
				row, err := compareMode(a, d, pairing, u, cfg)
				if err != nil {
					return out, fmt.Errorf("fgraph dispatch %s %s, %d users: %w", a.Name, d, u, err)
				}
				out.FgraphModes = append(out.FgraphModes, row)
			}
		}
	}
	var err error
	out.DispatchScenarios, err = DispatchScenarioRuns(cfg.Arches)
	return out, err
}

// costMachine is one machine of the comparison with its counters.
type costMachine struct {
	r *runCtx
	e *env
}

func newCostMachine(a *regs.Arch, d ftrace.FprobeDesign) (*costMachine, error) {
	return newDispatchMachine(a, d, ftrace.DispatchMerged, nil)
}

// newDispatchMachine is newCostMachine with the fgraph dispatch form and,
// when not nil, the pairing to run.
func newDispatchMachine(a *regs.Arch, d ftrace.FprobeDesign, dispatch ftrace.GraphDispatch, pairing *[2]harness.Tramp) (*costMachine, error) {
	out := &Outcome{Counters: map[string]int64{}}
	r := &runCtx{name: "compare", out: out, a: a, hdr: ftrace.HeaderMerged, design: d, dispatch: dispatch, pairing: pairing}
	e, err := r.env(ftrace.HeaderMerged)
	if err != nil {
		r.close()
		return nil, err
	}
	return &costMachine{r: r, e: e}, nil
}

func (c *costMachine) close() { c.r.close() }

// otherFunctions are stand-in traceable functions for the probes of a
// "different" cell that are never called: addresses near the end of the
// text region, which the image does not reach.
func otherFunctions(a *regs.Arch, n int) map[string]uint64 {
	out := map[string]uint64{}
	for i := 0; i < n; i++ {
		out[fmt.Sprintf("other_function_%d", i)] = a.Memory.Text.End() - 64*uint64(i+1)
	}
	return out
}

// managers builds the design's fprobe manager over the machine with the
// extra stand-in functions: fgraph as v6.14 has it (every probe on the
// shared fgraph_ops, no late-2025 ftrace_ops fast path), rethook as v6.13.
func (c *costMachine) manager(extra map[string]uint64) (ftrace.FprobeManager, error) {
	e := c.e
	syms := map[string]uint64{}
	for k, v := range e.syms {
		syms[k] = v
	}
	for k, v := range extra {
		syms[k] = v
	}
	if c.r.design == ftrace.DesignRethook {
		m, err := ftrace.NewRethookFprobes(ftrace.RethookFprobesConfig{Kernel: e.k, Symbols: syms, Era: ftrace.RethookV613})
		e.rfp = m
		return m, err
	}
	m, err := ftrace.NewFprobes(ftrace.FprobesConfig{Graph: e.g, Symbols: syms, Header: ftrace.HeaderMerged})
	e.fp = m
	return m, err
}

// counters is a snapshot of every C-side counter.
type counters struct {
	visited, lookups, userTests, fpLookups uint64
	gets, puts, atomics                    uint64
	written, read                          uint64
}

func (c *costMachine) snap() counters {
	k := c.e.k
	st, rs := k.Graph.Stats(), k.Rethook.Stats()
	var fpLookups uint64
	if c.e.fp != nil {
		fpLookups = c.e.fp.Stats().HashLookups
	}
	return counters{visited: k.Ftrace.OpsVisited, lookups: k.Ftrace.HashLookups, userTests: st.UserTests, fpLookups: fpLookups,
		gets: rs.Gets, puts: rs.Puts, atomics: rs.Atomics, written: st.WrittenWords, read: st.ReadWords}
}

// run makes calls traced calls of add and returns the per-call C side and
// the two trampolines' costs.
func (c *costMachine) run(calls int) (CSide, TrampCost, TrampCost, error) {
	e := c.e
	if err := e.prepare(); err != nil {
		return CSide{}, TrampCost{}, TrampCost{}, err
	}
	before := c.snap()
	e.h.M.ResetCounts()
	for i := 0; i < calls; i++ {
		if _, err := e.call("add"); err != nil {
			return CSide{}, TrampCost{}, TrampCost{}, err
		}
	}
	if len(c.r.out.Findings) > 0 {
		return CSide{}, TrampCost{}, TrampCost{}, fmt.Errorf("%s", strings.Join(c.r.out.Findings, "; "))
	}
	after := c.snap()
	n := float64(calls)
	cs := CSide{
		OpsVisited:  float64(after.visited-before.visited) / n,
		HashLookups: float64(after.lookups-before.lookups+after.userTests-before.userTests+after.fpLookups-before.fpLookups) / n,
		PoolOps:     float64(after.gets-before.gets+after.puts-before.puts) / n,
		ShadowWords: float64(after.written-before.written+after.read-before.read) / n,
		Atomics:     float64(after.atomics-before.atomics) / n,
	}
	blocks := e.h.M.Blocks()
	entry, err := unitCost(e, blocks, e.h.EntryUnit(), e.h.Setup.Entry.Trampoline(), n)
	if err != nil {
		return cs, TrampCost{}, TrampCost{}, err
	}
	exit, err := unitCost(e, blocks, e.h.ExitUnit(), e.h.Setup.Exit.Trampoline(), n)
	return cs, entry, exit, err
}

func unitCost(e *env, blocks []emu.Block, u asm.Unit, name string, n float64) (TrampCost, error) {
	m, unknown := check.UnitCost(e.h.Image, blocks, u)
	if len(unknown) > 0 {
		return TrampCost{}, fmt.Errorf("%s: instructions without memory facts: %v", name, unknown)
	}
	return TrampCost{Trampoline: name, Instructions: m.Instructions / n, Loads: m.Loads / n, Stores: m.Stores / n,
		LoadBytes: m.LoadBytes / n, StoreBytes: m.StoreBytes / n}, nil
}

// compareCell runs one cell: n probes of the shape on add (and, for
// "different", on n-1 other functions).
func compareCell(a *regs.Arch, d ftrace.FprobeDesign, functions string, n int, exit bool, data int, cfg CompareConfig) (DesignRow, error) {
	row := DesignRow{Arch: a.Name, Design: d.String(), Probes: n, Functions: functions, Exit: exit, DataBytes: data}
	c, err := newCostMachine(a, d)
	if err != nil {
		return row, err
	}
	defer c.close()
	others := map[string]uint64{}
	if functions == "different" {
		others = otherFunctions(a, n-1)
	}
	m, err := c.manager(others)
	if err != nil {
		return row, err
	}
	otherNames := make([]string, 0, len(others))
	for k := range others {
		otherNames = append(otherNames, k)
	}
	sort.Strings(otherNames)
	var fps []*ftrace.Fprobe
	for i := 0; i < n; i++ {
		fp := &ftrace.Fprobe{Name: fmt.Sprintf("p%d", i), EntryDataSize: data,
			EntryHandler: func(*ftrace.Fprobe, uint64, uint64, *regs.Frame, uint64) int { return 0 }}
		if exit {
			fp.ExitHandler = func(*ftrace.Fprobe, uint64, uint64, *regs.Frame, uint64) {}
		}
		target := "add"
		if functions == "different" && i > 0 {
			target = otherNames[i-1]
		}
		if err := m.RegisterSyms(fp, []string{target}); err != nil {
			return row, err
		}
		fps = append(fps, fp)
	}
	cs, entry, ex, err := c.run(cfg.Calls)
	if err != nil {
		return row, err
	}
	row.CSide, row.Entry, row.ExitCost = cs, entry, ex
	row.NMissed = float64(sumMissed(fps...)) / float64(cfg.Calls)
	row.MemoryBytes = designMemory(d, fps, cfg)
	return row, nil
}

// designMemory is what the probes reserve on the stated machine: rethook
// (kernel/trace/fprobe.c v6.7-v6.13 fprobe_init_rethook, lib/objpool.c):
// each probe with an exit handler its pool of addresses x CPUs x 2 nodes of
// sizeof(struct fprobe_rethook_node) + entry_data_size; fgraph
// (kernel/trace/fgraph.c v6.11+): a shadow stack for every task.
func designMemory(d ftrace.FprobeDesign, fps []*ftrace.Fprobe, cfg CompareConfig) int64 {
	if d == ftrace.DesignFgraph {
		return int64(cfg.Tasks) * ftrace.ShadowStackSize
	}
	var b int64
	for _, fp := range fps {
		if fp.ExitHandler == nil {
			continue
		}
		num := ftrace.DefaultMaxactive(len(fp.IPs()), cfg.CPUs)
		b += int64(ftrace.RethookPoolBytes(ftrace.PoolObjpool, ftrace.FprobeRethookNodeSize+fp.EntryDataSize, num, cfg.CPUs))
	}
	return b
}

// dispatchPairing is the trampolines a dispatch form's rows run: the
// arch's current pairing (DYNAMIC_FTRACE_WITH_ARGS: ftrace_graph_func as an
// ftrace_ops) for the merged form and the per-ops draft; for the drafts'
// loop the path a kernel without WITH_ARGS has, the patched branch into
// ftrace_graph_caller -> prepare_ftrace_return -> function_graph_enter: the
// arch's first kernel entry variant with that graph path and its pair,
// neither with a known bug (riscv64's v5.11-v6.2 entries and their v5.x
// return_to_handler are kernel code with defects: a dispatch cost is not
// measured on them). nil (no error) when the arch has no such entry.
func dispatchPairing(a *regs.Arch, d ftrace.GraphDispatch) (*[2]harness.Tramp, error) {
	if d != ftrace.DispatchLoop {
		entry, exit, err := designPairing(a, ftrace.DesignFgraph)
		if err != nil {
			return nil, err
		}
		return &[2]harness.Tramp{entry, exit}, nil
	}
	for _, v := range harness.VariantsOf(a, trampolines.Entry) {
		if !v.Kernel || v.Graph != trampolines.GraphViaCaller || v.Bug != "" {
			continue
		}
		entry, err := harness.FromVariant(v)
		if err != nil {
			return nil, err
		}
		exit, err := harness.Pair(a, entry)
		if err != nil {
			return nil, err
		}
		if exit.Variant != nil && exit.Variant.Bug != "" {
			continue
		}
		return &[2]harness.Tramp{entry, exit}, nil
	}
	return nil, nil
}

// compareMode runs users plain graph users (entry and return callbacks)
// filtered on add through the fgraph dispatch form d on the pairing.
func compareMode(a *regs.Arch, d ftrace.GraphDispatch, pairing *[2]harness.Tramp, users int, cfg CompareConfig) (ModeRow, error) {
	row := ModeRow{Arch: a.Name, Mode: d.String(), Users: users, Pairing: pairing[0].Name + " + " + pairing[1].Name}
	c, err := newDispatchMachine(a, ftrace.DesignFgraph, d, pairing)
	if err != nil {
		return row, err
	}
	defer c.close()
	add := c.e.site("add")
	for i := 0; i < users; i++ {
		u := &ftrace.GraphOps{Name: fmt.Sprintf("user%d", i), Filter: func(ip uint64) bool { return ip == add },
			EntryFunc: func(*ftrace.Graph, *ftrace.GraphEnt, *ftrace.GraphOps, *regs.Frame) bool { return true },
			RetFunc:   func(*ftrace.Graph, *ftrace.GraphRet, *ftrace.GraphOps, *regs.Frame) {}}
		if err := c.e.g.Register(u); err != nil {
			return row, err
		}
	}
	cs, entry, exit, err := c.run(cfg.Calls)
	if err != nil {
		return row, err
	}
	row.OpsVisited, row.HashLookups, row.ShadowWords, row.Entry, row.Exit = cs.OpsVisited, cs.HashLookups, cs.ShadowWords, entry, exit
	return row, nil
}

// WriteJSON writes the comparison as one indented JSON object.
func (c Comparison) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(c)
}

// Cell returns the design row of the given coordinates.
func (c Comparison) Cell(arch, design, functions string, probes int, exit bool, data int) (DesignRow, bool) {
	for _, r := range c.FprobeDesigns {
		if r.Arch == arch && r.Design == design && r.Functions == functions && r.Probes == probes && r.Exit == exit && r.DataBytes == data {
			return r, true
		}
	}
	return DesignRow{}, false
}
