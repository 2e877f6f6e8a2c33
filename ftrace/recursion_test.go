package ftrace

import "testing"

// TestTrylock: the context bit, then the transition bit once, then
// recursion: refused and counted in RecursionMissed, every refusal; an
// unlock frees the bit it was given.
func TestTrylock(t *testing.T) {
	var task Task
	b1, ok1 := task.trylock()
	b2, ok2 := task.trylock()
	if !ok1 || !ok2 || b1 != recCtx || b2 != recTransition {
		t.Fatalf("first two: %v %v, bits %d %d", ok1, ok2, b1, b2)
	}
	for i := 1; i <= 3; i++ {
		if b, ok := task.trylock(); ok || b != 0 {
			t.Fatalf("recursion %d let through (bit %d)", i, b)
		}
		if task.RecursionMissed != uint64(i) {
			t.Fatalf("RecursionMissed %d after %d refusals", task.RecursionMissed, i)
		}
	}
	task.unlock(b2)
	if b, ok := task.trylock(); !ok || b != recTransition {
		t.Fatalf("after the transition bit's unlock: %v %d", ok, b)
	}
	task.unlock(recTransition)
	task.unlock(b1)
	if task.recursion != 0 {
		t.Fatalf("bits left: %b", task.recursion)
	}
	if b, ok := task.trylock(); !ok || b != recCtx || task.recursion != recCtx {
		t.Fatalf("free again: %v %d, bits %b", ok, b, task.recursion)
	}
}
