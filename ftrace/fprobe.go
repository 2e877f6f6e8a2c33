package ftrace

import (
	"fmt"
	"slices"

	"trampemu/regs"
)

// Fprobe is struct fprobe (include/linux/fprobe.h, v6.14+) as the Go side
// sees it. Registration allocates the guest struct fprobe (see
// FprobeStructSize) whose address the shadow-stack headers encode; nmissed,
// flags and entry_data_size live there.
type Fprobe struct {
	Name string
	// EntryDataSize is entry_data_size in bytes: rounded up to 8 into the
	// guest struct at registration; more than 15 words is -E2BIG.
	EntryDataSize int
	// EntryHandler is fprobe_entry_cb: data is the guest address of this
	// probe's entry data (0 when EntryDataSize is 0 or there is no
	// ExitHandler). Non-zero return skips the exit handler (not counted in
	// nmissed).
	EntryHandler func(fp *Fprobe, entryIP, retIP uint64, fregs *regs.Frame, data uint64) int
	// ExitHandler is fprobe_exit_cb: data points at the same words the
	// entry handler wrote (0 when EntryDataSize is 0).
	ExitHandler func(fp *Fprobe, entryIP, retIP uint64, fregs *regs.Frame, data uint64)
	// StartDisabled and KprobeShared are the flags set before the first
	// registration (FPROBE_FL_DISABLED, FPROBE_FL_KPROBE_SHARED). Kprobes are
	// not modelled: a shared probe behaves like any other.
	StartDisabled bool
	KprobeShared  bool
	// NrMaxactive is nr_maxactive (include/linux/fprobe.h v6.4-v6.13): the
	// rethook pool size; 0 means the default the rethook-era
	// fprobe_init_rethook computes. Deprecated (ignored) on fgraph.
	NrMaxactive int
	Private     any

	mgr        *Fprobes
	rmgr       *RethookFprobes
	rstate     *rethookProbe
	addr       uint64
	registered bool
	viaFtrace  bool // entry-only fast path (ftrace_ops instead of fgraph)
	ips        []uint64
}

// Addr returns the guest address of struct fprobe (0 before the first
// registration).
func (fp *Fprobe) Addr() uint64 { return fp.addr }

// Registered reports whether the probe is registered.
func (fp *Fprobe) Registered() bool { return fp.registered }

// IPs returns the probed addresses, sorted.
func (fp *Fprobe) IPs() []uint64 { return slices.Clone(fp.ips) }

// ViaFtrace reports whether the probe runs on the entry-only ftrace_ops
// fast path rather than on fgraph.
func (fp *Fprobe) ViaFtrace() bool { return fp.viaFtrace }

// FprobesConfig is what an Fprobes manager is built from.
type FprobesConfig struct {
	Graph *Graph
	// Symbols maps the traceable functions' names to their addresses (the
	// ftrace locations fprobe may attach to).
	Symbols map[string]uint64
	// Header selects the shadow-stack header encoding.
	Header HeaderEncoding
	// Ftrace, when set, enables the late-2025 entry-only fast path: probes
	// without an exit handler run from a plain ftrace_ops on this list.
	Ftrace *Ftrace
}

// FprobeStats are the manager's counters.
type FprobeStats struct {
	Entries         uint64 // shared fgraph entry callback calls
	ReserveFailed   uint64 // reservations that failed (nmissed counted)
	Exits           uint64 // shared retfunc calls that found data
	NoData          uint64 // retfunc calls without data (the BIT(0) quirk in slot 0)
	FtraceEntries   uint64 // fast-path ftrace_ops calls
	FtraceRecursion uint64 // fast-path calls refused by the recursion lock
	// HashLookups are the address and existence tables' lookups: one
	// fprobe_ip_table lookup per entry (find_first_fprobe_node), one
	// fprobe_table lookup per record at return (is_fprobe_still_exist).
	HashLookups       uint64
	LastReservedWords int // words reserved by the last entry (headers + data)
	LastUsedWords     int // of them, words holding records
}

// Fprobes is fprobe on fgraph (kernel/trace/fprobe.c, v6.14+): every probe
// shares ONE fgraph_ops; probes are found by address.
type Fprobes struct {
	g     *Graph
	mem   regs.Memory
	arch  *regs.Arch
	codec HeaderCodec
	syms  map[string]uint64
	known map[uint64]bool

	table  map[uint64][]*Fprobe // fprobe_ip_table: newest first
	byAddr map[uint64]*Fprobe   // fprobe_table: is_fprobe_still_exist

	gops        *GraphOps
	graphActive int // fprobe_graph_active
	graphIPs    map[uint64]int
	ft          *Ftrace
	fops        *Ops
	ftraceAct   int // fprobe_ftrace_active
	ftraceIPs   map[uint64]int

	stats FprobeStats
}

// NewFprobes builds a manager over cfg.Graph.
func NewFprobes(cfg FprobesConfig) (*Fprobes, error) {
	if cfg.Graph == nil {
		return nil, fmt.Errorf("fprobe: a Graph is required: %w", EINVAL)
	}
	switch cfg.Header {
	case HeaderMerged, HeaderV17, HeaderTwoWord:
	default:
		return nil, fmt.Errorf("fprobe: header encoding %v: %w", cfg.Header, EINVAL)
	}
	g := cfg.Graph
	m := &Fprobes{
		g: g, mem: g.mem, arch: g.arch,
		codec:  HeaderCodec{Enc: cfg.Header, Arch: g.arch},
		syms:   map[string]uint64{},
		known:  map[uint64]bool{},
		table:  map[uint64][]*Fprobe{},
		byAddr: map[uint64]*Fprobe{},
		ft:     cfg.Ftrace, graphIPs: map[uint64]int{}, ftraceIPs: map[uint64]int{},
	}
	for name, a := range cfg.Symbols {
		m.syms[name] = a
		m.known[a] = true
	}
	m.gops = &GraphOps{
		Name: "fprobe", EntryFunc: m.fgraphEntry, RetFunc: m.fgraphReturn,
		Filter: func(ip uint64) bool { return m.graphIPs[ip] > 0 },
	}
	if m.ft != nil {
		m.fops = &Ops{
			Name: "fprobe_ftrace", Func: m.ftraceEntry,
			Filter: func(ip uint64) bool { return m.ftraceIPs[ip] > 0 },
		}
	}
	return m, nil
}

// Graph returns the tracer the probes run on.
func (m *Fprobes) Graph() *Graph { return m.g }

// GraphOps returns the one fgraph_ops all probes share.
func (m *Fprobes) GraphOps() *GraphOps { return m.gops }

// FtraceOps returns the fast path's ftrace_ops, or nil without fast path.
func (m *Fprobes) FtraceOps() *Ops { return m.fops }

// Codec returns the header codec in use.
func (m *Fprobes) Codec() HeaderCodec { return m.codec }

// Stats returns the counters.
func (m *Fprobes) Stats() FprobeStats { return m.stats }

// ProbesAt returns the registered probes at ip, newest first.
func (m *Fprobes) ProbesAt(ip uint64) []*Fprobe { return slices.Clone(m.table[ip]) }

// Register attaches fp to every symbol matching the glob filter
// (register_fprobe, kernel/trace/fprobe.c, v6.14+; lib/glob.c glob_match).
// No match is -ENOENT.
func (m *Fprobes) Register(fp *Fprobe, filter string) error {
	ips, err := globIPs(m.syms, fp, filter)
	if err != nil {
		return err
	}
	return m.RegisterIPs(fp, ips)
}

// globIPs are the addresses of the traceable functions whose names match
// the glob filter, what register_fprobe hands register_fprobe_ips in
// both designs; no match is -ENOENT.
func globIPs(syms map[string]uint64, fp *Fprobe, filter string) ([]uint64, error) {
	var ips []uint64
	for name, a := range syms {
		if GlobMatch(filter, name) {
			ips = append(ips, a)
		}
	}
	if len(ips) == 0 {
		return nil, fmt.Errorf("register_fprobe(%s, %q): no traceable function matches: %w", fpName(fp), filter, ENOENT)
	}
	return ips, nil
}

// RegisterSyms attaches fp to the named functions (register_fprobe_syms,
// kernel/trace/fprobe.c); an unknown name is -ENOENT.
func (m *Fprobes) RegisterSyms(fp *Fprobe, names []string) error {
	ips, err := symIPs(m.syms, fp, names)
	if err != nil {
		return err
	}
	return m.RegisterIPs(fp, ips)
}

// symIPs are the named functions' ftrace locations, what
// register_fprobe_syms hands register_fprobe_ips in both designs
// (get_ftrace_locations: an unknown name is -ENOENT).
func symIPs(syms map[string]uint64, fp *Fprobe, names []string) ([]uint64, error) {
	if fp == nil || len(names) == 0 {
		return nil, fmt.Errorf("register_fprobe_syms(%s): no symbols: %w", fpName(fp), EINVAL)
	}
	ips := make([]uint64, 0, len(names))
	for _, n := range names {
		a, ok := syms[n]
		if !ok {
			return nil, fmt.Errorf("register_fprobe_syms(%s): unknown symbol %q: %w", fpName(fp), n, ENOENT)
		}
		ips = append(ips, a)
	}
	return ips, nil
}

// RegisterIPs attaches fp to the given ftrace locations
// (register_fprobe_ips, kernel/trace/fprobe.c, v6.14+). Errors: nil probe or
// no address -EINVAL; already registered -EEXIST; entry_data_size rounded up
// to 8 above 15 words -E2BIG; an address that is no traceable function
// -ENOENT. A failed registration leaves nothing behind in the address table
// (the 2026 fix). Duplicate addresses are attached once.
func (m *Fprobes) RegisterIPs(fp *Fprobe, ips []uint64) error {
	name := fpName(fp)
	if fp == nil || len(ips) == 0 {
		return fmt.Errorf("register_fprobe_ips(%s): no addresses: %w", name, EINVAL)
	}
	if fp.registered {
		return fmt.Errorf("register_fprobe_ips(%s): already registered: %w", name, EEXIST)
	}
	if fp.EntryDataSize < 0 {
		return fmt.Errorf("register_fprobe_ips(%s): entry_data_size %d: %w", name, fp.EntryDataSize, EINVAL)
	}
	// size = ALIGN(fp->entry_data_size, sizeof(long)); > MAX_FPROBE_DATA_SIZE
	// -> -E2BIG (kernel/trace/fprobe.c, v6.14+).
	size := (fp.EntryDataSize + 7) &^ 7
	if size/8 > MaxFprobeDataWords {
		return fmt.Errorf("register_fprobe_ips(%s): entry_data_size %d is %d words, max %d: %w", name, fp.EntryDataSize, size/8, MaxFprobeDataWords, E2BIG)
	}
	ips = slices.Clone(ips)
	slices.Sort(ips)
	ips = slices.Compact(ips)
	for _, a := range ips {
		// ftrace_location(addr) == 0 -> -ENOENT (kernel/trace/fprobe.c, v6.14+).
		if !m.known[a] {
			return fmt.Errorf("register_fprobe_ips(%s): %#x is not a traceable function: %w", name, a, ENOENT)
		}
	}
	first := fp.mgr != m
	if first {
		a, err := m.g.heap.Alloc(FprobeStructSize, 8)
		if err != nil {
			return fmt.Errorf("register_fprobe_ips(%s): struct fprobe: %w", name, err)
		}
		fp.addr = a
	}
	viaFtrace := m.ft != nil && fp.ExitHandler == nil
	if err := m.addBackend(viaFtrace); err != nil {
		return fmt.Errorf("register_fprobe_ips(%s): %w", name, err)
	}
	fp.mgr = m
	m.writeStruct(fp, size, first)
	fp.viaFtrace, fp.ips, fp.registered = viaFtrace, ips, true
	m.byAddr[fp.addr] = fp
	for _, a := range ips {
		m.table[a] = append([]*Fprobe{fp}, m.table[a]...)
		if viaFtrace {
			m.ftraceIPs[a]++
		} else {
			m.graphIPs[a]++
		}
	}
	return nil
}

// addBackend registers the shared fgraph_ops (or the fast path's
// ftrace_ops) with the first probe that needs it (fprobe_graph_add_ips /
// fprobe_ftrace_add_ips, kernel/trace/fprobe.c).
func (m *Fprobes) addBackend(viaFtrace bool) error {
	if viaFtrace {
		if m.ftraceAct == 0 {
			if err := m.ft.Register(m.fops); err != nil {
				return err
			}
		}
		m.ftraceAct++
		return nil
	}
	if m.graphActive == 0 {
		if err := m.g.Register(m.gops); err != nil {
			return err
		}
	}
	m.graphActive++
	return nil
}

// Unregister detaches fp (unregister_fprobe, kernel/trace/fprobe.c, v6.14+);
// an fprobe that is not registered here is -EINVAL. The last probe on a
// backend unregisters the shared ops. Headers naming fp on live shadow
// stacks are skipped at return (is_fprobe_still_exist).
func (m *Fprobes) Unregister(fp *Fprobe) error {
	if fp == nil || !fp.registered || fp.mgr != m {
		return fmt.Errorf("unregister_fprobe(%s): not registered: %w", fpName(fp), EINVAL)
	}
	for _, a := range fp.ips {
		l := slices.DeleteFunc(slices.Clone(m.table[a]), func(x *Fprobe) bool { return x == fp })
		if len(l) == 0 {
			delete(m.table, a)
		} else {
			m.table[a] = l
		}
		ipCount := m.graphIPs
		if fp.viaFtrace {
			ipCount = m.ftraceIPs
		}
		if ipCount[a]--; ipCount[a] <= 0 {
			delete(ipCount, a)
		}
	}
	delete(m.byAddr, fp.addr)
	fp.registered = false
	var err error
	if fp.viaFtrace {
		if m.ftraceAct--; m.ftraceAct == 0 {
			err = m.ft.Unregister(m.fops)
		}
	} else if m.graphActive--; m.graphActive == 0 {
		err = m.g.Unregister(m.gops)
	}
	if err != nil {
		return fmt.Errorf("unregister_fprobe(%s): %w", fpName(fp), err)
	}
	return nil
}

// Enable clears FPROBE_FL_DISABLED (enable_fprobe, include/linux/fprobe.h).
func (m *Fprobes) Enable(fp *Fprobe) { m.setDisabled(fp, false) }

// Disable sets FPROBE_FL_DISABLED (disable_fprobe, include/linux/fprobe.h).
func (m *Fprobes) Disable(fp *Fprobe) { m.setDisabled(fp, true) }

func (m *Fprobes) setDisabled(fp *Fprobe, off bool) {
	if fp == nil {
		return
	}
	if fp.mgr != m {
		fp.StartDisabled = off
		return
	}
	fl := m.readFlags(fp) &^ FprobeFlDisabled
	if off {
		fl |= FprobeFlDisabled
	}
	m.writeFlags(fp, fl)
}

// WordsPerCall is the shadow-stack words one traced call of ip uses with the
// probes registered now, when every entry handler returns 0: the frame (4
// words) plus, when any probe there has an exit handler, the DATA word and
// one header and the entry data per such probe. 0 means the call is not
// traced by fgraph (no exit handler at ip).
func (m *Fprobes) WordsPerCall(ip uint64) int {
	r := m.reservedWords(m.table[ip])
	if r == 0 {
		return 0
	}
	return m.g.frameOff() + 1 + r + 1
}

func fpName(fp *Fprobe) string {
	if fp == nil {
		return "nil"
	}
	if fp.Name == "" {
		return "fprobe"
	}
	return fp.Name
}
