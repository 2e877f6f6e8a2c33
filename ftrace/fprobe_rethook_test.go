package ftrace

import (
	"testing"

	"trampemu/regs"
)

// rhEnv is a kernel with the rethook-era fprobe over flat memory: entries
// go through the ops list (Ftrace.Dispatch), returns through
// rethook_trampoline_handler as arch_rethook_trampoline would call it.
type rhEnv struct {
	*env
	k  *Kernel
	m  *RethookFprobes
	tr uint64 // arch_rethook_trampoline
}

func newRethookEnv(t *testing.T, a *regs.Arch, era RethookEra) *rhEnv {
	t.Helper()
	e := newEnv(t, a)
	tr := a.Memory.Stubs.Base + 0x80
	k, err := NewKernel(KernelConfig{Arch: a, Mem: e.mem, Heap: e.heap, ReturnToHandler: e.rth, RethookTrampoline: tr})
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewRethookFprobes(RethookFprobesConfig{Kernel: k, Era: era, Symbols: map[string]uint64{
		"fprobe_selftest_target": e.fn(0), "fprobe_selftest_target2": e.fn(1), "other_function": e.fn(2)}})
	if err != nil {
		t.Fatal(err)
	}
	return &rhEnv{env: e, k: k, m: m, tr: tr}
}

// retSlot reads the traced function's return address where the arch keeps
// it at entry (x86-64 *sp, arm64 lr, s390x r14).
func (r *rhEnv) retSlot() uint64 {
	if acc := r.arch.Frame.Accessors; acc.RetAddr != "" {
		v, _ := r.fregs.Raw(acc.RetAddr)
		return v
	}
	return r.mem.ReadWord(r.sp)
}

// enter runs the entry of a call of fn from call site n and reports
// whether the return was hooked.
func (r *rhEnv) enter(fn uint64, n int, arg uint64) bool {
	r.setEntry(arg, r.caller(n))
	r.fregs.Set(r.arch.Frame.Accessors.FP, r.sp+0x100)
	r.k.Ftrace.Dispatch(fn, r.caller(n), r.fregs)
	return r.retSlot() == r.tr
}

// leave is the traced function's return into arch_rethook_trampoline.
func (r *rhEnv) leave(n int, result uint64) {
	r.t.Helper()
	r.fregs.SetReturnValue(result)
	frame, _ := MustOps(r.arch).RethookFrame(r.fregs)
	got, err := r.k.Rethook.TrampolineHandler(r.fregs, frame)
	if err != nil {
		r.t.Fatal(err)
	}
	if got != r.caller(n) {
		r.t.Fatalf("rethook_trampoline_handler = %#x, want %#x", got, r.caller(n))
	}
	if ip, _ := r.fregs.InstructionPointer(); ip != r.caller(n) {
		r.t.Fatalf("regs ip = %#x after the handler, want the real return address %#x", ip, r.caller(n))
	}
}

func TestRethookFprobeEntryExitData(t *testing.T) {
	archs(t, func(t *testing.T, a *regs.Arch) {
		r := newRethookEnv(t, a, RethookV613)
		var entries, exits int
		var entryData uint64
		fp := &Fprobe{Name: "fp", EntryDataSize: 4,
			EntryHandler: func(fp *Fprobe, ip, retIP uint64, f *regs.Frame, data uint64) int {
				entries++
				if retIP != r.caller(0) {
					t.Errorf("entry ret_ip %#x, want %#x", retIP, r.caller(0))
				}
				entryData = data
				r.mem.WriteWord(data, target(rand1))
				return 0
			},
			ExitHandler: func(fp *Fprobe, ip, retIP uint64, f *regs.Frame, data uint64) {
				exits++
				if ip != r.fn(0) || retIP != r.caller(0) {
					t.Errorf("exit ip %#x ret_ip %#x, want %#x %#x", ip, retIP, r.fn(0), r.caller(0))
				}
				if data != entryData || r.mem.ReadWord(data) != target(rand1) {
					t.Errorf("exit data %#x (%d), want %#x (%d)", data, r.mem.ReadWord(data), entryData, target(rand1))
				}
				if v, _ := f.ReturnValue(); v != target(rand1) {
					t.Errorf("exit return value %d, want %d", v, target(rand1))
				}
			}}
		if err := r.m.Register(fp, "fprobe_selftest_target*"); err != nil {
			t.Fatal(err)
		}
		rh := r.m.Rethook(fp)
		// 2 addresses x 2 possible CPUs x 2 (fprobe_init_rethook).
		if rh.Nodes != 8 || rh.Free() != 8 || rh.ObjSize != FprobeRethookNodeSize+8 {
			t.Fatalf("pool %d nodes (%d free) of %d bytes, want 8 of %d", rh.Nodes, rh.Free(), rh.ObjSize, FprobeRethookNodeSize+8)
		}
		if !r.enter(r.fn(0), 0, rand1) {
			t.Fatal("return address not hooked")
		}
		if rh.Free() != 7 || r.k.Rethook.Pending() != 1 {
			t.Fatalf("after entry: %d free, %d pending; want 7, 1", rh.Free(), r.k.Rethook.Pending())
		}
		// struct fprobe_rethook_node after its rethook_node: entry_ip,
		// entry_parent_ip (kernel/trace/fprobe.c v6.7-v6.13).
		n := r.k.Rethook.lists[r.k.Rethook.g.cur][0]
		if ip, parent := r.mem.ReadWord(n.Addr+fprNodeOffEntryIP), r.mem.ReadWord(n.Addr+fprNodeOffEntryParent); ip != r.fn(0) || parent != r.caller(0) {
			t.Errorf("node: entry_ip %#x, entry_parent_ip %#x; want %#x, %#x", ip, parent, r.fn(0), r.caller(0))
		}
		r.leave(0, target(rand1))
		if entries != 1 || exits != 1 || rh.Free() != 8 || fp.NMissed() != 0 {
			t.Fatalf("entries %d exits %d free %d nmissed %d; want 1 1 8 0", entries, exits, rh.Free(), fp.NMissed())
		}
		st := r.k.Rethook.Stats()
		if st.Gets != 1 || st.Puts != 1 || st.Atomics != 2 || st.Handlers != 1 {
			t.Fatalf("rethook stats %+v: want 1 get, 1 put, 2 atomics (objpool), 1 handler", st)
		}
		if ms := r.m.Stats(); ms.Entries != 1 || ms.Exits != 1 || ms.PoolEmpty != 0 {
			t.Fatalf("fprobe stats %+v: want 1 entry, 1 exit, the pool never empty", ms)
		}
		// One ops at the site: called directly, no hash lookup.
		if r.k.Ftrace.OpsVisited != 1 || r.k.Ftrace.HashLookups != 0 {
			t.Fatalf("ops visited %d, lookups %d; want 1, 0", r.k.Ftrace.OpsVisited, r.k.Ftrace.HashLookups)
		}
		if err := r.m.Unregister(fp); err != nil {
			t.Fatal(err)
		}
		wantErrno(t, r.m.Unregister(fp), EINVAL)
		r.noFaults()
	})
}

// TestRethookFprobeNest is test_fprobe_nest (lib/test_fprobe.c v6.4-v6.13):
// nr_maxactive = 1, a probe on a function and on the one it calls: the
// inner call finds the pool empty, nmissed == 1, and (try_get first) its
// entry handler does not run.
func TestRethookFprobeNest(t *testing.T) {
	archs(t, func(t *testing.T, a *regs.Arch) {
		for _, c := range []struct {
			era         RethookEra
			wantEntries int
		}{{RethookV613, 1}, {RethookV64, 1}} {
			r := newRethookEnv(t, a, c.era)
			entries, exits := 0, 0
			fp := &Fprobe{Name: "nest", NrMaxactive: 1,
				EntryHandler: func(*Fprobe, uint64, uint64, *regs.Frame, uint64) int { entries++; return 0 },
				ExitHandler:  func(*Fprobe, uint64, uint64, *regs.Frame, uint64) { exits++ }}
			if err := r.m.RegisterSyms(fp, []string{"fprobe_selftest_target", "fprobe_selftest_target2"}); err != nil {
				t.Fatal(err)
			}
			if !r.enter(r.fn(0), 0, rand1) {
				t.Fatal("outer call not hooked")
			}
			outer := r.retSlot()
			saved := r.mem.ReadWord(r.sp)
			if r.enter(r.fn(1), 1, rand1) {
				t.Fatalf("%s: inner call hooked with a pool of 1", c.era.Name)
			}
			if fp.NMissed() != 1 || entries != c.wantEntries {
				t.Fatalf("%s: nmissed %d entries %d; want 1, %d", c.era.Name, fp.NMissed(), entries, c.wantEntries)
			}
			if ms := r.m.Stats(); ms.PoolEmpty != 1 || ms.Entries != 2 {
				t.Fatalf("%s: fprobe stats %+v: want 2 entries, the pool empty at 1", c.era.Name, ms)
			}
			// Back to the outer frame's state and its return.
			r.setEntry(rand1, outer)
			r.mem.WriteWord(r.sp, saved)
			r.fregs.Set(r.arch.Frame.Accessors.FP, r.sp+0x100)
			r.leave(0, 1)
			if exits != 1 {
				t.Fatalf("%s: exits %d, want 1", c.era.Name, exits)
			}
		}
	})
}

// TestRethookFprobeEras: the v5.18 form runs the (void) entry handler
// before it finds the pool empty; freelist atomics are 3 per get, 2 per put.
func TestRethookFprobeEras(t *testing.T) {
	archs(t, func(t *testing.T, a *regs.Arch) {
		r := newRethookEnv(t, a, RethookV518)
		entries := 0
		fp := &Fprobe{Name: "old",
			EntryHandler: func(*Fprobe, uint64, uint64, *regs.Frame, uint64) int { entries++; return 1 },
			ExitHandler:  func(*Fprobe, uint64, uint64, *regs.Frame, uint64) {}}
		wantErrno(t, r.m.RegisterIPs(&Fprobe{EntryDataSize: 8, ExitHandler: fp.ExitHandler}, []uint64{r.fn(0)}), EINVAL)
		if err := r.m.RegisterIPs(fp, []uint64{r.fn(0)}); err != nil {
			t.Fatal(err)
		}
		// A void entry handler: its 1 is ignored, the return is hooked.
		for i := 0; i < 5; i++ {
			r.enter(r.fn(0), i, rand1)
		}
		if entries != 5 || fp.NMissed() != 1 {
			t.Fatalf("entries %d nmissed %d; want 5 (handler before try_get) and 1 (pool of 4)", entries, fp.NMissed())
		}
		st := r.k.Rethook.Stats()
		if st.Gets != 5 || st.GetsEmpty != 1 || st.Atomics != 12 {
			t.Fatalf("stats %+v: want 5 gets, 1 empty, 12 atomics (4 freelist pops)", st)
		}
		if ms := r.m.Stats(); ms.PoolEmpty != 1 || ms.Entries != 5 {
			t.Fatalf("fprobe stats %+v: want 5 entries, the pool empty at 1", ms)
		}
	})
}

// TestRethookFprobeSharedSite: two fprobes on one function: the list
// function visits both ops and tests both filter hashes; a third ops
// elsewhere is visited too.
func TestRethookFprobeSharedSite(t *testing.T) {
	archs(t, func(t *testing.T, a *regs.Arch) {
		r := newRethookEnv(t, a, RethookV613)
		n := 0
		h := func(*Fprobe, uint64, uint64, *regs.Frame, uint64) int { n++; return 0 }
		for i, ip := range []uint64{r.fn(0), r.fn(0), r.fn(2)} {
			if err := r.m.RegisterIPs(&Fprobe{Name: "p", EntryHandler: h}, []uint64{ip}); err != nil {
				t.Fatal(i, err)
			}
		}
		r.enter(r.fn(0), 0, rand1)
		if n != 2 || r.k.Ftrace.OpsVisited != 3 || r.k.Ftrace.HashLookups != 3 {
			t.Fatalf("handlers %d, visited %d, lookups %d; want 2, 3, 3", n, r.k.Ftrace.OpsVisited, r.k.Ftrace.HashLookups)
		}
		r.enter(r.fn(2), 0, rand1)
		if n != 3 || r.k.Ftrace.OpsVisited != 4 {
			t.Fatalf("lone ops: handlers %d visited %d; want 3, 4", n, r.k.Ftrace.OpsVisited)
		}
	})
}

func TestRethookPoolBytes(t *testing.T) {
	// objpool: 2 CPUs: 2 slot pointers + 2 x (16 + 8 x 8) + 8 x 72.
	if got, want := RethookPoolBytes(PoolObjpool, 72, 8, 2), 16+2*(16+64)+8*72; got != want {
		t.Fatalf("objpool bytes %d, want %d", got, want)
	}
	if got := RethookPoolBytes(PoolFreelist, 65, 3, 4); got != 3*72 {
		t.Fatalf("freelist bytes %d, want %d", got, 3*72)
	}
}
