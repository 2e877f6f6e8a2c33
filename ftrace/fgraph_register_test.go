package ftrace

import (
	"fmt"
	"slices"
	"testing"

	"trampemu/regs"
)

func TestRegisterErrors(t *testing.T) {
	archs(t, func(t *testing.T, a *regs.Arch) {
		e := newEnv(t, a)
		var all []*GraphOps
		for i := 0; i < ArraySize; i++ {
			o := &GraphOps{Name: fmt.Sprint("u", i), EntryFunc: accept}
			if err := e.g.Register(o); err != nil {
				t.Fatalf("register %d: %v", i, err)
			}
			if o.Index() != i {
				t.Fatalf("user %d got index %d", i, o.Index())
			}
			all = append(all, o)
		}
		wantErrno(t, e.g.Register(&GraphOps{Name: "17th"}), ENOSPC)
		wantErrno(t, e.g.Register(all[3]), EBUSY)
		wantErrno(t, e.g.Unregister(&GraphOps{Name: "stranger"}), EINVAL)
		wantErrno(t, e.g.Unregister(nil), EINVAL)
		wantErrno(t, e.g.Register(nil), EINVAL)
		if err := e.g.Unregister(all[3]); err != nil {
			t.Fatal(err)
		}
		wantErrno(t, e.g.Unregister(all[3]), EINVAL)
		if all[3].Registered() || all[3].Index() != -1 {
			t.Fatalf("unregistered ops still has index %d", all[3].Index())
		}
	})
}

// TestLRUIndexAllocation: a released index is reused only after every other
// free index.
func TestLRUIndexAllocation(t *testing.T) {
	archs(t, func(t *testing.T, a *regs.Arch) {
		e := newEnv(t, a)
		reg := func(name string) *GraphOps {
			o := &GraphOps{Name: name, EntryFunc: accept}
			if err := e.g.Register(o); err != nil {
				t.Fatal(err)
			}
			return o
		}
		A, B := reg("A"), reg("B")
		if A.Index() != 0 || B.Index() != 1 {
			t.Fatalf("A=%d B=%d", A.Index(), B.Index())
		}
		if err := e.g.Unregister(A); err != nil {
			t.Fatal(err)
		}
		if free := e.g.FreeIndices(); free[len(free)-1] != 0 || len(free) != ArraySize-1 {
			t.Fatalf("free list %v: 0 must be last", free)
		}
		C := reg("C")
		if C.Index() != 2 {
			t.Fatalf("C got %d, want 2 (0 was released last)", C.Index())
		}
		var got []int
		for i := 0; i < 13; i++ {
			got = append(got, reg(fmt.Sprint("f", i)).Index())
		}
		if want := []int{3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}; !slices.Equal(got, want) {
			t.Fatalf("fill order %v, want %v", got, want)
		}
		if D := reg("D"); D.Index() != 0 {
			t.Fatalf("D got %d, want 0 (the only free index)", D.Index())
		}
		// Release 7 then 2: they come back in that order.
		for _, o := range e.g.Registered() {
			if o.Index() == 7 {
				_ = e.g.Unregister(o)
			}
		}
		_ = e.g.Unregister(C)
		if x, y := reg("x"), reg("y"); x.Index() != 7 || y.Index() != 2 {
			t.Fatalf("reuse order %d, %d, want 7, 2", x.Index(), y.Index())
		}
	})
}

// TestIndexReuseLimitation: after unregister the stub skips stale bits; when
// the index is reused, the new owner gets retfunc calls for frames it never
// accepted (the documented limitation) and even retrieves the old owner's
// data, since a DATA word names only the index.
func TestIndexReuseLimitation(t *testing.T) {
	archs(t, func(t *testing.T, a *regs.Arch) {
		e := newEnv(t, a)
		slot0Rets := 0
		zero := &GraphOps{Name: "zero", RetFunc: func(g *Graph, _ *GraphRet, o *GraphOps, _ *regs.Frame) {
			slot0Rets++
			if _, _, ok := g.RetrieveData(o); ok {
				t.Error("slot 0 user retrieved data it never reserved")
			}
		}}
		if err := e.g.Register(zero); err != nil {
			t.Fatal(err)
		}
		aRets := 0
		A := &GraphOps{Name: "A", EntryFunc: func(g *Graph, _ *GraphEnt, o *GraphOps, _ *regs.Frame) bool {
			addr, ok := g.ReserveData(o, 8)
			if ok {
				e.mem.WriteWord(addr, 0xa)
			}
			return ok
		}, RetFunc: func(*Graph, *GraphRet, *GraphOps, *regs.Frame) { aRets++ }}
		if err := e.g.Register(A); err != nil {
			t.Fatal(err)
		}
		for len(e.g.FreeIndices()) > 0 {
			if err := e.g.Register(&GraphOps{Name: "filler"}); err != nil {
				t.Fatal(err)
			}
		}
		idx := A.Index()

		// 1. Unregister while A's frame is live: the stub skips the bit.
		if !e.g.Enter(e.caller(0), e.fn(0), 0, e.sp, e.fregs) {
			t.Fatal("not traced")
		}
		if err := e.g.Unregister(A); err != nil {
			t.Fatal(err)
		}
		if _, err := e.g.Return(e.fregs); err != nil {
			t.Fatal(err)
		}
		if aRets != 0 || e.g.Stats().StaleBits != 1 {
			t.Fatalf("A rets %d, stale bits %d; want 0 and 1", aRets, e.g.Stats().StaleBits)
		}
		if slot0Rets != 1 {
			t.Fatalf("slot 0 user got %d retfunc calls, want 1 (BIT(0) is always set)", slot0Rets)
		}

		// 2. The index is reused while A's frame is live: C gets A's return.
		if err := e.g.Register(A); err != nil {
			t.Fatal(err)
		}
		if !e.g.Enter(e.caller(1), e.fn(1), 0, e.sp, e.fregs) {
			t.Fatal("not traced")
		}
		if err := e.g.Unregister(A); err != nil {
			t.Fatal(err)
		}
		cRets, cFound := 0, 0
		C := &GraphOps{Name: "C", RetFunc: func(g *Graph, tr *GraphRet, o *GraphOps, _ *regs.Frame) {
			cRets++
			if addr, size, ok := g.RetrieveData(o); ok && size == 8 && e.mem.ReadWord(addr) == 0xa {
				cFound++ // A's record: the DATA word only names the index
			}
			if tr.Func != e.fn(1) {
				t.Errorf("C saw func %#x", tr.Func)
			}
		}}
		if err := e.g.Register(C); err != nil {
			t.Fatal(err)
		}
		if C.Index() != idx {
			t.Fatalf("C got index %d, want the reused %d", C.Index(), idx)
		}
		if _, err := e.g.Return(e.fregs); err != nil {
			t.Fatal(err)
		}
		if cRets != 1 || cFound != 1 {
			t.Fatalf("C: %d retfunc calls, %d of A's records retrieved; want 1 and 1 (the limitation)", cRets, cFound)
		}
		e.empty()
	})
}

// TestDirectMode: one user is called without the filter test; two users go
// through the list with it; back to one restores direct mode.
func TestDirectMode(t *testing.T) {
	for _, noDirect := range []bool{false, true} {
		t.Run(fmt.Sprint("noDirect=", noDirect), func(t *testing.T) {
			archs(t, func(t *testing.T, a *regs.Arch) {
				e := newEnvCfg(t, a, noDirect)
				aEntries := 0
				A := &GraphOps{Name: "A", Filter: func(ip uint64) bool { return ip == e.fn(0) },
					EntryFunc: func(*Graph, *GraphEnt, *GraphOps, *regs.Frame) bool { aEntries++; return false }}
				B := &GraphOps{Name: "B", EntryFunc: accept}
				if e.g.Mode() != ModeNone {
					t.Fatalf("mode %v, want none", e.g.Mode())
				}
				want := func(m GraphMode, direct *GraphOps) {
					t.Helper()
					if noDirect && m == ModeDirect {
						m, direct = ModeList, nil
					}
					if e.g.Mode() != m || e.g.Direct() != direct {
						t.Fatalf("mode %v direct %v, want %v %v", e.g.Mode(), e.g.Direct(), m, direct)
					}
				}
				_ = e.g.Register(A)
				want(ModeDirect, A)
				e.g.Enter(e.caller(0), e.fn(1), 0, e.sp, e.fregs) // filter rejects fn(1)
				wantEntries := 1
				if noDirect {
					wantEntries = 0
				}
				if aEntries != wantEntries {
					t.Fatalf("A entries %d, want %d (direct mode skips the filter)", aEntries, wantEntries)
				}
				_ = e.g.Register(B)
				want(ModeList, nil)
				aEntries = 0
				e.g.Enter(e.caller(0), e.fn(1), 0, e.sp, e.fregs)
				if aEntries != 0 {
					t.Fatal("list mode must apply A's filter")
				}
				if _, err := e.g.Return(e.fregs); err != nil { // B traced it
					t.Fatal(err)
				}
				_ = e.g.Unregister(B)
				want(ModeDirect, A) // the 2 -> 1 restore
				_ = e.g.Unregister(A)
				want(ModeNone, nil)
				_ = e.g.Register(B)
				want(ModeDirect, B)
				e.empty()
			})
		})
	}
}

func TestWants(t *testing.T) {
	archs(t, func(t *testing.T, a *regs.Arch) {
		e := newEnv(t, a)
		if e.g.Wants(e.fn(0)) {
			t.Fatal("no user: nothing wanted")
		}
		_ = e.g.Register(&GraphOps{Name: "A", Filter: func(ip uint64) bool { return ip == e.fn(0) }})
		if !e.g.Wants(e.fn(0)) || e.g.Wants(e.fn(1)) {
			t.Fatal("Wants must follow the filter")
		}
	})
}

func TestTaskVarsAndTasks(t *testing.T) {
	archs(t, func(t *testing.T, a *regs.Arch) {
		e := newEnv(t, a)
		A := &GraphOps{Name: "A", EntryFunc: accept}
		if _, ok := e.g.TaskVar(A); ok {
			t.Fatal("task var of an unregistered ops")
		}
		t2, err := e.g.NewTask("t2")
		if err != nil {
			t.Fatal(err)
		}
		e.mem.WriteWord(t2.Stack+8*TaskVarsOffset, 0xdead) // garbage in slot 0's var
		_ = e.g.Register(A)
		e.g.SetCurrent(t2)
		v, ok := e.g.TaskVar(A)
		if !ok || v != t2.Stack+8*uint64(TaskVarsOffset+A.Index()) || e.mem.ReadWord(v) != 0 {
			t.Fatalf("task var %#x ok=%v value %#x", v, ok, e.mem.ReadWord(v))
		}
		// Interleaved calls on two tasks keep separate stacks.
		t1 := e.g.Tasks()[0]
		e.g.SetCurrent(t1)
		e.g.Enter(e.caller(1), e.fn(1), 0, e.sp, e.fregs)
		e.g.SetCurrent(t2)
		e.g.Enter(e.caller(2), e.fn(2), 0, e.sp, e.fregs)
		if r, _ := e.g.Return(e.fregs); r != e.caller(2) {
			t.Fatalf("t2 returned %#x", r)
		}
		e.empty()
		e.g.SetCurrent(t1)
		if r, _ := e.g.Return(e.fregs); r != e.caller(1) {
			t.Fatalf("t1 returned %#x", r)
		}
		e.empty()
		if e.g.Current() != t1 || t1.Stack == t2.Stack {
			t.Fatal("tasks share a stack")
		}
	})
}
