package ftrace

import "fmt"

// Register gives ops a fgraph_array slot (register_ftrace_graph,
// kernel/trace/fgraph.c, v6.11+). The index comes from an LRU FIFO of free
// indices: a released index is handed out again only after every index
// released before it. A second registration of the same ops is -EBUSY, a
// 17th concurrent user -ENOSPC (kernel/trace/fgraph.c, v6.11+). The ops'
// task variable is zeroed on every task (init_task_vars, v6.12+).
func (g *Graph) Register(ops *GraphOps) error {
	if ops == nil {
		return fmt.Errorf("register_ftrace_graph(nil): %w", EINVAL)
	}
	if ops.Registered() {
		return fmt.Errorf("register_ftrace_graph(%s): already registered at index %d: %w", ops.Name, ops.Index(), EBUSY)
	}
	if len(g.lru) == 0 {
		return fmt.Errorf("register_ftrace_graph(%s): all %d fgraph_array slots in use: %w", ops.Name, ArraySize, ENOSPC)
	}
	idx := g.lru[0]
	g.lru = append(g.lru[:0:0], g.lru[1:]...)
	g.array[idx] = ops
	ops.idx = idx + 1
	for _, t := range g.tasks {
		g.mem.WriteWord(g.taskVarAddr(t, idx), 0)
	}
	if g.userOps != nil {
		// v9 12/36: ret = ftrace_startup(&gops->ops, command); on failure
		// fgraph_array[i] = &fgraph_stub.
		if err := g.userOps(ops, true); err != nil {
			g.array[idx] = nil
			g.lru = append([]int{idx}, g.lru...)
			ops.idx = 0
			return fmt.Errorf("register_ftrace_graph(%s): ftrace_startup: %w", ops.Name, err)
		}
	}
	g.updateMode()
	return nil
}

// Unregister releases the ops' slot (unregister_ftrace_graph,
// kernel/trace/fgraph.c, v6.11+): the stub goes back into fgraph_array, so
// stale bits on live shadow stacks skip the slot, or reach the next owner of
// the index if it is reused (the design limitation the LRU order only makes
// less likely). Unregistering an ops that holds no slot is -EINVAL.
func (g *Graph) Unregister(ops *GraphOps) error {
	if ops == nil || !ops.Registered() || g.array[ops.Index()] != ops {
		name := "nil"
		if ops != nil {
			name = ops.Name
		}
		return fmt.Errorf("unregister_ftrace_graph(%s): not registered: %w", name, EINVAL)
	}
	idx := ops.Index()
	g.array[idx] = nil
	g.lru = append(g.lru, idx)
	ops.idx = 0
	if g.userOps != nil {
		// v9 12/36: ftrace_shutdown(&gops->ops, command).
		if err := g.userOps(ops, false); err != nil {
			return fmt.Errorf("unregister_ftrace_graph(%s): ftrace_shutdown: %w", ops.Name, err)
		}
	}
	g.updateMode()
	return nil
}

// updateMode switches the direct (static call) path on exactly when one user
// is left, also when going down from two users to one (kernel/trace/fgraph.c:
// ftrace_graph_enable_direct / _disable_direct, v6.11+; the 2 -> 1 restore
// was missing at first and added as a fix).
//
// The drafts' dispatch forms have no direct mode.
func (g *Graph) updateMode() {
	g.direct = nil
	if g.noDirect || g.dispatch != DispatchMerged {
		return
	}
	var only *GraphOps
	n := 0
	for _, o := range g.array {
		if o != nil {
			n++
			only = o
		}
	}
	if n == 1 {
		g.direct = only
	}
}

// Mode returns how Enter reaches the users now.
func (g *Graph) Mode() GraphMode {
	switch {
	case g.direct != nil:
		return ModeDirect
	case len(g.lru) == ArraySize:
		return ModeNone
	}
	return ModeList
}

// Direct returns the user called through the direct path, or nil.
func (g *Graph) Direct() *GraphOps { return g.direct }

// Registered returns the registered users in index order.
func (g *Graph) Registered() []*GraphOps {
	var out []*GraphOps
	for _, o := range g.array {
		if o != nil {
			out = append(out, o)
		}
	}
	return out
}

// AnyRegistered reports whether a graph user is registered (Registered
// is not empty), without building the list: a checked run asks at every
// trampoline run.
func (g *Graph) AnyRegistered() bool {
	for _, o := range g.array {
		if o != nil {
			return true
		}
	}
	return false
}

// Slot returns the ops in fgraph_array slot i, or nil for the stub.
func (g *Graph) Slot(i int) *GraphOps {
	if i < 0 || i >= ArraySize {
		return nil
	}
	return g.array[i]
}

// FreeIndices returns the free indices in the order they will be handed out.
func (g *Graph) FreeIndices() []int { return append([]int(nil), g.lru...) }

// Wants reports whether any registered user's filter accepts ip: whether the
// call site at ip is patched to enter the graph tracer (the union of the
// users' ftrace_ops hashes, kernel/trace/ftrace.c). The arch glue uses it to
// decide whether to call Enter, since the direct path skips the filter.
func (g *Graph) Wants(ip uint64) bool {
	for _, o := range g.array {
		if o != nil && (o.Filter == nil || o.Filter(ip)) {
			return true
		}
	}
	return false
}
