package ftrace

import (
	"fmt"
	"strings"
	"testing"

	"trampemu/regs"
)

// The test_fprobe KUnit targets (lib/tests/test_fprobe.c): t(v) = v/3 and
// t2(v) = v/3 + 1, called with rand1 > 3.
const (
	rand1     = 1234567891
	divFactor = 3
)

func target(v uint64) uint64  { return v / divFactor }
func target2(v uint64) uint64 { return v/divFactor + 1 }

type fpEnv struct {
	*env
	m  *Fprobes
	ft *Ftrace
}

func newFprobeEnv(t *testing.T, a *regs.Arch, enc HeaderEncoding, fast bool) *fpEnv {
	t.Helper()
	return newFprobeEnvCfg(t, a, enc, fast, false)
}

// newFprobeEnvCfg is newFprobeEnv; noDirect: fgraph tests every user's
// filter even with one user (GraphConfig.NoDirect), as the env's calls
// reach function_graph_enter for every function, filtered or not.
func newFprobeEnvCfg(t *testing.T, a *regs.Arch, enc HeaderEncoding, fast, noDirect bool) *fpEnv {
	t.Helper()
	e := newEnvCfg(t, a, noDirect)
	var ft *Ftrace
	if fast {
		ft = &Ftrace{}
	}
	m, err := NewFprobes(FprobesConfig{Graph: e.g, Header: enc, Ftrace: ft, Symbols: map[string]uint64{
		"fprobe_selftest_target":  e.fn(0),
		"fprobe_selftest_target2": e.fn(1),
		"other_function":          e.fn(2),
	}})
	if err != nil {
		t.Fatal(err)
	}
	return &fpEnv{env: e, m: m, ft: ft}
}

// call is env.call with the fast path's ftrace_ops dispatch in front.
func (f *fpEnv) call(fn uint64, n int, arg uint64, body func(uint64) uint64) uint64 {
	if f.ft != nil {
		f.setEntry(arg, f.caller(n))
		f.ft.Dispatch(fn, f.caller(n), f.fregs)
	}
	return f.env.call(fn, n, arg, body)
}

// kunit holds test_fprobe's globals and handlers.
type kunit struct {
	t                 *testing.T
	f                 *fpEnv
	entryVal, exitVal uint64
	entryData         uint64
	entries, exits    int
	entryRet          int
}

func (k *kunit) entry(fp *Fprobe, ip, retIP uint64, fregs *regs.Frame, data uint64) int {
	k.entries++
	if ip != k.f.fn(0) && ip != k.f.fn(1) {
		k.t.Errorf("entry ip %#x", ip)
	}
	if retIP != k.f.caller(0) && retIP != k.f.caller(1) {
		k.t.Errorf("entry ret_ip %#x", retIP)
	}
	if arg, _ := fregs.Argument(0); arg != rand1 {
		k.t.Errorf("argument 0 = %d", arg)
	}
	k.entryVal = rand1 / divFactor
	if fp.GuestDataSize() != 0 {
		if data == 0 {
			k.t.Error("entry data NULL")
		} else {
			storeN(k.f.mem, k.f.arch, data, 4, k.entryVal)
		}
	} else if data != 0 {
		k.t.Errorf("entry data %#x, want NULL", data)
	}
	k.entryData = data
	return k.entryRet
}

func (k *kunit) exit(fp *Fprobe, ip, retIP uint64, fregs *regs.Frame, data uint64) {
	k.exits++
	ret, _ := fregs.ReturnValue()
	want := target(rand1)
	if ip == k.f.fn(1) {
		want = target2(rand1)
	}
	if ret != want {
		k.t.Errorf("return value %d, want %d", ret, want)
	}
	if ip2, _ := fregs.InstructionPointer(); retIP != ip2 || (retIP != k.f.caller(0) && retIP != k.f.caller(1)) {
		k.t.Errorf("exit ret_ip %#x", retIP)
	}
	if k.entryVal != rand1/divFactor {
		k.t.Errorf("entry_val %d", k.entryVal)
	}
	if fp.GuestDataSize() != 0 {
		if data != k.entryData || data == 0 {
			k.t.Errorf("exit data %#x, entry data %#x: must be the same words", data, k.entryData)
		} else if v := loadN(k.f.mem, k.f.arch, data, 4); v != k.entryVal {
			k.t.Errorf("exit reads %d, entry wrote %d", v, k.entryVal)
		}
	} else if data != 0 {
		k.t.Errorf("exit data %#x, want NULL", data)
	}
	k.exitVal = k.entryVal + divFactor
}

func (k *kunit) run(fn uint64, n int, body func(uint64) uint64) {
	k.entryVal, k.exitVal = 0, 0
	k.f.call(fn, n, rand1, body)
}

// TestKunitFprobe re-creates test_fprobe's cases on both arches, with and
// without the entry-only fast path.
func TestKunitFprobe(t *testing.T) {
	type tc struct {
		name     string
		exit     bool
		dataSize int
		entryRet int
		reg      func(f *fpEnv, fp *Fprobe) error
		wantExit bool
	}
	byGlob := func(f *fpEnv, fp *Fprobe) error { return f.m.Register(fp, "fprobe_selftest_target*") }
	bySyms := func(f *fpEnv, fp *Fprobe) error {
		return f.m.RegisterSyms(fp, []string{"fprobe_selftest_target", "fprobe_selftest_target2"})
	}
	tests := []tc{
		{"entry", false, 0, 0, byGlob, false},
		{"fprobe", true, 0, 0, byGlob, true},
		{"syms", true, 0, 0, bySyms, true},
		{"data", true, 4, 0, byGlob, true},
		{"skip", true, 0, 1, byGlob, false},
	}
	for _, fast := range []bool{false, true} {
		for _, test := range tests {
			t.Run(fmt.Sprintf("%s/fast=%v", test.name, fast), func(t *testing.T) {
				archs(t, func(t *testing.T, a *regs.Arch) {
					f := newFprobeEnv(t, a, HeaderMerged, fast)
					k := &kunit{t: t, f: f, entryRet: test.entryRet}
					fp := &Fprobe{Name: "fp", EntryHandler: k.entry, EntryDataSize: test.dataSize}
					if test.exit {
						fp.ExitHandler = k.exit
					}
					wantErrno(t, f.m.Unregister(fp), EINVAL) // unregister before register
					if err := test.reg(f, fp); err != nil {
						t.Fatal(err)
					}
					for i, fn := range []func(uint64) uint64{target, target2} {
						k.run(f.fn(i), i, fn)
						if k.entryVal == 0 {
							t.Errorf("target%d: entry_val 0", i+1)
						}
						want := uint64(0)
						if test.wantExit {
							want = k.entryVal + divFactor
						}
						if k.exitVal != want {
							t.Errorf("target%d: exit_val %d, want %d", i+1, k.exitVal, want)
						}
					}
					if fp.NMissed() != 0 {
						t.Errorf("nmissed %d, want 0", fp.NMissed())
					}
					if err := f.m.Unregister(fp); err != nil {
						t.Fatal(err)
					}
					if len(f.g.Registered()) != 0 || (f.ft != nil && len(f.ft.Ops()) != 0) {
						t.Error("shared ops still registered after the last probe left")
					}
					f.empty()
					f.noFaults()
					if len(f.warns) != 0 {
						t.Errorf("warnings %v", f.warns)
					}
				})
			})
		}
	}
}

// TestKunitMulti: fp1 (entry+exit) and fp2 (entry-only) on one target, in
// both registration orders; every count is 1.
func TestKunitMulti(t *testing.T) {
	for _, fast := range []bool{false, true} {
		for _, fp1First := range []bool{true, false} {
			t.Run(fmt.Sprintf("fast=%v/fp1first=%v", fast, fp1First), func(t *testing.T) {
				archs(t, func(t *testing.T, a *regs.Arch) {
					f := newFprobeEnv(t, a, HeaderMerged, fast)
					var entryCount, exitCount, entryOnlyCount int
					var vals []uint64
					fp1 := &Fprobe{Name: "fp1",
						EntryHandler: func(_ *Fprobe, _, _ uint64, fregs *regs.Frame, _ uint64) int {
							entryCount++
							v, _ := fregs.Argument(0)
							vals = append(vals, v/divFactor)
							return 0
						},
						ExitHandler: func(_ *Fprobe, _, _ uint64, fregs *regs.Frame, _ uint64) {
							exitCount++
							v, _ := fregs.ReturnValue()
							vals = append(vals, v)
						}}
					fp2 := &Fprobe{Name: "fp2", EntryHandler: func(_ *Fprobe, _, _ uint64, fregs *regs.Frame, _ uint64) int {
						entryOnlyCount++
						v, _ := fregs.Argument(0)
						vals = append(vals, v/divFactor)
						return 0
					}}
					order := []*Fprobe{fp1, fp2}
					if !fp1First {
						order = []*Fprobe{fp2, fp1}
					}
					for _, fp := range order {
						if err := f.m.RegisterSyms(fp, []string{"fprobe_selftest_target"}); err != nil {
							t.Fatal(err)
						}
					}
					if fp2.ViaFtrace() != fast || fp1.ViaFtrace() {
						t.Fatalf("fast path placement: fp1 %v fp2 %v", fp1.ViaFtrace(), fp2.ViaFtrace())
					}
					f.call(f.fn(0), 0, rand1, target)
					if entryCount != 1 || exitCount != 1 || entryOnlyCount != 1 {
						t.Fatalf("entry %d exit %d entry-only %d, want 1 each", entryCount, exitCount, entryOnlyCount)
					}
					for _, v := range vals {
						if v != rand1/divFactor {
							t.Errorf("value %d, want %d", v, rand1/divFactor)
						}
					}
					f.empty()
				})
			})
		}
	}
}

// TestFprobeBudget: one reservation is at most 32 words; with a one-word
// header two 15-word probes fit and a third makes every enabled probe at the
// address count a miss, with no entry handler run.
func TestFprobeBudget(t *testing.T) {
	tests := []struct {
		name       string
		enc        HeaderEncoding
		probes     int
		disabled   bool // add a disabled exit probe without data: it still needs a header
		fits       bool
		wantWords  int
		wantMissed uint64
	}{
		{"merged 2x15", HeaderMerged, 2, false, true, 4 + 1 + 32, 0},
		{"merged 3x15", HeaderMerged, 3, false, false, 0, 1},
		{"merged 2x15 + disabled", HeaderMerged, 2, true, false, 0, 1},
		{"two-word 2x15", HeaderTwoWord, 2, false, false, 0, 1},
		{"two-word 1x15", HeaderTwoWord, 1, false, true, 4 + 1 + 17, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			archs(t, func(t *testing.T, a *regs.Arch) {
				f := newFprobeEnv(t, a, tc.enc, false)
				entries, exits := 0, 0
				var probes []*Fprobe
				for i := 0; i < tc.probes; i++ {
					probes = append(probes, &Fprobe{Name: fmt.Sprint("p", i), EntryDataSize: 15 * 8,
						EntryHandler: func(*Fprobe, uint64, uint64, *regs.Frame, uint64) int { entries++; return 0 },
						ExitHandler:  func(*Fprobe, uint64, uint64, *regs.Frame, uint64) { exits++ }})
				}
				if tc.disabled {
					probes = append(probes, &Fprobe{Name: "off", StartDisabled: true,
						ExitHandler: func(*Fprobe, uint64, uint64, *regs.Frame, uint64) { exits++ }})
				}
				for _, fp := range probes {
					if err := f.m.RegisterSyms(fp, []string{"other_function"}); err != nil {
						t.Fatal(err)
					}
				}
				f.call(f.fn(2), 2, 1, ident)
				enabled := tc.probes
				// the FP-test word (arm64, riscv64), per arch: tc is shared
				// by the arches' subtests.
				wantWords := tc.wantWords + FrameOffsetOf(a) - FrameOffset
				if tc.fits {
					if entries != enabled || exits != enabled || f.g.Stats().LastFrameWords != wantWords {
						t.Fatalf("entries %d exits %d words %d; want %d %d %d", entries, exits, f.g.Stats().LastFrameWords, enabled, enabled, wantWords)
					}
					if w := f.m.WordsPerCall(f.fn(2)); w != wantWords {
						t.Fatalf("WordsPerCall %d, want %d", w, wantWords)
					}
				} else if entries != 0 || exits != 0 || f.m.Stats().ReserveFailed != 1 {
					t.Fatalf("entries %d exits %d: no handler may run when the reservation fails", entries, exits)
				}
				for _, fp := range probes {
					want := tc.wantMissed
					if fp.Name == "off" {
						want = 0
					}
					if fp.NMissed() != want {
						t.Errorf("%s: nmissed %d, want %d", fp.Name, fp.NMissed(), want)
					}
				}
				f.empty()
				f.noFaults()
			})
		})
	}
}

// TestFprobeHeaderArch: the v17 draft cannot encode s390x heap pointers
// (warning, exit handler never runs); the merged header can; on x86-64 both
// work.
func TestFprobeHeaderArch(t *testing.T) {
	for _, a := range regs.Arches {
		for _, enc := range HeaderEncodings {
			works := !(a.Name == "s390x" && enc == HeaderV17)
			t.Run(a.Name+"/"+enc.String(), func(t *testing.T) {
				f := newFprobeEnv(t, a, enc, false)
				entries, exits := 0, 0
				fp := &Fprobe{Name: "h", EntryDataSize: 8,
					EntryHandler: func(*Fprobe, uint64, uint64, *regs.Frame, uint64) int { entries++; return 0 },
					ExitHandler:  func(*Fprobe, uint64, uint64, *regs.Frame, uint64) { exits++ }}
				if err := f.m.Register(fp, "other_function"); err != nil {
					t.Fatal(err)
				}
				if !a.Memory.Heap.Contains(fp.Addr()) {
					t.Fatalf("struct fprobe at %#x is not in the heap", fp.Addr())
				}
				f.call(f.fn(2), 2, 1, ident)
				f.call(f.fn(2), 2, 1, ident)
				wantExits := 2
				if !works {
					wantExits = 0
				}
				if entries != 2 || exits != wantExits || f.g.Warned(WarnFprobeHeader) == works {
					t.Fatalf("entries %d exits %d warnings %v", entries, exits, f.g.Warnings())
				}
				if !works && f.g.Warnings()[0].Count != 2 {
					t.Fatalf("warning count %d", f.g.Warnings()[0].Count)
				}
				if fp.NMissed() != 0 {
					t.Fatal("an unencodable header is silent: no nmissed")
				}
				f.empty()
			})
		}
	}
}

func TestFprobeErrors(t *testing.T) {
	archs(t, func(t *testing.T, a *regs.Arch) {
		f := newFprobeEnv(t, a, HeaderMerged, false)
		noop := func(*Fprobe, uint64, uint64, *regs.Frame, uint64) {}
		good, bad := f.fn(0), f.fn(7)
		fp := &Fprobe{Name: "e", ExitHandler: noop}
		wantErrno(t, f.m.RegisterIPs(nil, []uint64{good}), EINVAL)
		wantErrno(t, f.m.RegisterIPs(fp, nil), EINVAL)
		wantErrno(t, f.m.RegisterSyms(fp, nil), EINVAL)
		wantErrno(t, f.m.Unregister(fp), EINVAL)
		wantErrno(t, f.m.RegisterIPs(fp, []uint64{good, bad}), ENOENT)
		wantErrno(t, f.m.RegisterSyms(fp, []string{"fprobe_selftest_target", "nope"}), ENOENT)
		wantErrno(t, f.m.Register(fp, "no_such_*"), ENOENT)
		fp.EntryDataSize = 15*8 + 1
		err := f.m.RegisterIPs(fp, []uint64{good})
		wantErrno(t, err, E2BIG)
		if want := "register_fprobe_ips(e): entry_data_size 121 is 16 words, max 15"; !strings.Contains(err.Error(), want) {
			t.Errorf("error %q, want it to say %q", err, want)
		}
		if err := f.m.RegisterIPs(&Fprobe{ExitHandler: noop}, []uint64{bad}); err == nil || !strings.Contains(err.Error(), "register_fprobe_ips(fprobe)") {
			t.Errorf("a nameless probe's error %v: want it called fprobe", err)
		}
		fp.EntryDataSize = -1
		wantErrno(t, f.m.RegisterIPs(fp, []uint64{good}), EINVAL)
		if len(f.m.ProbesAt(good)) != 0 || fp.Registered() {
			t.Fatal("a failed registration left the probe in the address table")
		}
		fp.EntryDataSize = 15 * 8
		if err := f.m.RegisterIPs(fp, []uint64{good, good}); err != nil {
			t.Fatal(err)
		}
		if got := fp.IPs(); len(got) != 1 || got[0] != good {
			t.Fatalf("IPs %x", got)
		}
		wantErrno(t, f.m.RegisterIPs(fp, []uint64{good}), EEXIST)
		if err := f.m.Unregister(fp); err != nil {
			t.Fatal(err)
		}
		wantErrno(t, f.m.Unregister(fp), EINVAL)

		// The shared fgraph_ops finds no free slot: -ENOSPC, nothing left behind.
		var fillers []*GraphOps
		for len(f.g.FreeIndices()) > 0 {
			o := &GraphOps{Name: "filler"}
			_ = f.g.Register(o)
			fillers = append(fillers, o)
		}
		wantErrno(t, f.m.RegisterIPs(fp, []uint64{good}), ENOSPC)
		if len(f.m.ProbesAt(good)) != 0 || fp.Registered() {
			t.Fatal("a failed registration left the probe in the address table")
		}
		_ = f.g.Unregister(fillers[0])
		if err := f.m.RegisterIPs(fp, []uint64{good}); err != nil {
			t.Fatal(err)
		}
	})
}

// TestFprobeGuestStruct: struct fprobe lives in guest memory with the
// documented layout; enable/disable flip only FPROBE_FL_DISABLED.
func TestFprobeGuestStruct(t *testing.T) {
	archs(t, func(t *testing.T, a *regs.Arch) {
		f := newFprobeEnv(t, a, HeaderMerged, false)
		entries := 0
		fp := &Fprobe{Name: "g", EntryDataSize: 4, KprobeShared: true,
			EntryHandler: func(*Fprobe, uint64, uint64, *regs.Frame, uint64) int { entries++; return 0 }}
		f.m.Disable(fp)
		if !fp.Disabled() {
			t.Fatal("disable before registration")
		}
		if err := f.m.Register(fp, "fprobe_selftest_target"); err != nil {
			t.Fatal(err)
		}
		at := func(off uint64) uint64 { return f.mem.ReadWord(fp.Addr() + off) }
		flags := make([]byte, 4)
		f.mem.Read(fp.Addr()+FprobeOffFlags, flags)
		if at(FprobeOffNmissed) != 0 || a.ByteOrder.Uint32(flags) != FprobeFlDisabled|FprobeFlKprobeShared ||
			at(FprobeOffDataSize) != 8 || at(FprobeOffEntry) != 1 || at(FprobeOffExit) != 0 {
			t.Fatalf("struct fprobe: nmissed %d flags %x size %d entry %d exit %d", at(FprobeOffNmissed), flags,
				at(FprobeOffDataSize), at(FprobeOffEntry), at(FprobeOffExit))
		}
		f.call(f.fn(0), 0, 1, ident)
		f.m.Enable(fp)
		f.call(f.fn(0), 0, 1, ident)
		if entries != 1 || fp.GuestFlags() != FprobeFlKprobeShared {
			t.Fatalf("entries %d flags %#x", entries, fp.GuestFlags())
		}
	})
}

// TestFprobeDisableInFlight: a probe disabled (or unregistered) between
// entry and exit gets no exit call; the walk goes on to the next record.
func TestFprobeDisableInFlight(t *testing.T) {
	for _, how := range []string{"disable", "unregister"} {
		t.Run(how, func(t *testing.T) {
			archs(t, func(t *testing.T, a *regs.Arch) {
				f := newFprobeEnv(t, a, HeaderMerged, false)
				exits := map[string]int{}
				mk := func(name string) *Fprobe {
					return &Fprobe{Name: name, EntryDataSize: 8,
						ExitHandler: func(fp *Fprobe, _, _ uint64, _ *regs.Frame, _ uint64) { exits[fp.Name]++ }}
				}
				p1, p2 := mk("p1"), mk("p2")
				_ = f.m.Register(p1, "other_function")
				_ = f.m.Register(p2, "other_function")
				f.call(f.fn(2), 2, 0, func(uint64) uint64 {
					if how == "disable" {
						f.m.Disable(p2)
					} else if err := f.m.Unregister(p2); err != nil {
						t.Fatal(err)
					}
					return 0
				})
				if exits["p1"] != 1 || exits["p2"] != 0 {
					t.Fatalf("exits %v", exits)
				}
			})
		})
	}
}

// TestFprobeTailZeroed: the unused tail of the reservation is cleared in
// words (the 2026 fix: the memset took words as bytes).
func TestFprobeTailZeroed(t *testing.T) {
	archs(t, func(t *testing.T, a *regs.Arch) {
		f := newFprobeEnv(t, a, HeaderMerged, false)
		// Poison the shadow stack.
		poison := make([]byte, ShadowStackSize)
		for i := range poison {
			poison[i] = 0xaa
		}
		f.mem.Write(f.g.Current().Stack, poison)
		exits := map[string]int{}
		mk := func(name string, size, ret int) *Fprobe {
			return &Fprobe{Name: name, EntryDataSize: size,
				EntryHandler: func(*Fprobe, uint64, uint64, *regs.Frame, uint64) int { return ret },
				ExitHandler:  func(fp *Fprobe, _, _ uint64, _ *regs.Frame, _ uint64) { exits[fp.Name]++ }}
		}
		_ = f.m.Register(mk("skipper", 16, 1), "other_function")
		_ = f.m.Register(mk("keeper", 8, 0), "other_function") // newest: runs first
		written := f.g.Stats().WrittenWords
		f.call(f.fn(2), 2, 0, func(uint64) uint64 {
			frames, err := f.g.Frames()
			if err != nil || len(frames) != 1 || len(frames[0].Data) != 1 {
				t.Fatalf("frames %+v %v", frames, err)
			}
			rec := frames[0].Data[0]
			if rec.Words != 5 || f.m.Stats().LastUsedWords != 2 {
				t.Fatalf("record %+v used %d", rec, f.m.Stats().LastUsedWords)
			}
			for i := 2; i < 5; i++ {
				if w := f.mem.ReadWord(rec.Addr + 8*uint64(i)); w != 0 {
					t.Errorf("tail word %d = %#x, want 0", i, w)
				}
			}
			return 0
		})
		if exits["keeper"] != 1 || exits["skipper"] != 0 {
			t.Fatalf("exits %v", exits)
		}
		// the push, the DATA word, the bitmap, keeper's header, the 3 tail words
		if got, want := f.g.Stats().WrittenWords-written, uint64(FrameOffsetOf(a)+1+1+1+1+3); got != want {
			t.Errorf("shadow-stack words written %d, want %d", got, want)
		}
		f.noFaults()
	})
}

// TestFprobeSlotZeroQuirk: fprobe's ops in slot 0 gets retfunc calls for
// frames only another user accepted (BIT(0)); it finds no data and calls
// nothing.
func TestFprobeSlotZeroQuirk(t *testing.T) {
	archs(t, func(t *testing.T, a *regs.Arch) {
		f := newFprobeEnv(t, a, HeaderMerged, false)
		exits := 0
		fp := &Fprobe{Name: "q", ExitHandler: func(*Fprobe, uint64, uint64, *regs.Frame, uint64) { exits++ }}
		_ = f.m.Register(fp, "fprobe_selftest_target")
		_ = f.g.Register(&GraphOps{Name: "other", EntryFunc: accept})
		if f.m.GraphOps().Index() != 0 {
			t.Fatalf("fprobe ops at %d", f.m.GraphOps().Index())
		}
		f.call(f.fn(2), 2, 0, ident)
		if exits != 0 || f.m.Stats().NoData != 1 || len(f.g.Warnings()) != 0 {
			t.Fatalf("exits %d nodata %d warnings %v", exits, f.m.Stats().NoData, f.g.Warnings())
		}
		f.call(f.fn(0), 0, 0, ident)
		if exits != 1 {
			t.Fatalf("exits %d", exits)
		}
	})
}

// TestFprobeExitRecursion: an exit handler that calls a traced function
// recurses at most once.
func TestFprobeExitRecursion(t *testing.T) {
	for _, fast := range []bool{false, true} {
		t.Run(fmt.Sprint("fast=", fast), func(t *testing.T) {
			archs(t, func(t *testing.T, a *regs.Arch) {
				f := newFprobeEnv(t, a, HeaderMerged, fast)
				exits, entries := 0, 0
				fp := &Fprobe{Name: "r",
					EntryHandler: func(*Fprobe, uint64, uint64, *regs.Frame, uint64) int { entries++; return 0 },
					ExitHandler: func(*Fprobe, uint64, uint64, *regs.Frame, uint64) {
						exits++
						f.call(f.fn(0), 0, 0, ident)
					}}
				_ = f.m.Register(fp, "fprobe_selftest_target")
				f.call(f.fn(0), 0, 0, ident)
				if exits != 2 || entries != 2 {
					t.Fatalf("exit handler ran %d times, entry %d; want 2 and 2", exits, entries)
				}
				f.empty()
			})
		})
	}
}

// TestFprobeWordsPerCall: shadow-stack words per traced call by header
// encoding, number of probes and data size, predicted and measured.
func TestFprobeWordsPerCall(t *testing.T) {
	tests := []struct {
		enc    HeaderEncoding
		probes int
		size   int
		want   int
	}{
		{HeaderMerged, 1, 0, 4 + 1 + 1},
		{HeaderMerged, 1, 8, 4 + 1 + 2},
		{HeaderTwoWord, 1, 8, 4 + 1 + 3},
		{HeaderMerged, 2, 0, 4 + 1 + 2},
		{HeaderTwoWord, 2, 0, 4 + 1 + 4},
		{HeaderMerged, 1, 120, 4 + 1 + 16},
		{HeaderMerged, 4, 4, 4 + 1 + 8},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%v/%dx%d", tc.enc, tc.probes, tc.size), func(t *testing.T) {
			archs(t, func(t *testing.T, a *regs.Arch) {
				f := newFprobeEnv(t, a, tc.enc, false)
				for i := 0; i < tc.probes; i++ {
					_ = f.m.Register(&Fprobe{Name: "w", EntryDataSize: tc.size,
						ExitHandler: func(*Fprobe, uint64, uint64, *regs.Frame, uint64) {}}, "other_function")
				}
				// the FP-test word (arm64, riscv64), per arch: tc is shared
				// by the arches' subtests.
				want := tc.want + FrameOffsetOf(a) - FrameOffset
				if w := f.m.WordsPerCall(f.fn(2)); w != want {
					t.Fatalf("predicted %d words, want %d", w, want)
				}
				f.call(f.fn(2), 2, 0, ident)
				if w := f.g.Stats().LastFrameWords; w != want {
					t.Fatalf("measured %d words, want %d", w, want)
				}
			})
		})
	}
}
