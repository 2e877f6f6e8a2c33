package ftrace

// Warning is one kernel WARN / WARN_ON_ONCE site that fired. Text is short
// and stable (tests and reports match on it); Count says how often it fired.
// Warnings are never fatal.
type Warning struct {
	Text   string
	Detail string // the first occurrence's details
	Count  int
}

// Stable warning texts.
const (
	// WarnBadRetStack is ftrace_pop_return_trace's WARN (kernel/trace/fgraph.c, v6.11+).
	WarnBadRetStack = "Bad function graph ret_stack pointer"
	// WarnBadFrameOffset is get_ret_stack's WARN_ON_ONCE on a bad offset (kernel/trace/fgraph.c, v6.11+).
	WarnBadFrameOffset = "fgraph: bad frame offset"
	// WarnBadFramePointer is ftrace_pop_return_trace's WARN under
	// HAVE_FUNCTION_GRAPH_FP_TEST (kernel/trace/fgraph.c, v6.11+).
	WarnBadFramePointer = "Bad frame pointer"
	// WarnReserveOutsideEntry: fgraph_reserve_data called outside an entry callback.
	WarnReserveOutsideEntry = "fgraph: reserve_data outside entryfunc"
	// WarnNotRegistered: reserve/retrieve for an ops without a slot.
	WarnNotRegistered = "fgraph: ops not registered"
	// WarnFprobeNoFregs is fprobe_entry's WARN_ON_ONCE(!fregs) (kernel/trace/fprobe.c, v6.14+).
	WarnFprobeNoFregs = "fprobe: entry without fregs"
	// WarnFprobeHeader is write_fprobe_header's WARN_ON_ONCE (kernel/trace/fprobe.c, v6.14+):
	// the struct fprobe pointer (or the size) does not fit the one-word header.
	WarnFprobeHeader = "fprobe: header not encodable"
	// WarnFprobeOverflow is fprobe_return's WARN_ON_ONCE(curr + size > size_words) (kernel/trace/fprobe.c, v6.14+).
	WarnFprobeOverflow = "fprobe: record beyond reserved data"
	// WarnFprobeBudget: an entry handler would write past the reservation
	// (cannot happen unless guest memory changed entry_data_size meanwhile).
	WarnFprobeBudget = "fprobe: reservation too small"
)

type warnings struct {
	items []Warning
	index map[string]int
	sink  func(Warning)
}

func (w *warnings) add(text, detail string) {
	if w.index == nil {
		w.index = map[string]int{}
	}
	i, ok := w.index[text]
	if !ok {
		i = len(w.items)
		w.index[text] = i
		w.items = append(w.items, Warning{Text: text, Detail: detail})
	}
	w.items[i].Count++
	if w.sink != nil {
		w.sink(Warning{Text: text, Detail: detail, Count: w.items[i].Count})
	}
}

func (w *warnings) list() []Warning { return append([]Warning(nil), w.items...) }

func (w *warnings) has(text string) bool { _, ok := w.index[text]; return ok }

func (g *Graph) warn(text, detail string) { g.warns.add(text, detail) }
