package tests

import (
	"slices"
	"strings"
	"testing"

	"trampemu/check"
	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
)

// expectedKinds is the table of error-finding kinds every (variant,
// workload) must produce in the variant's intended pairing under the
// default scenario: none, except for the known bugs and rejected drafts.
var expectedKinds = map[string][]check.Kind{
	"x86_64/rth-v6.19":      {check.WrongValue},
	"s390x/rth-v14-draft":   {check.StaleRead},
	"s390x/rth-alloc-draft": {check.Backchain, check.Clobber, check.Stack},
	// the rejected v7 25/36: x10, a scratch register, stored as sp
	"arm64/rth-v7-draft": {check.WrongValue},
	// v5.14-v6.12: the error injection's skipped call leaves its
	// shadow-stack frame behind (bugWorkloads)
	"s390x/ftrace_regs_caller-v6.12": {check.Control},
	// arch_rethook_trampoline's broken twins: a register missing from
	// pt_regs (the exit handler reads it stale, or it comes back changed),
	// the callback skipped (it returns to itself until the limit), the
	// stack unbalanced (cascades per workload: see TestVariantsInTheirPairing).
	"x86_64/rethook-drop-rbx":      {check.StaleRead},
	"x86_64/rethook-skip-callback": {check.Control},
	"x86_64/rethook-unbalanced":    {check.Control},
	"s390x/rethook-drop-r7":        {check.Clobber},
	"s390x/rethook-skip-callback":  {check.Control},
	"s390x/rethook-unbalanced":     {check.Control},
	"arm64/rethook-drop-x19":       {check.StaleRead},
	"arm64/rethook-skip-callback":  {check.Control},
	"arm64/rethook-unbalanced":     {check.Stack},
	// riscv64: regs->sp of the v6.3-v6.10 ftrace_regs_caller is its
	// lowered sp (7caa9765465f stored the entry sp); the v5.x
	// return_to_handler loses a1; arch_rethook_trampoline writes no PT_SP
	// (the exit handler reads it stale), and its twins.
	// rth-v6.14: its record at s0 - 16 (s0 = sp + 80) holds the saved s0
	// and an unwritten ra at s0 - 8, so a walk from
	// ftrace_return_to_handler stops there (backchain).
	"riscv64/rth-v6.14": {check.Backchain, check.Fault, check.Stack, check.StaleRead},
	"riscv64/rth-fixed": {check.Backchain},
	// v5.11-v6.2 (the ra-based site's parent word): sp 8 bytes off
	// 16-byte alignment between SAVE_ABI's two steps, in ftrace_regs_caller
	// at its calls too; its PT_EPC below sp (an interrupt overwrites it)
	// and the lowered regs->sp.
	"riscv64/ftrace_caller-v6.2":       {check.Stack},
	"riscv64/ftrace_regs_caller-v6.2":  {check.Stack, check.WrongValue},
	"riscv64/ftrace_regs_caller-v6.7":  {check.WrongValue},
	"riscv64/ftrace_regs_caller-v6.10": {check.WrongValue},
	"riscv64/rth-legacy-no-a1":         {check.Clobber},
	"riscv64/rethook":                  {check.StaleRead},
	"riscv64/rethook-drop-s1":          {check.StaleRead},
	"riscv64/rethook-skip-callback":    {check.Control},
	"riscv64/rethook-unbalanced":       {check.Stack},
	// the v6.16 entry's twins: the ops read from the call site's own
	// words is no pointer (fault); ra not reloaded after "jalr ra" to
	// op->func points into ftrace_caller (clobber ra, and the traced
	// function comes back into the entry: control); t0 not reloaded is
	// what C left (control: "jr t0" goes to no code)
	"riscv64/ftrace_caller-v6.16-ops-at-8": {check.Fault},
	"riscv64/ftrace_caller-v6.16-no-ra":    {check.Clobber, check.Control},
	"riscv64/ftrace_caller-v6.16-no-t0":    {check.Control},
	// the arm64 -pg era's ftrace_graph_caller twins: its own saved lr as
	// parent (the graph entry hooks ftrace_caller's return: x30 and the
	// leave are wrong, and the argument), the traced function's fp as
	// frame_pointer (ftrace_return_to_handler's "Bad frame pointer")
	"arm64/ftrace_caller-v5.0-wrong-parent": {check.Clobber, check.Control, check.WrongValue},
	"arm64/ftrace_caller-v5.0-wrong-fp":     {check.Fault, check.WrongValue},
}

// bugWorkloads are, for a known bug that only some workloads reach, those
// workloads: the others must be clean.
var bugWorkloads = map[string][]string{
	"s390x/ftrace_regs_caller-v6.12": {"fei_target"},
}

// bugExtraKinds are, for a known bug, the kinds a workload shows besides
// the table's: the riscv64 v5.11-v6.2 ftrace_caller's ret128 loses a1 in
// its pair, the v5.x return_to_handler (rth-legacy-no-a1); in
// ftrace_regs_caller's the run the interrupt model interrupts at its
// PT_EPC below sp returns into the poison and ends the batch before the
// driver compares ret128's result (its own check, and the real file's,
// show the same). (riscv64 v6.14's
// broken chain in the chain workload, where its a0/a1 stores above the
// entry sp overwrite the caller's record, is in the table's backchain of
// its unwritten record ra on every workload.)
var bugExtraKinds = map[string]map[string][]check.Kind{
	"riscv64/ftrace_caller-v6.2": {"ret128": {check.Clobber}},
}

// TestVariantsInTheirPairing runs every registry variant of both arches on
// every workload and compares the error kinds with the table: every merged
// variant but v6.19 is clean, and each known-bad one is caught.
func TestVariantsInTheirPairing(t *testing.T) {
	for _, a := range regs.Arches {
		for _, v := range harness.VariantsOf(a, "") {
			a, v := a, v
			t.Run(a.Name+"/"+v.Name, func(t *testing.T) {
				t.Parallel()
				tr := variant(t, a, v.Name)
				key := a.Name + "/" + v.Name
				if v.Kernel && v.Bug == "" && len(expectedKinds[key]) > 0 {
					t.Fatalf("table expects findings from a merged variant without a known bug")
				}
				for _, r := range runCheck(t, check.Config{Arch: a, Tramp: tr, Calls: 4, Seed: 7}) {
					want := expectedKinds[key]
					if ws, ok := bugWorkloads[key]; ok && !slices.Contains(ws, r.Workload) {
						want = nil
					}
					got := errorKinds(r)
					if v.Name == "rethook-unbalanced" {
						// What follows the wrong sp differs per workload
						// (a return into no code, a fault): the table's
						// finding or a fault must be among them.
						if !r.Has(want[0], "") && !r.Has(check.Fault, "") {
							t.Errorf("%s: want %s or a fault among %s%s", r.Workload, want[0], kindsText(got), findings(r))
						}
						continue
					}
					if v.Name == "rth-alloc-draft" {
						// The unbalanced stack cascades differently per
						// workload; it must at least show sp not restored.
						if !r.Has(check.Stack, "") || !r.Has(check.Clobber, "") {
							t.Errorf("%s: want stack and clobber, got %s%s", r.Workload, kindsText(got), findings(r))
						}
						continue
					}
					want = append(slices.Clone(want), bugExtraKinds[key][r.Workload]...)
					if !slices.Equal(got, sortedKinds(want...)) {
						t.Errorf("%s: error kinds %s, want %s%s", r.Workload, kindsText(got), kindsText(want), findings(r))
					}
				}
			})
		}
	}
}

// TestSaveSets asserts the slots each variant's code fills (the report's
// "slots the asm fills" column) and what the callbacks make of them.
func TestSaveSets(t *testing.T) {
	cases := []struct {
		arch, variant string
		written       []string
		unused        []string // unused-store info findings under the default scenario
	}{
		{"x86_64", "rth-merged", []string{"RBP", "RAX", "RDX"}, nil},
		{"x86_64", "rth-fixed", []string{"RBP", "RAX", "RDX", "RSP"}, []string{"RSP"}},
		{"x86_64", "rth-full-fregs", []string{"RBP", "R9", "R8", "RAX", "RCX", "RDX", "RSI", "RDI", "RSP"},
			[]string{"R9", "R8", "RCX", "RSI", "RDI", "RSP"}},
		{"x86_64", "rth-retval", []string{"RAX", "RDX", "RBP"}, nil},
		{"x86_64", "rth-legacy", nil, nil},
		{"x86_64", "ftrace_caller", []string{"RBP", "R9", "R8", "RAX", "RCX", "RDX", "RSI", "RDI", "ORIG_RAX", "RIP", "CS", "RSP"}, []string{"ORIG_RAX"}},
		{"x86_64", "ftrace_regs_caller", []string{"R15", "R14", "R13", "R12", "RBP", "RBX", "R11", "R10", "R9", "R8", "RAX", "RCX", "RDX", "RSI", "RDI", "ORIG_RAX", "RIP", "CS", "EFLAGS", "RSP", "SS"}, nil},
		{"s390x", "rth-merged", []string{"gprs[2]", "gprs[15]"}, nil},
		{"s390x", "rth-retval", []string{"gprs[2]", "fp"}, nil},
		{"s390x", "ftrace_caller", []string{"psw.addr", "gprs[2]", "gprs[3]", "gprs[4]", "gprs[5]", "gprs[6]", "gprs[7]", "gprs[8]", "gprs[9]", "gprs[10]", "gprs[11]", "gprs[12]", "gprs[13]", "gprs[14]", "gprs[15]", "orig_gpr2", "flags"}, nil},
		{"s390x", "ftrace_regs_caller", []string{"psw.mask", "psw.addr", "gprs[2]", "gprs[3]", "gprs[4]", "gprs[5]", "gprs[6]", "gprs[7]", "gprs[8]", "gprs[9]", "gprs[10]", "gprs[11]", "gprs[12]", "gprs[13]", "gprs[14]", "gprs[15]", "orig_gpr2", "flags"}, nil},
	}
	for _, c := range cases {
		t.Run(c.arch+"/"+c.variant, func(t *testing.T) {
			a, _ := regs.ArchByName(c.arch)
			for _, r := range runCheck(t, check.Config{Arch: a, Tramp: variant(t, a, c.variant), Workloads: []string{"add"}, Calls: 3}) {
				if !slices.Equal(r.Metrics.Written, c.written) {
					t.Errorf("fills %v, want %v", r.Metrics.Written, c.written)
				}
				var unused []string
				for _, f := range r.Findings {
					if f.Kind == check.UnusedStore {
						unused = append(unused, f.Slot)
					}
				}
				if !slices.Equal(unused, c.unused) {
					t.Errorf("unused stores %v, want %v%s", unused, c.unused, findings(r))
				}
				if c.variant == "ftrace_regs_caller" && a.Name == "x86_64" && len(r.Metrics.Written) != 21 {
					t.Errorf("ftrace_regs_caller fills %d slots, want all 21", len(r.Metrics.Written))
				}
			}
		})
	}
}

// TestReturnCallbackReadsAnArgument: a return callback reading an argument
// register's slot gets stale-read under the merged return_to_handler, on
// s390x even though r3 itself survives the trampoline (stmg/lmg keep it).
func TestReturnCallbackReadsAnArgument(t *testing.T) {
	cases := []struct {
		arch, scenario, slot string
		keptReg              string
	}{
		{"x86_64", "ret-arg0", "RDI", ""},
		{"s390x", "ret-arg1", "gprs[3]", "r3"},
	}
	for _, c := range cases {
		t.Run(c.arch, func(t *testing.T) {
			a, _ := regs.ArchByName(c.arch)
			rs := runCheck(t, check.Config{Arch: a, Tramp: variant(t, a, "rth-merged"), Scenario: scenario(t, c.scenario), Workloads: []string{"add"}, Calls: 3})
			r := rs[0]
			if !r.Has(check.StaleRead, c.slot) {
				t.Fatalf("want stale-read of %s%s", c.slot, findings(r))
			}
			if got := errorKinds(r); !slices.Equal(got, []check.Kind{check.StaleRead}) {
				t.Errorf("error kinds %s, want only stale-read%s", kindsText(got), findings(r))
			}
			if c.keptReg != "" {
				kept := false
				for _, f := range r.Findings {
					kept = kept || (f.Kind == check.Volatile && strings.Contains(f.Message, "%"+c.keptReg) && strings.Contains(f.Message, " kept"))
				}
				if !kept {
					t.Errorf("want the info that %%%s is kept across return_to_handler%s", c.keptReg, findings(r))
				}
			}
		})
	}
}

// TestFullRegsUser: the kprobe-style user gets NULL regs under
// ftrace_caller and a full pt_regs under ftrace_regs_caller. riscv64 (the
// modelled v6.11+ eras) has WITH_ARGS only: without
// CONFIG_DYNAMIC_FTRACE_WITH_REGS an ops with FTRACE_OPS_FL_SAVE_REGS
// (kprobe_ftrace_ops, kernel/kprobes.c) is refused with -EINVAL
// (kernel/trace/ftrace.c __register_ftrace_function), so under its only
// entry the user never runs while the entry does, every call.
func TestFullRegsUser(t *testing.T) {
	refused := map[*regs.Arch]bool{regs.RISCV64: true}
	for _, a := range regs.Arches {
		for _, c := range []struct {
			variant string
			full    bool
		}{{archVariant(t, partialCaller, a), false}, {archVariant(t, regsCaller, a), true}} {
			if c.variant == "" {
				continue // the arch has no such entry (see partialCaller, regsCaller)
			}
			t.Run(a.Name+"/"+c.variant, func(t *testing.T) {
				if got := variant(t, a, c.variant).NoFullRegs(); got != refused[a] {
					t.Fatalf("%s NoFullRegs = %v, want %v", c.variant, got, refused[a])
				}
				h := newHarness(t, a, c.variant, "regs")
				calls, err := harness.RandomCalls(h, "add", 3, 1)
				if err != nil {
					t.Fatal(err)
				}
				if err := h.RunChecked(calls); err != nil {
					t.Fatal(err)
				}
				n, entries := 0, 0
				for _, c2 := range calls {
					for _, inv := range c2.Invocations {
						if inv.Role == trampolines.Entry {
							entries++
						}
						for _, full := range inv.FullRegs {
							n++
							if full != c.full {
								t.Errorf("arch_ftrace_get_regs gave full regs = %v, want %v", full, c.full)
							}
						}
					}
				}
				want := 3
				if refused[a] {
					want = 0 // register_ftrace_function(&kprobe_ftrace_ops): -EINVAL
				}
				if entries != 3 {
					t.Errorf("the entry ran %d times, want 3", entries)
				}
				if n != want {
					t.Errorf("kprobe-style user ran %d times, want %d", n, want)
				}
			})
		}
	}
}

// TestExactCosts pins the per-call cost of every variant (add workload,
// default scenario): instructions, loads, stores, stack bytes. A change in a
// .S file or in the counting shows up here. (s390x: an xc of a field with
// itself is a store, no load; see asm.xcClears.)
func TestExactCosts(t *testing.T) {
	type cost struct{ insns, loads, stores, stack float64 }
	want := map[string]cost{
		"x86_64/ftrace_caller":            {33, 13, 14, 176},
		"x86_64/ftrace_caller-fp":         {40, 16, 19, 216},
		"x86_64/ftrace_regs_caller":       {59, 23, 26, 184},
		"x86_64/ftrace_regs_caller-fp":    {66, 26, 31, 224},
		"x86_64/ftrace_caller-v5.10":      {57, 22, 22, 176},
		"x86_64/ftrace_caller-v5.10-fp":   {71, 28, 32, 216},
		"x86_64/rth-legacy":               {10, 2, 3, 32},
		"x86_64/rth-retval":               {13, 3, 6, 32},
		"x86_64/rth-full-fregs":           {20, 3, 12, 176},
		"x86_64/rth-merged":               {13, 3, 6, 176},
		"x86_64/rth-v6.19":                {15, 3, 7, 184},
		"x86_64/rth-fixed":                {16, 3, 7, 184},
		"x86_64/rth-merged-jmp":           {11, 2, 4, 176},
		"x86_64/rth-full-fregs-jmp":       {18, 2, 10, 176},
		"s390x/ftrace_caller":             {27, 6, 10, 376},
		"s390x/ftrace_regs_caller":        {30, 6, 11, 376},
		"s390x/ftrace_caller-oldcpu":      {32, 6, 10, 376},
		"s390x/ftrace_regs_caller-oldcpu": {35, 6, 11, 376},
		"s390x/ftrace_caller-v6.13":       {32, 8, 11, 376},
		"s390x/ftrace_regs_caller-v6.12":  {35, 8, 12, 376},
		"s390x/ftrace_caller-v4":          {15, 4, 4, 352},
		"s390x/rth-legacy":                {9, 1, 2, 160},
		"s390x/rth-retval":                {13, 1, 4, 176},
		"s390x/rth-merged":                {12, 1, 4, 352},
		"s390x/rth-v14-draft":             {13, 1, 4, 352},
		"s390x/rth-alloc-draft":           {12, 1, 4, 512},
		// arm64: an stp/ldp is one access of its two registers.
		"arm64/ftrace_caller":            {39, 12, 12, 144},
		"arm64/ftrace_caller-v6.3":       {34, 10, 11, 144},
		"arm64/ftrace_caller-v6.2":       {32, 9, 11, 144},
		"arm64/ftrace_caller-v6.1":       {32, 9, 10, 352},
		"arm64/ftrace_regs_caller-v6.1":  {41, 9, 19, 352},
		"arm64/ftrace_caller-v5.10":      {38, 11, 10, 352},
		"arm64/ftrace_regs_caller-v5.10": {47, 11, 19, 352},
		"arm64/rth-legacy":               {14, 4, 4, 64},
		"arm64/rth-retval":               {15, 4, 5, 80},
		"arm64/rth-v7-draft":             {18, 4, 8, 112},
		"arm64/rth-merged":               {15, 4, 5, 112},
		// the -pg era (v4.19-v5.4): ftrace_caller reached from the nop'd
		// bl _mcount after the prologue; the
		// trampolines/arm64/mcount_v5.0.S twins are one instruction shorter.
		"arm64/ftrace_caller-v5.0":              {16, 7, 1, 16},
		"arm64/ftrace_caller-v4.19":             {16, 7, 1, 16},
		"arm64/ftrace_caller-v5.0-wrong-parent": {15, 6, 1, 16},
		"arm64/ftrace_caller-v5.0-wrong-fp":     {15, 6, 1, 16},
		// arch_rethook_trampoline and its twins (the skip-callback ones
		// never return: no cost per call, see below).
		"x86_64/rethook":            {41, 17, 20, 184},
		"x86_64/rethook-drop-rbx":   {41, 16, 19, 184},
		"x86_64/rethook-unbalanced": {41, 17, 20, 184},
		"s390x/rethook":             {16, 3, 7, 352},
		"s390x/rethook-drop-r7":     {17, 4, 7, 352},
		"s390x/rethook-unbalanced":  {19, 3, 8, 352},
		"riscv64/ftrace_caller":     {39, 13, 13, 112},
		"riscv64/rth-retval":        {16, 4, 4, 32},
		"riscv64/rth-v6.14":         {9, 0, 4, 80},
		"riscv64/rth-fixed":         {16, 4, 4, 112},
		// v6.16: the two ops loads, the direct_call load and op->func
		// before the call, t1 reloaded
		"riscv64/ftrace_caller-v6.16":          {39, 16, 13, 112},
		"riscv64/ftrace_caller-v6.16-ops-at-8": {3, 2, 0, 0},
		"riscv64/ftrace_caller-v6.16-no-ra":    {51, 26, 13, 112},
		"riscv64/ftrace_caller-v6.16-no-t0":    {38, 15, 13, 112},
		// rvera's riscv64 eras (v6.3-v6.10 entries, rth-legacy, the rethook)
		"riscv64/ftrace_caller-v6.2":       {37, 12, 9, 80},
		"riscv64/ftrace_regs_caller-v6.2":  {90, 37, 33, 296},
		"riscv64/ftrace_caller-v6.7":       {37, 12, 10, 80},
		"riscv64/ftrace_regs_caller-v6.7":  {80, 33, 32, 288},
		"riscv64/ftrace_caller-v6.10":      {33, 12, 11, 288},
		"riscv64/ftrace_regs_caller-v6.10": {76, 32, 32, 288},
		"riscv64/rth-legacy":               {17, 4, 4, 32},
		"riscv64/rth-legacy-no-a1":         {15, 3, 3, 32},
		"riscv64/rethook":                  {66, 29, 30, 288},
		"riscv64/rethook-drop-s1":          {64, 28, 29, 288},
		"riscv64/rethook-unbalanced":       {66, 29, 30, 288},
		"arm64/rethook":                    {50, 16, 17, 336},
		"arm64/rethook-drop-x19":           {50, 16, 17, 336},
		"arm64/rethook-unbalanced":         {50, 16, 17, 336},
	}
	for _, a := range regs.Arches {
		for _, v := range harness.VariantsOf(a, "") {
			key := a.Name + "/" + v.Name
			t.Run(key, func(t *testing.T) {
				if v.NoReturn && v.Role == trampolines.Rethook && strings.Contains(v.Bug, "never called") {
					return // it loops until the instruction limit: no cost per call
				}
				w, ok := want[key]
				if !ok {
					t.Fatalf("no expected cost for %s: add it to the table", key)
				}
				r := runCheck(t, check.Config{Arch: a, Tramp: variant(t, a, v.Name), Workloads: []string{"add"}, Calls: 2})[0]
				m := r.Metrics
				got := cost{m.Instructions, m.Loads, m.Stores, float64(m.StackBytes)}
				if got != w {
					t.Errorf("cost per call %+v, want %+v", got, w)
				}
				if m.LoadBytes != 8*m.Loads && a.Name == "x86_64" {
					t.Errorf("x86-64 loads are all 8 bytes: %v bytes for %v loads", m.LoadBytes, m.Loads)
				}
			})
		}
	}
}

// TestRandomRegisterFiles: 1,000 random register files (canaries in every
// register, random arguments) per (kernel variant, workload) in the
// variant's intended pairing: no error finding.
func TestRandomRegisterFiles(t *testing.T) {
	for _, a := range regs.Arches {
		for _, v := range harness.VariantsOf(a, "") {
			if !v.Kernel || v.Bug != "" {
				continue
			}
			a, v := a, v
			t.Run(a.Name+"/"+v.Name, func(t *testing.T) {
				t.Parallel()
				for _, r := range runCheck(t, check.Config{Arch: a, Tramp: variant(t, a, v.Name), Calls: randomCalls, Seed: 42}) {
					if !r.OK {
						t.Errorf("%s: %d error findings%s", r.Workload, r.Errors(), findings(r))
					}
				}
			})
		}
	}
}

// TestEveryVariantHasAnExpectation keeps the tables complete.
func TestEveryVariantHasAnExpectation(t *testing.T) {
	for _, a := range regs.Arches {
		for _, v := range harness.VariantsOf(a, "") {
			if _, ok := expectedKinds[a.Name+"/"+v.Name]; (v.Bug != "") != ok {
				t.Errorf("%s/%s: a known bug (%q) must have expected findings in the table, and only a known bug", a.Name, v.Name, v.Bug)
			}
			if v.Role == trampolines.Exit && v.ExitABI == "" || v.Role == trampolines.Entry && v.Graph == "" {
				t.Errorf("%s/%s: registry entry lacks its ABI", a.Name, v.Name)
			}
		}
	}
}

// TestClaims: every variant without a known bug fills exactly the slots
// the registry says it does (when it hands a frame to C at all); a
// known-bad variant's claim and reality differ or it is caught otherwise.
func TestClaims(t *testing.T) {
	for _, a := range regs.Arches {
		for _, v := range harness.VariantsOf(a, "") {
			t.Run(a.Name+"/"+v.Name, func(t *testing.T) {
				if v.Name == "ftrace_caller-v5.10" || v.Name == "ftrace_caller-v5.10-fp" {
					return // regs = NULL: the callbacks get no frame to look at
				}
				rs := runCheck(t, check.Config{Arch: a, Tramp: variant(t, a, v.Name), Workloads: append([]string{"add"}, bugWorkloads[a.Name+"/"+v.Name]...), Calls: 2})
				r, ok := rs[0], true
				for _, x := range rs {
					ok = ok && x.OK
				}
				same := slices.Equal(sortedStrings(r.Metrics.Written), sortedStrings(v.Claims))
				if v.Bug == "" && !same {
					t.Errorf("fills %v, the registry claims %v", r.Metrics.Written, v.Claims)
				}
				if v.Bug != "" && same && ok {
					t.Errorf("known bug %q shows neither in the save set nor in the findings", v.Bug)
				}
			})
		}
	}
}

func sortedStrings(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

// TestDirectCalls: a callback that sets a direct trampoline
// (arch_ftrace_set_direct_caller) under ftrace_regs_caller sends every
// traced call through it (x86-64: ORIG_RAX; s390x: orig_gpr2), with no
// finding.
func TestDirectCalls(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			e := variant(t, a, archVariant(t, directCaller, a))
			x, err := harness.Pair(a, e)
			if err != nil {
				t.Fatal(err)
			}
			r := runCheck(t, check.Config{Arch: a, Tramp: e, Partner: &x, Scenario: scenario(t, "direct"), Workloads: []string{"add", "six"}, Calls: 5})
			for _, res := range r {
				if !res.OK {
					t.Errorf("%s: %s", res.Workload, findings(res))
				}
			}
			runDirect(t, newHarness(t, a, archVariant(t, directCaller, a), "direct"))
		})
	}
}

// directOpsCases are, per arch, the entries the direct-ops user set
// (register_ftrace_direct's ops in each site's CALL_OPS literal) is
// checked on and whether each jumps to ops->direct_call before calling
// the kernel (CALL_OPS and DIRECT_CALLS: arm64 v6.4+, riscv64 v6.16) or
// takes call_direct_funcs' fregs direct caller (riscv64 v6.11-v6.15,
// no CALL_OPS); nil: the arch keeps no CALL_OPS literal (x86-64, s390x).
var directOpsCases = map[string]map[string]bool{
	"x86_64":  nil,
	"s390x":   nil,
	"arm64":   {"ftrace_caller": true},
	"riscv64": {"ftrace_caller-v6.16": true, "ftrace_caller": false},
}

// TestDirectOps: with a direct call the only user of every traced
// function, each traced call leaves the entry into the direct trampoline
// and comes back with the function's result, with no finding; a CALL_OPS
// entry gets there without calling the kernel. On an arch without the
// literal the user set is not applicable (a note) and registers nothing.
func TestDirectOps(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			cases, ok := directOpsCases[a.Name]
			if !ok {
				t.Fatalf("no direct-ops case for %s", a.Name)
			}
			if cases == nil {
				e := variant(t, a, archVariant(t, directCaller, a))
				if n := scenario(t, "direct-ops").NotApplicable(e); len(n) != 1 || !strings.Contains(n[0], "CALL_OPS") {
					t.Errorf("%s: notes %q, want the CALL_OPS one", e.Name, n)
				}
				h := newHarness(t, a, e.Name, "direct-ops")
				if ops := h.K.Ftrace.Ops(); len(ops) != 0 {
					t.Errorf("%d ops registered, want none", len(ops))
				}
				return
			}
			if a.Name == "riscv64" {
				// not vacuous: the ops read at the wrong offset is caught
				e := variant(t, a, "ftrace_caller-v6.16-ops-at-8")
				for _, res := range runCheck(t, check.Config{Arch: a, Tramp: e, Scenario: scenario(t, "direct-ops"), Workloads: []string{"add"}, Calls: 2}) {
					if !res.Has(check.Fault, "") {
						t.Errorf("ops-at-8 under direct-ops: no fault%s", findings(res))
					}
				}
			}
			for name, early := range cases {
				e := variant(t, a, name)
				if n := scenario(t, "direct-ops").NotApplicable(e); len(n) != 0 {
					t.Errorf("%s: notes %q", name, n)
				}
				x, err := harness.Pair(a, e)
				if err != nil {
					t.Fatal(err)
				}
				for _, res := range runCheck(t, check.Config{Arch: a, Tramp: e, Partner: &x, Scenario: scenario(t, "direct-ops"), Workloads: []string{"add", "six"}, Calls: 5}) {
					if !res.OK {
						t.Errorf("%s %s: %s", name, res.Workload, findings(res))
					}
				}
				h := newHarness(t, a, name, "direct-ops")
				for _, c := range runDirect(t, h) {
					if !c.Invocations[0].DirectOps {
						t.Errorf("%s: the entry invocation was not marked as the direct call's", name)
					}
				}
				if want := map[bool]uint64{true: 0, false: 7}[early]; h.Dispatches != want {
					t.Errorf("%s: %d calls into the kernel, want %d (jumps to ops->direct_call at once: %v)", name, h.Dispatches, want, early)
				}
			}
		})
	}
}

// runDirect runs 7 checked calls of add through h, whose user set sends
// every traced call through the direct trampoline: each must get there
// (the entry invocation leaves into it) and return add's result.
func runDirect(t *testing.T, h *harness.Harness) []*harness.Call {
	t.Helper()
	calls, err := harness.RandomCalls(h, "add", 7, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.RunChecked(calls); err != nil {
		t.Fatal(err)
	}
	if n := h.M.HostCalls(harness.HostDirectHook); n != 7 {
		t.Errorf("%s: the direct trampoline ran %d times, want 7", h.Setup.Entry.Name, n)
	}
	for _, c := range calls {
		if c.Results[0] != c.Want[0] {
			t.Errorf("%s: add returned %#x, want %#x", h.Setup.Entry.Name, c.Results[0], c.Want[0])
		}
		if inv := c.Invocations[0]; !inv.Direct || inv.LeavePC != inv.WantPC {
			t.Errorf("%s: entry invocation direct=%v left to %s, want the direct trampoline", h.Setup.Entry.Name, inv.Direct, h.Describe(inv.LeavePC))
		}
	}
	return calls
}
