package ftrace

import (
	"errors"
	"strings"
	"testing"

	"trampemu/regs"
)

// TestBalance: a balanced call gives nothing; a frame pushed and never
// popped is reported as left behind with its function and user; an extra
// pop below the mark is reported as popped twice with the frame it took,
// even after a later push reused its words. Every arch.
func TestBalance(t *testing.T) {
	archs(t, func(t *testing.T, a *regs.Arch) {
		e := newEnv(t, a)
		if err := e.g.Register(&GraphOps{Name: "tracer", EntryFunc: accept}); err != nil {
			t.Fatal(err)
		}
		// Balanced: one traced call, popped.
		m := e.g.Marks()
		e.call(e.fn(1), 1, 7, func(x uint64) uint64 { return x + 1 })
		if u := e.g.Balance(m, e.g.Currs(nil)); len(u) != 0 {
			t.Fatalf("balanced call: %v", u)
		}
		// Left behind: the entry pushes, no return comes.
		m = e.g.Marks()
		e.setEntry(1, e.caller(2))
		if !e.g.Enter(e.caller(2), e.fn(2), 0, e.sp, e.fregs) {
			t.Fatal("Enter refused")
		}
		ends := e.g.Currs(nil)
		u := e.g.Balance(m, ends)
		if len(u) != 1 || !u[0].Left || len(u[0].Frames) != 1 || u[0].Frames[0].Func != e.fn(2) ||
			len(u[0].Users[0]) != 1 || u[0].Users[0][0] != "tracer" || u[0].Start != 0 || u[0].End != ends[0] {
			t.Fatalf("left behind: %+v", u)
		}
		if s := u[0].String(); !strings.Contains(s, "left behind") || !strings.Contains(s, "task init") {
			t.Errorf("String() = %q", s)
		}
		// Popped twice: from that frame on the stack, two returns.
		m = e.g.Marks()
		if _, err := e.g.Return(e.fregs); err != nil {
			t.Fatal(err)
		}
		e.call(e.fn(3), 3, 1, func(x uint64) uint64 { return x }) // reuses the popped words
		u = e.g.Balance(m, e.g.Currs(nil))
		if len(u) != 1 || u[0].Left || len(u[0].Frames) != 1 || u[0].Frames[0].Func != e.fn(2) || u[0].Users[0][0] != "tracer" {
			t.Fatalf("popped twice: %+v", u)
		}
		e.empty()
	})
}

// TestBalanceEdges: the text of an unbalanced stack says popped twice or
// left behind and names a decoding error only when there is one; a mark
// without an end (ends taken before a task existed, or cut short) is not
// compared, the marks before it are. Every arch.
func TestBalanceEdges(t *testing.T) {
	u := Unbalanced{Task: "t", Start: 4, End: 2}
	if s := u.String(); s != "task t: curr_ret_stack 2, was 4: 0 frame(s) popped twice" {
		t.Errorf("String() = %q", s)
	}
	u.Left, u.Err = true, errors.New("bad meta word")
	if s := u.String(); s != "task t: curr_ret_stack 2, was 4: 0 frame(s) left behind (bad meta word)" {
		t.Errorf("String() = %q", s)
	}
	archs(t, func(t *testing.T, a *regs.Arch) {
		e := newEnv(t, a)
		if err := e.g.Register(&GraphOps{Name: "tracer", EntryFunc: accept}); err != nil {
			t.Fatal(err)
		}
		m := e.g.Marks()
		e.setEntry(1, e.caller(2))
		if !e.g.Enter(e.caller(2), e.fn(2), 0, e.sp, e.fregs) {
			t.Fatal("Enter refused")
		}
		if u := e.g.Balance(m, nil); len(u) != 0 {
			t.Fatalf("no ends: %v", u)
		}
		if u := e.g.Balance(m, e.g.Currs(nil)); len(u) != 1 || !u[0].Left {
			t.Fatalf("the same marks with their ends: %v", u)
		}
		if _, err := e.g.Return(e.fregs); err != nil {
			t.Fatal(err)
		}
		e.empty()
	})
}
