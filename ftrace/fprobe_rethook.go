package ftrace

import (
	"fmt"
	"slices"

	"trampemu/regs"
)

// RethookEra is the form of the rethook-era fprobe (kernel/trace/fprobe.c
// v5.18-v6.13) a manager follows.
type RethookEra struct {
	Name string
	// Pool is the rethook's node pool: freelist (v5.18-v6.6), objpool
	// (v6.7-v6.13).
	Pool RethookPool
	// GetFirst (v6.4+, 3cc4e2c5fbae "fprobe: make fprobe_kprobe_handler
	// recursion free" and the entry_data rework): rethook_try_get comes
	// before the entry handler, and an empty pool counts nmissed with the
	// entry handler NOT called; before it the (void) entry handler ran
	// first and the miss was counted after it.
	GetFirst bool
	// EntryData (v6.4+): entry_data_size, nr_maxactive and an int-returning
	// entry handler whose non-zero return recycles the node (no exit).
	EntryData bool
	// ExitLock (v6.4+): fprobe_exit_handler takes the recursion lock on
	// (entry_ip, entry_parent_ip), nmissed++ when it fails.
	ExitLock bool
}

// Rethook-era forms, cited to kernel/trace/fprobe.c of the versions: v6.13
// (and v6.7-v6.12) as on the old side of "fprobe: Rewrite fprobe on
// function-graph tracer" (v15 13/19, index 90a3c8e2bbdf): try_get first,
// entry_parent_ip, objpool; v6.4-v6.6 the same on the freelist; v5.18-v6.3
// the FP518 form (raspberrypi/linux@5836e49b1cef kernel/trace/fprobe.c).
var (
	RethookV613 = RethookEra{Name: "v6.7-v6.13", Pool: PoolObjpool, GetFirst: true, EntryData: true, ExitLock: true}
	RethookV64  = RethookEra{Name: "v6.4-v6.6", Pool: PoolFreelist, GetFirst: true, EntryData: true, ExitLock: true}
	RethookV518 = RethookEra{Name: "v5.18-v6.3", Pool: PoolFreelist}
)

// struct fprobe_rethook_node (kernel/trace/fprobe.c v6.5-v6.13): struct
// rethook_node node; unsigned long entry_ip; unsigned long
// entry_parent_ip; char data[].
const (
	fprNodeOffEntryIP     = RethookNodeSize
	fprNodeOffEntryParent = RethookNodeSize + 8
	// FprobeRethookNodeSize is sizeof(struct fprobe_rethook_node) without
	// the entry data.
	FprobeRethookNodeSize = RethookNodeSize + 16
)

// rethookProbe is the rethook era's per-fprobe state: the struct
// ftrace_ops embedded in struct fprobe, with its own filter hash, and
// fp->rethook.
type rethookProbe struct {
	ops    *Ops
	filter map[uint64]bool
	rh     *Rethook
}

// RethookFprobesConfig is what a RethookFprobes is built from.
type RethookFprobesConfig struct {
	Kernel *Kernel
	// Symbols maps the traceable functions' names to their addresses.
	Symbols map[string]uint64
	Era     RethookEra
}

// RethookFprobeStats are the manager's counters.
type RethookFprobeStats struct {
	Entries     uint64 // fprobe_handler calls (one per ops per traced call)
	Exits       uint64 // fprobe_exit_handler calls
	PoolEmpty   uint64 // entries that found the pool empty (nmissed counted)
	Recursion   uint64 // entries or exits refused by the recursion lock
	MemoryBytes uint64 // rethook pools reserved now
}

// RethookFprobes is fprobe on ftrace_ops + rethook (kernel/trace/fprobe.c
// v5.18-v6.13): each fprobe registers its own ftrace_ops with its own
// filter hash; the entry takes a node from the fprobe's rethook pool and
// hooks the return; the exit comes through arch_rethook_trampoline and
// rethook_trampoline_handler.
type RethookFprobes struct {
	k     *Kernel
	mem   regs.Memory
	arch  *regs.Arch
	era   RethookEra
	syms  map[string]uint64
	known map[uint64]bool
	stats RethookFprobeStats
}

// NewRethookFprobes builds a manager over cfg.Kernel.
func NewRethookFprobes(cfg RethookFprobesConfig) (*RethookFprobes, error) {
	if cfg.Kernel == nil {
		return nil, fmt.Errorf("fprobe (rethook): a Kernel is required: %w", EINVAL)
	}
	if cfg.Era.Pool == 0 {
		return nil, fmt.Errorf("fprobe (rethook): era %q has no pool: %w", cfg.Era.Name, EINVAL)
	}
	m := &RethookFprobes{k: cfg.Kernel, mem: cfg.Kernel.Mem, arch: cfg.Kernel.Arch, era: cfg.Era,
		syms: map[string]uint64{}, known: map[uint64]bool{}}
	for n, a := range cfg.Symbols {
		m.syms[n] = a
		m.known[a] = true
	}
	return m, nil
}

// Era returns the form the manager follows.
func (m *RethookFprobes) Era() RethookEra { return m.era }

// Stats returns the counters.
func (m *RethookFprobes) Stats() RethookFprobeStats { return m.stats }

// Ops returns fp's embedded ftrace_ops (nil before registration).
func (m *RethookFprobes) Ops(fp *Fprobe) *Ops {
	if fp == nil || fp.rstate == nil {
		return nil
	}
	return fp.rstate.ops
}

// Rethook returns fp->rethook (nil without exit handler or registration).
func (m *RethookFprobes) Rethook(fp *Fprobe) *Rethook {
	if fp == nil || fp.rstate == nil {
		return nil
	}
	return fp.rstate.rh
}

// DefaultMaxactive is fprobe_init_rethook's default pool size for num
// addresses: num * num_possible_cpus() * 2 (kernel/trace/fprobe.c
// v5.18-v6.13).
func DefaultMaxactive(num, cpus int) int { return num * cpus * 2 }

// Register is register_fprobe(fp, filter, NULL) (kernel/trace/fprobe.c
// v5.18-v6.13): ftrace_set_filter on fp->ops, then the pool sized from the
// filter hash's count. No match is -ENOENT here (the kernel's
// ftrace_set_filter fails with -EINVAL for a glob matching nothing).
func (m *RethookFprobes) Register(fp *Fprobe, filter string) error {
	ips, err := globIPs(m.syms, fp, filter)
	if err != nil {
		return err
	}
	return m.RegisterIPs(fp, ips)
}

// RegisterSyms is register_fprobe_syms: the names' ftrace locations
// (get_ftrace_locations: an unknown name is -ENOENT).
func (m *RethookFprobes) RegisterSyms(fp *Fprobe, names []string) error {
	ips, err := symIPs(m.syms, fp, names)
	if err != nil {
		return err
	}
	return m.RegisterIPs(fp, ips)
}

// RegisterIPs is register_fprobe_ips (kernel/trace/fprobe.c v5.18-v6.13):
// fprobe_init (nmissed = 0; ops.func = fprobe_handler; ops.flags |=
// FTRACE_OPS_FL_SAVE_REGS, kept for the whole era), ftrace_set_filter_ips
// on the fprobe's own ops, fprobe_init_rethook(fp, num) and
// register_ftrace_function(&fp->ops). The pool: no exit handler, none;
// else nr_maxactive if set, else num * num_possible_cpus() * 2; <= 0
// -EINVAL; node size sizeof(struct fprobe_rethook_node) + entry_data_size.
func (m *RethookFprobes) RegisterIPs(fp *Fprobe, ips []uint64) error {
	name := fpName(fp)
	if fp == nil || len(ips) == 0 {
		return fmt.Errorf("register_fprobe_ips(%s): no addresses: %w", name, EINVAL)
	}
	if fp.registered {
		return fmt.Errorf("register_fprobe_ips(%s): already registered: %w", name, EBUSY)
	}
	if !m.era.EntryData && (fp.EntryDataSize != 0 || fp.NrMaxactive != 0) {
		return fmt.Errorf("register_fprobe_ips(%s): entry_data_size and nr_maxactive came in v6.4, not in %s: %w", name, m.era.Name, EINVAL)
	}
	if fp.EntryDataSize < 0 || fp.NrMaxactive < 0 {
		return fmt.Errorf("register_fprobe_ips(%s): entry_data_size %d, nr_maxactive %d: %w", name, fp.EntryDataSize, fp.NrMaxactive, EINVAL)
	}
	ips = slices.Clone(ips)
	slices.Sort(ips)
	ips = slices.Compact(ips)
	for _, a := range ips {
		if !m.known[a] {
			return fmt.Errorf("register_fprobe_ips(%s): %#x is not a traceable function: %w", name, a, ENOENT)
		}
	}
	first := fp.rmgr != m
	if first {
		a, err := m.k.Heap.Alloc(FprobeStructSize, 8)
		if err != nil {
			return fmt.Errorf("register_fprobe_ips(%s): struct fprobe: %w", name, err)
		}
		fp.addr = a
	}
	st := &rethookProbe{filter: map[uint64]bool{}}
	for _, a := range ips {
		st.filter[a] = true
	}
	if fp.ExitHandler != nil {
		num := fp.NrMaxactive
		if num == 0 {
			num = DefaultMaxactive(len(ips), m.k.Rethook.CPUs)
		}
		if num <= 0 {
			return fmt.Errorf("register_fprobe_ips(%s): pool of %d nodes: %w", name, num, EINVAL)
		}
		rh, err := m.k.Rethook.Alloc(m.era.Pool, m.exitHandler(fp), FprobeRethookNodeSize+fp.EntryDataSize, num)
		if err != nil {
			return fmt.Errorf("register_fprobe_ips(%s): %w", name, err)
		}
		st.rh = rh
		m.stats.MemoryBytes += uint64(rh.MemoryBytes)
	}
	st.ops = &Ops{Name: "fprobe:" + name, Flags: OpsFlSaveRegs, Private: fp,
		Func:   func(ip, parent uint64, op *Ops, fregs *regs.Frame) { m.handler(fp, ip, parent, fregs) },
		Filter: func(ip uint64) bool { return st.filter[ip] }}
	if err := m.k.Ftrace.Register(st.ops); err != nil {
		return fmt.Errorf("register_fprobe_ips(%s): %w", name, err)
	}
	fp.rmgr, fp.rstate = m, st
	// The v5.18-v6.13 struct fprobe keeps entry_data_size as given (no
	// rounding: the node's data[] is that many bytes).
	writeGuestStruct(m.mem, m.arch, fp, fp.EntryDataSize, first)
	fp.ips, fp.registered = ips, true
	return nil
}

// Unregister is unregister_fprobe (kernel/trace/fprobe.c v5.18-v6.13):
// rethook_stop, unregister_ftrace_function, rethook_free (pending nodes
// are freed when their functions return; their handler is NULL by then),
// ftrace_free_filter. Not registered is -EINVAL.
func (m *RethookFprobes) Unregister(fp *Fprobe) error {
	if fp == nil || !fp.registered || fp.rmgr != m {
		return fmt.Errorf("unregister_fprobe(%s): not registered: %w", fpName(fp), EINVAL)
	}
	st := fp.rstate
	if st.rh != nil {
		st.rh.Stop()
		m.stats.MemoryBytes -= uint64(st.rh.MemoryBytes)
	}
	err := m.k.Ftrace.Unregister(st.ops)
	fp.registered = false
	if err != nil {
		return fmt.Errorf("unregister_fprobe(%s): %w", fpName(fp), err)
	}
	return nil
}

// Enable clears FPROBE_FL_DISABLED.
func (m *RethookFprobes) Enable(fp *Fprobe) { m.setDisabled(fp, false) }

// Disable sets FPROBE_FL_DISABLED.
func (m *RethookFprobes) Disable(fp *Fprobe) { m.setDisabled(fp, true) }

func (m *RethookFprobes) setDisabled(fp *Fprobe, off bool) {
	if fp == nil {
		return
	}
	if fp.rmgr != m {
		fp.StartDisabled = off
		return
	}
	fl := guestFlags(m.mem, m.arch, fp) &^ FprobeFlDisabled
	if off {
		fl |= FprobeFlDisabled
	}
	putGuestFlags(m.mem, m.arch, fp, fl)
}

// handler is fprobe_handler (kernel/trace/fprobe.c v5.18-v6.13), fp's own
// ops callback: disabled -> return (no count); ftrace_test_recursion_trylock
// fails -> nmissed++; then __fprobe_handler in the era's order.
func (m *RethookFprobes) handler(fp *Fprobe, ip, parent uint64, fregs *regs.Frame) {
	m.stats.Entries++
	if !fp.registered || fp.Disabled() {
		return
	}
	t := m.k.Graph.cur
	bit, ok := t.trylock()
	if !ok {
		m.stats.Recursion++
		incGuestMissed(m.mem, fp)
		return
	}
	defer t.unlock(bit)
	rh := fp.rstate.rh
	var node *RethookNode
	var data uint64
	if m.era.GetFirst && fp.ExitHandler != nil {
		if node = m.k.Rethook.TryGet(rh); node == nil {
			m.stats.PoolEmpty++
			incGuestMissed(m.mem, fp)
			return
		}
		m.mem.WriteWord(node.Addr+fprNodeOffEntryIP, ip)
		m.mem.WriteWord(node.Addr+fprNodeOffEntryParent, parent)
		if fp.EntryDataSize != 0 {
			data = node.Addr + FprobeRethookNodeSize
		}
	}
	// ftrace_get_regs(fregs): the ops has SAVE_REGS, so its sites come
	// through ftrace_regs_caller and fregs holds a whole pt_regs.
	ret := 0
	if fp.EntryHandler != nil {
		ret = fp.EntryHandler(fp, ip, parent, fregs.With(fpName(fp)), data)
		if !m.era.EntryData {
			ret = 0 // void entry handler before v6.4
		}
	}
	if !m.era.GetFirst && fp.ExitHandler != nil {
		if node = m.k.Rethook.TryGet(rh); node == nil {
			m.stats.PoolEmpty++
			incGuestMissed(m.mem, fp)
			return
		}
		m.mem.WriteWord(node.Addr+fprNodeOffEntryIP, ip)
	}
	if node == nil {
		return
	}
	// If entry_handler returns !0, nmissed is not counted.
	if ret != 0 {
		m.k.Rethook.Recycle(node)
		return
	}
	if err := m.k.Rethook.Hook(node, fregs); err != nil {
		m.k.Graph.warn(WarnFprobeNoFregs, fmt.Sprintf("%s: %v", fpName(fp), err))
		m.k.Rethook.Recycle(node)
	}
}

// exitHandler is fprobe_exit_handler (kernel/trace/fprobe.c v5.18-v6.13),
// the rethook's handler: fp NULL or disabled -> skip; v6.4+ takes the
// recursion lock on (entry_ip, entry_parent_ip), nmissed++ on failure;
// exit_handler(fp, entry_ip, ret_ip, regs, data or NULL).
func (m *RethookFprobes) exitHandler(fp *Fprobe) RethookHandler {
	return func(n *RethookNode, retAddr uint64, p *regs.Frame) {
		m.stats.Exits++
		if fp.Disabled() || fp.ExitHandler == nil {
			return
		}
		if m.era.ExitLock {
			t := m.k.Graph.cur
			bit, ok := t.trylock()
			if !ok {
				m.stats.Recursion++
				incGuestMissed(m.mem, fp)
				return
			}
			defer t.unlock(bit)
		}
		entryIP := m.mem.ReadWord(n.Addr + fprNodeOffEntryIP)
		var data uint64
		if fp.EntryDataSize != 0 {
			data = n.Addr + FprobeRethookNodeSize
		}
		fp.ExitHandler(fp, entryIP, retAddr, p.With(fpName(fp)), data)
	}
}
