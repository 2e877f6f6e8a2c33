package ftrace

import (
	"fmt"

	"trampemu/regs"
)

// Ops is a struct ftrace_ops (include/linux/ftrace.h): a callback run at the
// entry of every traced function its filter accepts.
type Ops struct {
	Name string
	// Func is ftrace_func_t: (ip, parent_ip, op, fregs). ip is the traced
	// function's address (the call site), parent the address it returns to.
	Func func(ip, parentIP uint64, op *Ops, fregs *regs.Frame)
	// Filter selects the functions; nil means every traced function.
	Filter  func(ip uint64) bool
	Private any
	// Flags are the FTRACE_OPS_FL_* the ops asks for (SAVE_REGS decides
	// between ftrace_regs_caller and ftrace_caller: kernel/trace/ftrace.c
	// ftrace_get_addr_new).
	Flags OpsFlags

	registered bool
}

// OpsFlags are FTRACE_OPS_FL_* (include/linux/ftrace.h).
type OpsFlags uint32

// Ops flags the models use.
const (
	// OpsFlSaveRegs is FTRACE_OPS_FL_SAVE_REGS: the callback needs a full
	// pt_regs, so its sites call ftrace_regs_caller.
	OpsFlSaveRegs OpsFlags = 1 << 2
	// OpsFlSaveArgs is FTRACE_OPS_FL_SAVE_ARGS (v6.7+): ftrace_regs with
	// the argument registers is enough (ftrace_caller).
	OpsFlSaveArgs OpsFlags = 1 << 20
)

// Registered reports whether the ops is on the list.
func (o *Ops) Registered() bool { return o.registered }

// Ftrace is the function tracer core: the list of registered ops
// (kernel/trace/ftrace.c: ftrace_ops_list, ftrace_ops_list_func).
type Ftrace struct {
	ops []*Ops
	// Calls counts dispatches (traced-function entries seen).
	Calls uint64
	// OpsVisited and HashLookups are the C side's work of the dispatches:
	// where exactly one ops is attached to the site the site calls that
	// ops (its own trampoline or ftrace_ops_assist_func: 1 visited, no
	// lookup); else ftrace_ops_list_func visits every ops on the list and
	// tests each ops' filter hash (ftrace_ops_test, one lookup per ops with
	// a filter; kernel/trace/ftrace.c __ftrace_ops_list_func).
	OpsVisited, HashLookups uint64
}

// Register adds ops to the list (register_ftrace_function). Registering an
// ops twice is -EBUSY, as in the kernel.
func (f *Ftrace) Register(o *Ops) error {
	if o.registered {
		return fmt.Errorf("register_ftrace_function(%s): %w", o.Name, EBUSY)
	}
	if o.Func == nil {
		return fmt.Errorf("register_ftrace_function(%s): no callback: %w", o.Name, EINVAL)
	}
	o.registered = true
	f.ops = append(f.ops, o)
	return nil
}

// Unregister removes ops from the list (unregister_ftrace_function).
func (f *Ftrace) Unregister(o *Ops) error {
	for i, x := range f.ops {
		if x == o {
			f.ops = append(f.ops[:i:i], f.ops[i+1:]...)
			o.registered = false
			return nil
		}
	}
	return fmt.Errorf("unregister_ftrace_function(%s): %w", o.Name, EINVAL)
}

// Ops returns the registered ops in dispatch order.
func (f *Ftrace) Ops() []*Ops { return append([]*Ops(nil), f.ops...) }

// Dispatch runs every registered ops whose filter accepts ip: what
// ftrace_ops_list_func does when the trampoline's ftrace_call site calls it.
// A callback may (un)register ops: the walk is over the list as it was.
func (f *Ftrace) Dispatch(ip, parentIP uint64, fregs *regs.Frame) {
	f.Calls++
	f.account(ip)
	// The list as it was, without a copy: Register appends past its end
	// and Unregister builds a new array (f.ops[:i:i]), so a callback that
	// (un)registers ops never changes what this loop walks.
	for _, o := range f.ops {
		if !o.registered || (o.Filter != nil && !o.Filter(ip)) {
			continue
		}
		prev := fregs.Swap(o.Name)
		o.Func(ip, parentIP, o, fregs)
		fregs.Swap(prev)
	}
}

// account counts one dispatch's C-side work (Ftrace.OpsVisited,
// HashLookups).
func (f *Ftrace) account(ip uint64) {
	at := 0
	for _, o := range f.ops {
		if o.Filter == nil || o.Filter(ip) {
			at++
		}
	}
	if at <= 1 {
		f.OpsVisited += uint64(at)
		return
	}
	for _, o := range f.ops {
		f.OpsVisited++
		if o.Filter != nil {
			f.HashLookups++
		}
	}
}

// SitesOps returns how many registered ops want ip: 1 means the site calls
// that ops directly, more the list function.
func (f *Ftrace) SitesOps(ip uint64) int {
	n := 0
	for _, o := range f.ops {
		if o.Filter == nil || o.Filter(ip) {
			n++
		}
	}
	return n
}
