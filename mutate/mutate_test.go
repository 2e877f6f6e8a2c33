package mutate

import (
	"strings"
	"testing"

	"trampemu/harness"
	"trampemu/regs"
)

// mutantCase is one mutant (by file:line and the start of its mutation)
// with the class the checks must give it.
type mutantCase struct {
	variant, where, mutation, class string
	reason                          string // for survivors
}

// TestClassification: a few mutants per arch, each class present, on the
// add workload with 2 calls (fast); every arch in the table.
func TestClassification(t *testing.T) {
	cases := map[*regs.Arch][]mutantCase{
		regs.X86_64: {
			{"ftrace_caller", "trampolines/x86_64/mcount_regs.h:22", "delete: delete `movq %rax, RAX(%rsp)`", Killed, ""},
			{"ftrace_caller", "trampolines/x86_64/mcount_regs.h:22", "swap: swap `movq %rax, RAX(%rsp)` with `movq %rcx, RCX(%rsp)`", Equivalent, ""},
			{"ftrace_caller", "trampolines/x86_64/mcount_regs.h:29", "delete: delete `movq $0, ORIG_RAX(%rsp)`", Survived, ReasonRemovable},
			{"ftrace_caller", "trampolines/x86_64/ftrace_caller.S:23", "delete: delete `call ftrace_stub`", Stillborn, ""},
			// The gap mutation testing found: r10 not reloaded from pt_regs.
			{"ftrace_regs_caller", "trampolines/x86_64/ftrace_regs_caller.S:45", "delete: delete `movq R10(%rsp), %r10`", Killed, ""},
			// ... and the flags not copied back over the pushed ones.
			{"ftrace_regs_caller", "trampolines/x86_64/ftrace_regs_caller.S:37", "delete: delete `movq EFLAGS(%rsp), %rax`", Killed, ""},
			// And the other: ftrace_graph_caller that never hooks the return.
			{"ftrace_caller-v5.10", "trampolines/x86_64/ftrace_caller_v5.10.S:36", "delete: delete `call prepare_ftrace_return`", Killed, ""},
			// ... or hooks it with a wrong parent pointer.
			{"ftrace_caller-v5.10", "trampolines/x86_64/ftrace_caller_v5.10.S:34", "displacement: displacement +8", Killed, ""},
			// The frame pointer argument the kernel ignores (no FP_TEST).
			{"ftrace_caller-v5.10", "trampolines/x86_64/ftrace_caller_v5.10.S:35", "delete: delete `movq $0, %rdx`", Equivalent, ""},
			{"rth-merged", "trampolines/x86_64/rth_merged.S:12", "register:", Killed, ""},
			// The final RET deleted: control falls through the padding
			// into ftrace_stub's ret, which returns where RET would have;
			// running off the end is a control error all the same.
			{"rth-merged", "trampolines/x86_64/rth_merged.S:25", "delete: delete `RET`", Killed, ""},
		},
		regs.S390X: {
			{"rth-merged", "trampolines/s390x/rth_merged.S:11", "delete:", Killed, ""},
			{"rth-merged", "trampolines/s390x/rth_merged.S:13", "swap:", Equivalent, ""},
			// The back-chain store one instruction later: the same values
			// everywhere, but one more boundary (2 of 12) at which the
			// unwinder loses the traced function's caller.
			{"rth-merged", "trampolines/s390x/rth_merged.S:12", "swap: swap `stg %r1,__SF_BACKCHAIN(%r15)`", Killed, ""},
			// The final return deleted: control runs off the end.
			{"rth-merged", "trampolines/s390x/rth_merged.S:20", "delete: delete `BR_EX %r14`", Killed, ""},
			{"ftrace_caller-oldcpu", "trampolines/s390x/ftrace_caller.S:47", "branch: jnz -> jz", Killed, ""},
			// The gap mutation testing found: the traced function's frame
			// without its return address (the unwinder's r14 slot).
			{"ftrace_caller", "trampolines/s390x/ftrace_regs_entry.h:20", "delete: delete `stg %r0,(__SF_GPRS+8*8)(%r15)`", Killed, ""},
			{"ftrace_caller", "trampolines/s390x/ftrace_regs_entry.h:21", "delete: delete `stg %r15,(__SF_GPRS+9*8)(%r15)`", Killed, ""},
			// prepare_ftrace_return told the wrong traced function.
			{"ftrace_caller-v6.13", "trampolines/s390x/ftrace_caller_v6.13.S:41", "delete:", Killed, ""},
			// The callback's frame chained past the traced function's.
			{"ftrace_caller", "trampolines/s390x/ftrace_regs_entry.h:32", "delete: delete `aghi %r1,-TRACED_FUNC_FRAME_SIZE`", Killed, ""},
			// ftrace_regs released before the call that reads them.
			{"rth-merged", "trampolines/s390x/rth_merged.S:16", "swap: swap `brasl %r14,ftrace_return_to_handler` with `aghi", Killed, ""},
			// A frame 8 bytes larger: only the stack addresses differ.
			{"ftrace_caller-v4", "trampolines/s390x/ftrace_caller_v4.S:15", "immediate: immediate -STACK_FRAME_SIZE-8", Survived, ReasonStackLayout},
			// r0 after the entry means nothing: lmg wrapping into r0.
			{"ftrace_caller", "trampolines/s390x/ftrace_caller.S:50", "register: %r15 -> %r0 in `0: lmg %r2,%r15", Equivalent, ""},
		},
		regs.ARM64: {
			// The frame pointer ftrace_return_to_handler tests (FP_TEST).
			{"rth-merged", "trampolines/arm64/rth_merged.S:18", "delete: delete `str x29, [sp, #FREGS_FP]`", Killed, ""},
			// sp 8 bytes off: 16-byte alignment, checked at every boundary.
			{"rth-merged", "trampolines/arm64/rth_merged.S:13", "immediate: immediate #FREGS_SIZE+8", Killed, ""},
			{"rth-merged", "trampolines/arm64/rth_merged.S:14", "swap:", Equivalent, ""},
			// The final return deleted: control runs off the end.
			{"rth-merged", "trampolines/arm64/rth_merged.S:27", "delete: delete `ret`", Killed, ""},
			// The direct-call test inverted: every call through a direct
			// trampoline nobody set.
			{"ftrace_caller", "trampolines/arm64/ftrace_caller.S:36", "branch: cbnz -> cbz", Killed, ""},
		},
	}
	for a, cs := range cases {
		t.Run(a.Name, func(t *testing.T) {
			origs := originals{}
			for _, c := range cs {
				o := origs.get(t, a, c.variant)
				m := o.find(c.where, c.mutation)
				if m == nil {
					t.Errorf("%s: no mutant %q at %s", c.variant, c.mutation, c.where)
					continue
				}
				oc := o.classify(testConfig(a), *m)
				if oc.Class != c.class {
					t.Errorf("%s %s %s: %s (%s), want %s", c.variant, m.Where(), m.Mutation(), oc.Class, oc.Detail, c.class)
					continue
				}
				if oc.Class == Survived && oc.Survivor.Reason != c.reason {
					t.Errorf("%s %s %s: reason %q %v, want %q", c.variant, m.Where(), m.Mutation(), oc.Survivor.Reason, oc.Survivor.Differs, c.reason)
				}
			}
		})
	}
}

func testConfig(a *regs.Arch) Config { return Config{Arch: a, Calls: 2, Workloads: []string{"add"}} }

// originals are checked originals by variant name, each checked once.
type originals map[string]*original

// get returns the checked original of a registry variant.
func (m originals) get(t *testing.T, a *regs.Arch, variant string) *original {
	t.Helper()
	if o := m[variant]; o != nil {
		return o
	}
	v, err := harness.FindVariant(a, "", variant)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := harness.FromVariant(v)
	if err != nil {
		t.Fatal(err)
	}
	p, err := harness.Pair(a, tr)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := Mutants(a, tr)
	if err != nil {
		t.Fatal(err)
	}
	o := &original{t: tr, partner: p, mutants: ms}
	if err := o.check(testConfig(a)); err != nil {
		t.Fatal(err)
	}
	m[variant] = o
	return o
}

// find returns the first mutant at where whose mutation starts with
// prefix (nil when there is none).
func (o *original) find(where, prefix string) *Mutant {
	for i := range o.mutants {
		if o.mutants[i].Where() == where && strings.HasPrefix(o.mutants[i].Mutation(), prefix) {
			return &o.mutants[i]
		}
	}
	return nil
}

// TestMutantsOfEachKind: the generator makes every kind of mutant where
// the source has it, on every arch, and only on instruction lines.
func TestMutantsOfEachKind(t *testing.T) {
	for _, c := range []struct {
		a       *regs.Arch
		variant string
	}{{regs.X86_64, "ftrace_regs_caller"}, {regs.S390X, "ftrace_caller-oldcpu"}, {regs.ARM64, "ftrace_caller"}} {
		v, err := harness.FindVariant(c.a, "", c.variant)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := harness.FromVariant(v)
		if err != nil {
			t.Fatal(err)
		}
		ms, err := Mutants(c.a, tr)
		if err != nil {
			t.Fatal(err)
		}
		kinds := map[string]int{}
		for _, m := range ms {
			kinds[m.Kind]++
			if strings.Contains(m.Desc, "SYM_") || strings.Contains(m.Desc, "#include") {
				t.Errorf("%s: mutant of a non-instruction line: %s %s", c.a.Name, m.Where(), m.Mutation())
			}
		}
		for _, k := range []string{KindDelete, KindRegister, KindDisplacement, KindImmediate, KindSwap, KindBranch} {
			if kinds[k] == 0 {
				t.Errorf("%s %s: no %s mutant (%v)", c.a.Name, c.variant, k, kinds)
			}
		}
	}
}

// TestRunParallel: Run over a few mutants of one variant per arch, in
// parallel: every mutant classified once, the counts add up, the progress
// reaches the total.
func TestRunParallel(t *testing.T) {
	for _, c := range []struct {
		a       *regs.Arch
		variant string
		line    int
	}{{regs.X86_64, "rth-merged", 12}, {regs.S390X, "rth-merged", 13}, {regs.ARM64, "rth-merged", 18}} {
		v, err := harness.FindVariant(c.a, "", c.variant)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := harness.FromVariant(v)
		if err != nil {
			t.Fatal(err)
		}
		var done, total int
		sums, err := Run(Config{Arch: c.a, Tramps: []harness.Tramp{tr}, Calls: 2, Workloads: []string{"add"}, Workers: 4,
			Only:     func(m Mutant) bool { return m.Line == c.line },
			Progress: func(d, n int) { done, total = d, n }})
		if err != nil {
			t.Fatal(err)
		}
		s := sums[0]
		if s.Mutants == 0 || s.Mutants != s.Killed+s.Stillborn+s.Equivalent+len(s.Survived) {
			t.Errorf("%s: %d mutants, %d killed + %d stillborn + %d equivalent + %d survived", c.a.Name, s.Mutants, s.Killed, s.Stillborn, s.Equivalent, len(s.Survived))
		}
		if s.Killed == 0 {
			t.Errorf("%s: no mutant of line %d killed", c.a.Name, c.line)
		}
		if done != total || total != s.Mutants+1 {
			t.Errorf("%s: progress %d of %d, want %d", c.a.Name, done, total, s.Mutants+1)
		}
	}
}
