package ftrace

// Recursion protection: ftrace_test_recursion_trylock / _unlock
// (include/linux/trace_recursion.h, v5.11+). The model has one context per
// task (no interrupts), so it keeps two bits: the context bit and
// TRACE_CTX_TRANSITION.
const (
	recCtx        = 1 << 0 // the context bit of the (only) context
	recTransition = 1 << 1 // TRACE_CTX_TRANSITION
)

// trylock is trace_test_and_set_recursion (include/linux/trace_recursion.h,
// v5.15+): when the context bit is free it is taken and the transition bit
// is cleared; when it is held, the transition bit is taken once (one nested
// call is let through, meant for interrupts that arrive before preempt_count
// says so); when both are held the call is recursion and fails.
func (t *Task) trylock() (bit uint8, ok bool) {
	if t.recursion&recCtx == 0 {
		t.recursion = t.recursion&^recTransition | recCtx
		return recCtx, true
	}
	if t.recursion&recTransition != 0 {
		t.RecursionMissed++
		return 0, false
	}
	t.recursion |= recTransition
	return recTransition, true
}

// unlock is trace_clear_recursion(bit) (include/linux/trace_recursion.h).
func (t *Task) unlock(bit uint8) { t.recursion &^= bit }
