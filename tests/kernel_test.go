package tests

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"trampemu/check"
	"trampemu/harness"
	"trampemu/kernel"
	"trampemu/regs"
	"trampemu/trampolines"
)

// kernelFile is one file of testdata/kernel: written for trampemu in the
// shape of an era's arch/x86/kernel/ftrace_64.S or arch/s390/kernel/mcount.S
// (#include lines, .macro save_mcount_regs added= / ftrace_regs_entry,
// #ifdef CONFIG_* branches, both roles in one file), with the model the
// tool must find and the error kinds each trampoline must get.
type kernelFile struct {
	arch  *regs.Arch
	file  string
	model string
	// errs per symbol, the kinds of its error and known-bug findings; a
	// symbol not listed must not be checked at all.
	errs map[string][]check.Kind
}

// knownBugs are, per "file:symbol" of kernelFiles, which of its errs are
// the model's known kernel bugs (kernel.KnownBug): shown, not failed.
var knownBugs = map[string][]check.Kind{"s390x_v6.5.S:ftrace_regs_caller": {check.Control},
	"s390x_mixed_old_graph.S:ftrace_regs_caller": {check.Control},
	// the ra-based call site's parent word (kernel/riscv64_bugs.go)
	"riscv64_v6.2.S:ftrace_caller":      {check.Stack},
	"riscv64_v6.2.S:ftrace_regs_caller": {check.Stack, check.WrongValue}}

var ok = []check.Kind(nil)

var kernelFiles = []kernelFile{
	{regs.X86_64, "x86_64_v5.10.S", "v4.19-v5.10", map[string][]check.Kind{"ftrace_caller": ok, "ftrace_regs_caller": ok, "ftrace_graph_caller": ok, "return_to_handler": ok}},
	{regs.X86_64, "x86_64_v5.15.S", "v5.11-v5.15", map[string][]check.Kind{"ftrace_caller": ok, "ftrace_regs_caller": ok, "ftrace_graph_caller": ok, "return_to_handler": ok}},
	{regs.X86_64, "x86_64_v6.1.S", "v5.16-v6.4", map[string][]check.Kind{"ftrace_caller": ok, "ftrace_regs_caller": ok, "return_to_handler": ok}},
	{regs.X86_64, "x86_64_v6.13.S", "v6.5-v6.13", map[string][]check.Kind{"ftrace_caller": ok, "ftrace_regs_caller": ok, "return_to_handler": ok}},
	{regs.X86_64, "x86_64_v6.14.S", "v6.14+", map[string][]check.Kind{"ftrace_caller": ok, "ftrace_regs_caller": ok, "return_to_handler": ok}},
	// v6.19's return_to_handler stores its frame base as RSP.
	{regs.X86_64, "x86_64_v6.19.S", "v6.14+", map[string][]check.Kind{"ftrace_caller": ok, "ftrace_regs_caller": ok, "return_to_handler": {check.WrongValue}}},
	// ftrace_regs_caller is set to ftrace_caller: checked once.
	// prepare_ftrace_return(parent, ip) before v5.2, (ra, sp, ip) from v5.2.
	{regs.S390X, "s390x_v4.19.S", "v4.19-v5.1", map[string][]check.Kind{"ftrace_caller": ok, "return_to_handler": ok}},
	{regs.S390X, "s390x_v5.10.S", "v5.2-v5.13", map[string][]check.Kind{"ftrace_caller": ok, "return_to_handler": ok}},
	// v5.14-v6.12 ftrace_regs_caller: the error injection's skipped call
	// leaves its shadow-stack frame behind, as those kernels do
	// (ftrace_graph_caller runs after the kprobe; docs/orc.md).
	{regs.S390X, "s390x_v6.5.S", "v6.5-v6.12", map[string][]check.Kind{"ftrace_caller": ok, "ftrace_regs_caller": {check.Control}, "return_to_handler": ok, "arch_rethook_trampoline": ok}},
	{regs.S390X, "s390x_v6.13.S", "v6.13", map[string][]check.Kind{"ftrace_caller": ok, "ftrace_regs_caller": ok, "return_to_handler": ok, "arch_rethook_trampoline": ok}},
	{regs.S390X, "s390x_v6.14.S", "v6.14+", map[string][]check.Kind{"ftrace_caller": ok, "ftrace_regs_caller": ok, "return_to_handler": ok, "arch_rethook_trampoline": ok}},
	// arm64: pt_regs entries with ftrace_graph_caller (v5.10) and with
	// ftrace_graph_func (v6.1), the ftrace_regs entry without (v6.2) and
	// with CALL_OPS and direct calls (v6.13, v6.14); each era's
	// return_to_handler. The -pg code of each file's #else is not built.
	// Before v5.5 the -pg code is the file (v4.19: prepare_ftrace_return(&lr,
	// pc, fp); v5.0: (pc, &lr, fp)), called from the -pg call site.
	{regs.ARM64, "arm64_v4.19.S", "v4.19-v4.20", map[string][]check.Kind{"ftrace_caller": ok, "ftrace_graph_caller": ok, "return_to_handler": ok}},
	{regs.ARM64, "arm64_v5.0.S", "v5.0-v5.4", map[string][]check.Kind{"ftrace_caller": ok, "ftrace_graph_caller": ok, "return_to_handler": ok}},
	{regs.ARM64, "arm64_v5.10.S", "v5.5-v5.19", map[string][]check.Kind{"ftrace_caller": ok, "ftrace_regs_caller": ok, "ftrace_graph_caller": ok, "return_to_handler": ok}},
	{regs.ARM64, "arm64_v6.1.S", "v6.0-v6.1", map[string][]check.Kind{"ftrace_caller": ok, "ftrace_regs_caller": ok, "return_to_handler": ok}},
	{regs.ARM64, "arm64_v6.2.S", "v6.2", map[string][]check.Kind{"ftrace_caller": ok, "return_to_handler": ok}},
	{regs.ARM64, "arm64_v6.13.S", "v6.5-v6.13", map[string][]check.Kind{"ftrace_caller": ok, "return_to_handler": ok}},
	{regs.ARM64, "arm64_v6.14.S", "v6.14+", map[string][]check.Kind{"ftrace_caller": ok, "return_to_handler": ok}},
	// riscv64 v5.11-v6.2, the 16-byte ra-based call site: both entries'
	// sp 8 bytes off 16-byte alignment while they stand on the parent word,
	// ftrace_regs_caller's PT_EPC below sp and its lowered regs->sp, all
	// known kernel bugs of the model; no live patch in the era.
	{regs.RISCV64, "riscv64_v6.2.S", "v5.11-v6.2", map[string][]check.Kind{"ftrace_caller": {check.Stack},
		"ftrace_regs_caller": {check.Stack, check.WrongValue}, "return_to_handler": ok}},
	// Mixed eras, as stable trees backport them (Debian's 6.12.117 s390x
	// mcount.S is s390x_mixed_old_graph.S's shape): the model is composed
	// of the file's properties and every trampoline passes.
	{regs.X86_64, "x86_64_mixed_old_graph.S", "v5.11-v5.15 entry, v6.14+ exit", map[string][]check.Kind{"ftrace_caller": ok, "ftrace_regs_caller": ok, "ftrace_graph_caller": ok, "return_to_handler": ok}},
	{regs.X86_64, "x86_64_mixed_new_entry.S", "v5.16-v6.4", map[string][]check.Kind{"ftrace_caller": ok, "ftrace_regs_caller": ok, "return_to_handler": ok}},
	// its v6.5-v6.12 entry has that era's error-injection shadow-stack leak
	{regs.S390X, "s390x_mixed_old_graph.S", "v6.5-v6.12 entry, v6.14+ exit", map[string][]check.Kind{"ftrace_caller": ok, "ftrace_regs_caller": {check.Control}, "return_to_handler": ok, "arch_rethook_trampoline": ok}},
	{regs.S390X, "s390x_mixed_new_entry.S", "v6.14+ entry, v5.14-v6.4 exit", map[string][]check.Kind{"ftrace_caller": ok, "ftrace_regs_caller": ok, "return_to_handler": ok, "arch_rethook_trampoline": ok}},
	{regs.ARM64, "arm64_mixed_old_graph.S", "v5.5-v5.19 entry, v6.14+ exit", map[string][]check.Kind{"ftrace_caller": ok, "ftrace_regs_caller": ok, "ftrace_graph_caller": ok, "return_to_handler": ok}},
	{regs.ARM64, "arm64_mixed_new_entry.S", "v6.2 entry, v6.5-v6.13 exit", map[string][]check.Kind{"ftrace_caller": ok, "return_to_handler": ok}},
	// No vacuous pass: the graph path never calls prepare_ftrace_return, so
	// the entry checks say so and return_to_handler never runs.
	{regs.X86_64, "x86_64_graph_unwired.S", "v4.19-v5.10", map[string][]check.Kind{"ftrace_caller": {check.Control},
		"ftrace_regs_caller": {check.Control}, "ftrace_graph_caller": {check.Control}, "return_to_handler": {check.Control}}},
	// The graph entry path hands prepare_ftrace_return a wrong ip.
	{regs.X86_64, "x86_64_graph_wrong_ip.S", "v4.19-v5.10", map[string][]check.Kind{"ftrace_caller": {check.WrongValue},
		"ftrace_regs_caller": {check.WrongValue}, "ftrace_graph_caller": {check.WrongValue}, "return_to_handler": ok}},
	{regs.X86_64, "x86_64_graph_skipped.S", "v4.19-v5.10", map[string][]check.Kind{"ftrace_caller": {check.Control},
		"ftrace_regs_caller": ok, "ftrace_graph_caller": {check.Control}, "return_to_handler": {check.Control}}},
	{regs.S390X, "s390x_graph_unwired.S", "v5.2-v5.13", map[string][]check.Kind{"ftrace_caller": {check.Control}, "return_to_handler": {check.Control}}},
}

// onlyWorkloads are, per "file:symbol" of kernelFiles, the workloads its
// errs apply to; the others must be clean (a symbol not in it: every
// workload).
var onlyWorkloads = map[string][]string{"s390x_v6.5.S:ftrace_regs_caller": {"fei_target"}, "s390x_mixed_old_graph.S:ftrace_regs_caller": {"fei_target"}}

// scenarioWorkloads are the workloads the default scenario's users act on:
// add (function, graph and kprobe-style users), klp_target (the live
// patch) and fei_target (the error injection), so that a user a file's
// era cannot have is caught being installed.
var scenarioWorkloads = []string{"add", "klp_target", "fei_target"}

// TestKernelFiles checks every trampoline of each whole file, paired with
// the file's own trampoline of the other role, by the model found from the
// file, on every workload a scenario user acts on.
func TestKernelFiles(t *testing.T) {
	for _, c := range kernelFiles {
		t.Run(c.arch.Name+"/"+c.file, func(t *testing.T) {
			f, err := harness.LoadFile(c.arch, filepath.Join("testdata/kernel", c.file), harness.FileOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if f.Choice.Model.Name != c.model {
				t.Errorf("model %s (%s), want %s", f.Choice.Model.Name, f.Choice.Reason, c.model)
			}
			var got []string
			for _, tr := range f.Tramps {
				got = append(got, tr.Trampoline())
				want, listed := c.errs[tr.Trampoline()]
				if !listed {
					t.Errorf("%s checked, want it not checked", tr.Trampoline())
					continue
				}
				if tr.Partner == nil || !strings.HasPrefix(tr.Partner.Name, c.file+":") {
					t.Errorf("%s is not paired with the file's own trampoline", tr.Name)
				}
				rs, err := check.Run(check.Config{Arch: c.arch, Tramp: tr, Workloads: scenarioWorkloads, Calls: 2})
				if err != nil {
					t.Fatalf("%s: %v", tr.Name, err)
				}
				if len(rs) != len(scenarioWorkloads) {
					t.Fatalf("%s: %d results, want one per workload %v", tr.Name, len(rs), scenarioWorkloads)
				}
				for _, r := range rs {
					if r.Kernel == nil || r.Kernel.Model != c.model {
						t.Errorf("%s: result kernel %+v, want model %s", tr.Name, r.Kernel, c.model)
					}
					want, known := want, knownBugs[c.file+":"+tr.Trampoline()]
					if ws, ok := onlyWorkloads[c.file+":"+tr.Trampoline()]; ok && !slices.Contains(ws, r.Workload) {
						want, known = nil, nil
					}
					if g := caughtKinds(r); !slices.Equal(g, sortedKinds(want...)) {
						t.Errorf("%s / %s: error and known kinds %s, want %s%s", tr.Name, r.Workload, kindsText(g), kindsText(want), findings(r))
					}
					if g := knownKinds(r); !slices.Equal(g, sortedKinds(known...)) {
						t.Errorf("%s / %s: known kernel bugs %s, want %s%s", tr.Name, r.Workload, kindsText(g), kindsText(known), findings(r))
					}
					if r.OK != (len(want) == len(known)) {
						t.Errorf("%s / %s: ok %v with errors %s, known %s", tr.Name, r.Workload, r.OK, kindsText(errorKinds(r)), kindsText(knownKinds(r)))
					}
				}
			}
			if len(got) != len(c.errs) {
				t.Errorf("checked %v, want %d trampolines", got, len(c.errs))
			}
		})
	}
}

// TestKernelFileSameAsVariant: a file's trampoline that is the code of a
// registry variant gets that variant's verdict and cost.
func TestKernelFileSameAsVariant(t *testing.T) {
	cases := []struct {
		arch          *regs.Arch
		file, variant string
		role          trampolines.Role
	}{
		{regs.X86_64, "x86_64_v6.13.S", "rth-retval", trampolines.Exit},
		{regs.X86_64, "x86_64_v5.10.S", "rth-legacy", trampolines.Exit},
		{regs.S390X, "s390x_v6.14.S", "rth-merged", trampolines.Exit},
		{regs.S390X, "s390x_v6.5.S", "rth-retval", trampolines.Exit},
		{regs.S390X, "s390x_v6.13.S", "rth-retval", trampolines.Exit},
		// the v6.16-shaped entry (its clang pair's fixed twin, here a gcc
		// build) and the v6.16+ model's registry partner
		{regs.RISCV64, "../broken/riscv64/riscv64_entry_clang_fastcc_ok.S", "ftrace_caller-v6.16", trampolines.Entry},
	}
	for _, c := range cases {
		t.Run(c.arch.Name+"/"+c.variant, func(t *testing.T) {
			tr, err := harness.FromFile(c.arch, filepath.Join("testdata/kernel", c.file), c.role)
			if err != nil {
				t.Fatal(err)
			}
			v := variant(t, c.arch, c.variant)
			run := func(tr harness.Tramp) check.Result {
				rs, err := check.Run(check.Config{Arch: c.arch, Tramp: tr, Workloads: []string{"add"}, Calls: 2})
				if err != nil {
					t.Fatal(err)
				}
				return rs[0]
			}
			got, want := run(tr), run(v)
			if got.OK != want.OK || got.Metrics.Instructions != want.Metrics.Instructions || got.Metrics.Stores != want.Metrics.Stores {
				t.Errorf("file: ok=%v %v insns %v stores; variant: ok=%v %v insns %v stores%s",
					got.OK, got.Metrics.Instructions, got.Metrics.Stores, want.OK, want.Metrics.Instructions, want.Metrics.Stores, findings(got))
			}
		})
	}
}

// TestKernelFileOptions: CONFIG options that compile a trampoline out say
// so, --kernel chooses the model, and a file that fits no model lists them.
func TestKernelFileOptions(t *testing.T) {
	cases := []struct {
		arch *regs.Arch
		file string
		opt  harness.FileOptions
		want []string // in the error; nil: no error
	}{
		{regs.X86_64, "x86_64_v6.13.S", harness.FileOptions{Options: kernel.Options{Undef: []string{"CONFIG_DYNAMIC_FTRACE"}}},
			[]string{"defines no entry trampoline", "ftrace_caller (CONFIG_DYNAMIC_FTRACE unset?)"}},
		// arch_rethook_trampoline is outside the CONFIG_FUNCTION_TRACER
		// block (arch/s390/kernel/mcount.S v6.2+): CONFIG_RETHOOK goes too.
		{regs.S390X, "s390x_v6.14.S", harness.FileOptions{Options: kernel.Options{Undef: []string{"CONFIG_FUNCTION_TRACER", "CONFIG_RETHOOK"}}},
			[]string{"defines no trampoline", "return_to_handler (CONFIG_FUNCTION_GRAPH_TRACER unset?)"}},
		{regs.X86_64, "x86_64_v6.13.S", harness.FileOptions{Options: kernel.Options{Define: []string{"bad name"}}},
			[]string{"-D \"bad name\""}},
		{regs.X86_64, "x86_64_no_model.S", harness.FileOptions{}, []string{"fits no x86_64 kernel model", "v6.14+", "v4.19-v5.10", "--kernel"}},
		{regs.S390X, "s390x_no_model.S", harness.FileOptions{}, []string{"fits no s390x kernel model", "v6.14+", "v4.19-v5.1", "v5.2-v5.13"}},
		{regs.ARM64, "arm64_no_model.S", harness.FileOptions{}, []string{"fits no arm64 kernel model", "v6.14+", "v5.5-v5.19", "--kernel"}},
	}
	for _, c := range cases {
		t.Run(c.arch.Name+"/"+c.file, func(t *testing.T) {
			role := "entry"
			if len(c.opt.Options.Undef) > 0 && c.arch == regs.S390X {
				role = ""
			}
			f, err := harness.LoadFile(c.arch, filepath.Join("testdata/kernel", c.file), c.opt)
			if err == nil {
				_, err = f.Role(roleOf(role))
			}
			if err == nil {
				t.Fatal("want an error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
	// --kernel: the v6.14 file judged as v6.13 makes its return_to_handler
	// a fgraph_ret_regs one, and the check finds that wrong.
	for _, a := range regs.Arches {
		file := map[string]string{"x86_64": "x86_64_v6.14.S", "s390x": "s390x_v6.14.S", "arm64": "arm64_v6.14.S", "riscv64": "riscv64_v6.14.S"}[a.Name]
		ch, err := kernel.Choose(a.Name, kernel.Version{Major: 6, Minor: 13}, "--kernel")
		if err != nil {
			t.Fatal(err)
		}
		tr, err := loadRole(a, file, harness.FileOptions{Kernel: &ch}, "exit")
		if err != nil {
			t.Fatal(err)
		}
		rs, err := check.Run(check.Config{Arch: a, Tramp: tr, Workloads: []string{"add"}, Calls: 2})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"x86_64": "v6.5-v6.13", "s390x": "v6.13", "arm64": "v6.5-v6.13", "riscv64": "v6.11-v6.13"}[a.Name]
		if rs[0].Kernel.Model != want || rs[0].OK {
			t.Errorf("%s %s as v6.13: model %s ok=%v, want %s with errors", a.Name, file, rs[0].Kernel.Model, rs[0].OK, want)
		}
	}
}

// TestKernelFileConfigChangesCode: -D / -U reach the file's #ifdef branches:
// x86-64 CONFIG_FRAME_POINTER (save_mcount_regs builds two fake frames)
// and s390x without CONFIG_HAVE_MARCH_Z196_FEATURES (the pre-z196 code)
// cost more instructions and still pass.
func TestKernelFileConfigChangesCode(t *testing.T) {
	cases := []struct {
		arch *regs.Arch
		file string
		opt  kernel.Options
	}{
		{regs.X86_64, "x86_64_v6.14.S", kernel.Options{Define: []string{"CONFIG_FRAME_POINTER"}}},
		{regs.S390X, "s390x_v6.14.S", kernel.Options{Undef: []string{"CONFIG_HAVE_MARCH_Z196_FEATURES"}}},
	}
	for _, c := range cases {
		cost := func(o kernel.Options) check.Result {
			tr, err := loadRole(c.arch, c.file, harness.FileOptions{Options: o}, "entry")
			if err != nil {
				t.Fatal(err)
			}
			rs, err := check.Run(check.Config{Arch: c.arch, Tramp: tr, Workloads: []string{"add"}, Calls: 2})
			if err != nil {
				t.Fatal(err)
			}
			return rs[0]
		}
		base, changed := cost(kernel.Options{}), cost(c.opt)
		if !changed.OK || changed.Metrics.Instructions <= base.Metrics.Instructions {
			t.Errorf("%s %s %+v: ok=%v, %v instructions (default %v): want ok and more%s", c.arch.Name, c.file, c.opt,
				changed.OK, changed.Metrics.Instructions, base.Metrics.Instructions, findings(changed))
		}
	}
}

// TestKernelFileUsersFromModel: a file's trampoline answers which scenario
// users it can have from its kernel model (a file has no registry
// variant): x86-64 v5.10 ftrace_caller passes regs = NULL (no ip-modifying
// users, no full regs), its ftrace_regs_caller takes them; s390x v4.19
// ftrace_caller is also ftrace_regs_caller (ip-modifying users yes) but
// predates kprobes on ftrace (no full regs); v6.14 files take every user.
func TestKernelFileUsersFromModel(t *testing.T) {
	cases := []struct {
		arch                 *regs.Arch
		file, symbol         string
		noIPModify, noFullRg bool
	}{
		{regs.X86_64, "x86_64_v5.10.S", "ftrace_caller", true, false},
		{regs.X86_64, "x86_64_v5.10.S", "ftrace_regs_caller", false, false},
		{regs.X86_64, "x86_64_v6.14.S", "ftrace_caller", false, false},
		{regs.S390X, "s390x_v4.19.S", "ftrace_caller", false, true},
		{regs.S390X, "s390x_v6.14.S", "ftrace_caller", false, false},
	}
	for _, c := range cases {
		f, err := harness.LoadFile(c.arch, filepath.Join("testdata/kernel", c.file), harness.FileOptions{})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, tr := range f.Tramps {
			if tr.Symbol != c.symbol || tr.Measure != "" {
				continue
			}
			found = true
			if tr.Variant != nil {
				t.Errorf("%s:%s has a registry variant", c.file, c.symbol)
			}
			if tr.NoIPModify() != c.noIPModify || tr.NoFullRegs() != c.noFullRg {
				t.Errorf("%s:%s NoIPModify %v NoFullRegs %v, want %v %v", c.file, c.symbol,
					tr.NoIPModify(), tr.NoFullRegs(), c.noIPModify, c.noFullRg)
			}
		}
		if !found {
			t.Errorf("%s defines no %s", c.file, c.symbol)
		}
	}
}

// TestGraphEntryABI: each era's ftrace_graph_caller is decoded in its own
// prepare_ftrace_return form, and a graph entry that hands the graph
// tracer a function other than the traced call site is a wrong-value:
// s390x files judged in the other era's form ((parent, ip) before v5.2,
// (ra, sp, ip) from v5.2, chosen with --kernel) must be caught, and in
// their own form pass; x86-64 has one form, so its wrong case is a file
// whose ftrace_graph_caller passes a wrong ip.
func TestGraphEntryABI(t *testing.T) {
	cases := []struct {
		arch   *regs.Arch
		file   string
		kernel string // --kernel; "" detects
		wrong  bool
	}{
		{regs.S390X, "s390x_v4.19.S", "", false},
		{regs.S390X, "s390x_v5.10.S", "", false},
		{regs.S390X, "s390x_v4.19.S", "v5.10", true},
		{regs.S390X, "s390x_v5.10.S", "v4.19", true},
		{regs.X86_64, "x86_64_v5.10.S", "", false},
		{regs.X86_64, "x86_64_graph_wrong_ip.S", "", true},
	}
	for _, c := range cases {
		t.Run(c.arch.Name+"/"+c.file+"/"+c.kernel, func(t *testing.T) {
			var o harness.FileOptions
			if c.kernel != "" {
				v, err := kernel.ParseVersion(c.kernel)
				if err != nil {
					t.Fatal(err)
				}
				ch, err := kernel.Choose(c.arch.Name, v, "--kernel")
				if err != nil {
					t.Fatal(err)
				}
				o.Kernel = &ch
			}
			tr, err := loadRole(c.arch, c.file, o, "entry")
			if err != nil {
				t.Fatal(err)
			}
			rs, err := check.Run(check.Config{Arch: c.arch, Tramp: tr, Workloads: []string{"add"}, Calls: 2})
			if err != nil {
				t.Fatal(err)
			}
			got := slices.Contains(errorKinds(rs[0]), check.WrongValue)
			if got != c.wrong {
				t.Errorf("wrong-value %v, want %v%s", got, c.wrong, findings(rs[0]))
			}
		})
	}
}
