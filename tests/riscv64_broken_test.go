package tests

import (
	"os"
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

// riscv64Broken are the riscv64 fixes as broken/fixed pairs
// (testdata/broken/riscv64, written for trampemu; docs/riscv64.md "The
// fixes as broken/fixed pairs"): each file's first comment says what it
// must be caught as, or that it must pass.
var riscv64Broken = []brokenCase{
	// 67a5ba8f742f: the v6.14 block at pt_regs indices writes a0/a1 at
	// and above the entry sp, and ftrace_return_to_handler reads an
	// unwritten s0 and stops at "Bad frame pointer".
	// Its record at s0 - 16 also holds an unwritten ra (backchain).
	{"riscv64_rth_pt_regs_idx.S", []check.Kind{check.Stack, check.StaleRead, check.Fault, check.Backchain}, nil},
	// the fix itself: no frame record at s0-16 (the unwritten a7 slot),
	// the v6.14+ model's known kernel bug (riscv64Known)
	{"riscv64_rth_fregs_fix.S", []check.Kind{check.Backchain}, nil},
	{"riscv64_rth_fregs_record_ok.S", nil, nil},
	// 7caa9765465f: regs->sp of the v6.3-v6.10 ftrace_regs_caller, a known
	// kernel bug of the v6.8-v6.10 model
	{"riscv64_entry_regs_lowered_sp.S", []check.Kind{check.WrongValue}, nil},
	{"riscv64_entry_regs_sp_ok.S", nil, nil},
	// f8693f6dffcd ("riscv: ftrace: support fastcc in Clang for
	// WITH_ARGS", v6.16): built with clang (riscv64Clang), the
	// v6.11-v6.15 entry hands the traced function the t2-t6 a callback
	// left, where clang's fastcc passes arguments; the v6.16 entry saves
	// and reloads them
	{"riscv64_entry_clang_fastcc.S", []check.Kind{check.Clobber}, nil},
	{"riscv64_entry_clang_fastcc_ok.S", nil, nil},
}

// riscv64Clang are the pairs checked as a clang build (-D
// CONFIG_CC_IS_CLANG -U CONFIG_CC_IS_GCC), with the registers the broken
// one must be caught clobbering: each is also checked as the models' gcc
// build, where it must pass.
var riscv64Clang = map[string][]string{
	"riscv64_entry_clang_fastcc.S":    {"t2", "t3", "t4", "t5", "t6"},
	"riscv64_entry_clang_fastcc_ok.S": nil,
}

// riscv64Known are which of riscv64Broken's kinds are known kernel bugs
// of the file's model (kernel/riscv64_bugs.go): reported, not failed.
// riscv64_rth_pt_regs_idx.S's backchain is none: its s0 is not the fix's
// (no "addi s0, sp, FREGS_SIZE_ON_STACK").
var riscv64Known = map[string][]check.Kind{"riscv64_rth_fregs_fix.S": {check.Backchain},
	"riscv64_entry_regs_lowered_sp.S": {check.WrongValue}}

// TestRISCV64BrokenFiles: each riscv64 pair is caught with exactly its
// kinds on every workload, through the --file path; the fixed twins pass.
func TestRISCV64BrokenFiles(t *testing.T) {
	dir := "testdata/broken/riscv64"
	files, _ := filepath.Glob(filepath.Join(dir, "*.S"))
	if len(files) != len(riscv64Broken) {
		t.Errorf("%s has %d files, the table %d: keep them in step", dir, len(files), len(riscv64Broken))
	}
	for _, c := range riscv64Broken {
		c := c
		t.Run(c.file, func(t *testing.T) {
			t.Parallel()
			text, err := os.ReadFile(filepath.Join(dir, c.file))
			if err != nil {
				t.Fatal(err)
			}
			head, _, _ := strings.Cut(string(text), "*/")
			head = strings.Join(strings.Fields(head), " ")
			want := "must pass with no error finding"
			if len(c.want) > 0 {
				want = "Must be caught as: " + string(c.want[0])
			}
			if !strings.Contains(head, want) {
				t.Errorf("the comment does not say %q", want)
			}
			role := trampolines.Exit
			if strings.Contains(c.file, "_entry_") {
				role = trampolines.Entry
			}
			a := regs.RISCV64
			regsWant, clang := riscv64Clang[c.file]
			var o harness.FileOptions
			if clang {
				o.Options = kernel.Options{Define: []string{"CONFIG_CC_IS_CLANG"}, Undef: []string{"CONFIG_CC_IS_GCC"}}
				if !strings.Contains(head, "CONFIG_CC_IS_CLANG") {
					t.Errorf("the comment does not say it is checked with CONFIG_CC_IS_CLANG")
				}
				gcc := riscv64FileTramp(t, filepath.Join(dir, c.file), role, harness.FileOptions{})
				for _, r := range runCheck(t, check.Config{Arch: a, Tramp: gcc, Workloads: brokenWorkloads(a), Calls: 3, Seed: 3}) {
					if got := caughtKinds(r); len(got) > 0 {
						t.Errorf("%s built with gcc: error kinds %s, want none%s", r.Workload, kindsText(got), findings(r))
					}
				}
			}
			tr := riscv64FileTramp(t, filepath.Join(dir, c.file), role, o)
			for _, r := range runCheck(t, check.Config{Arch: a, Tramp: tr, Workloads: brokenWorkloads(a), Calls: 3, Seed: 3}) {
				if got := caughtKinds(r); !slices.Equal(got, sortedKinds(c.want...)) {
					t.Errorf("%s: error and known kinds %s, want %s%s", r.Workload, kindsText(got), kindsText(c.want), findings(r))
				}
				var clobbered []string
				for _, f := range r.Findings {
					if f.Kind == check.Clobber {
						clobbered = append(clobbered, f.Register)
					}
				}
				if len(regsWant) > 0 && !slices.Equal(sortedStrings(clobbered), regsWant) {
					t.Errorf("%s: clobbers %v, want %v%s", r.Workload, clobbered, regsWant, findings(r))
				}
				if got, want := knownKinds(r), riscv64Known[c.file]; !slices.Equal(got, sortedKinds(want...)) {
					t.Errorf("%s: known kernel bugs %s, want %s%s", r.Workload, kindsText(got), kindsText(want), findings(r))
				}
			}
		})
	}
}

// riscv64FileTramp loads the trampoline of role from a riscv64 file built
// with o (harness.LoadFile).
func riscv64FileTramp(t *testing.T, path string, role trampolines.Role, o harness.FileOptions) harness.Tramp {
	t.Helper()
	f, err := harness.LoadFile(regs.RISCV64, path, o)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := f.Role(role)
	if err != nil {
		t.Fatal(err)
	}
	return ts[0]
}
