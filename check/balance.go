package check

import (
	"fmt"
	"strings"

	"trampemu/harness"
	"trampemu/trampolines"
)

// shadowBalance reports a call after which a task's function-graph shadow
// stack is not back where the call found it (harness.Call.Shadow): every
// traced call's frame must be popped by its return through
// return_to_handler (kernel/trace/fgraph.c, v6.11+: ftrace_push_return_trace
// / ftrace_pop_return_trace pair up; an unpopped frame makes a later
// return_to_handler hand back the wrong return address). A frame left
// behind is charged to the entry trampoline's check (it hooked a return
// that never came), one popped twice to the exit trampoline's; only calls
// in which the trampoline under test ran count.
func (z *analyzer) shadowBalance(c *harness.Call) {
	if len(c.Shadow) == 0 || !ranIn(c, z.t.Role) {
		return
	}
	for _, u := range c.Shadow {
		if u.Left != (z.t.Role == trampolines.Entry) {
			continue
		}
		what, verb := "left behind", "never popped"
		if !u.Left {
			what, verb = "popped twice", "popped again"
		}
		var names, detail []string
		for i, f := range u.Frames {
			users := "no user"
			if i < len(u.Users) && len(u.Users[i]) > 0 {
				users = "user " + strings.Join(u.Users[i], ", ")
			}
			names = append(names, fmt.Sprintf("%s (%s)", z.where(f.Func), users))
			detail = append(detail, fmt.Sprintf("frame at word %d: func %s, ret %s, retp %#x", f.Base, z.where(f.Func), z.where(f.Ret), f.Retp))
		}
		if len(names) == 0 {
			names = append(names, fmt.Sprintf("%d word(s)", abs(u.End-u.Start)))
		}
		if u.Err != nil {
			detail = append(detail, u.Err.Error())
		}
		summary := fmt.Sprintf("shadow stack not balanced after %s: frame of %s %s", c.Workload, strings.Join(names, "; "), what)
		z.col.add(Control, "", "", summary, fmt.Sprintf("task %s: curr_ret_stack %d after the call, %d before (%s: %s)",
			u.Task, u.End, u.Start, verb, strings.Join(detail, "; ")))
	}
}

// ranIn reports whether the call ran a trampoline of the role.
func ranIn(c *harness.Call, r trampolines.Role) bool {
	for _, inv := range c.Invocations {
		if inv.Role == r {
			return true
		}
	}
	return false
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
