package ftrace

// GraphEvent is one callback of a graph user as a watcher sees it: an
// entry callback that asked for the return (what the kernel's
// function_graph tracer records as a funcgraph_entry, kernel/trace/
// trace_functions_graph.c trace_graph_entry, v6.5+), or a return callback
// (funcgraph_exit).
type GraphEvent struct {
	User   string
	Return bool
	Func   uint64
	// Depth is the call's depth: 0 for the outermost traced call
	// (curr_ret_depth starts at -1, kernel/trace/fgraph.c, v6.11+).
	Depth int
	// Retval is what ftrace_regs_get_return_value gave the return
	// callbacks (CONFIG_FUNCTION_GRAPH_RETVAL); HasRetval is false when
	// there was none.
	Retval    uint64
	HasRetval bool
}

// Watch calls fn after every entry callback that asked for the return and
// before every return callback, for every registered user; nil stops it.
// It observes only: the users and the shadow stack see no difference.
func (g *Graph) Watch(fn func(GraphEvent)) { g.watch = fn }
