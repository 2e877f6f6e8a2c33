package tests

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"trampemu/check"
	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
)

// brokenWorkloads are the workloads a broken file runs on: one call level
// deep, so one bug cannot cascade through a recursion into other symptoms.
func brokenWorkloads(a *regs.Arch) []string {
	ret := "ret128"
	if a.Name == "s390x" {
		ret = "ret16"
	}
	return []string{"add", "six", ret, "callee_saved", "tail", "klp_target"}
}

// TestBrokenFiles: each deliberately broken file of testdata/broken is
// caught with exactly its kind on every workload (or on the workloads of
// its row: a lost live-patch redirect shows only where a live patch
// redirects), through the same path a user's --file takes; the *_ok.S
// files written the same way pass.
func TestBrokenFiles(t *testing.T) {
	livepatched := []string{"klp_target"}
	cases := []brokenCase{
		{"x86_rth_loses_rdx.S", []check.Kind{check.Clobber}, nil},
		{"x86_rth_loses_rax.S", []check.Kind{check.Clobber}, nil},
		{"x86_rth_clobbers_rbx.S", []check.Kind{check.Clobber}, nil},
		{"x86_rth_unbalanced.S", []check.Kind{check.Stack}, nil},
		{"x86_rth_plain_ret.S", []check.Kind{check.Control}, nil},
		{"x86_entry_writes_caller_frame.S", []check.Kind{check.Stack}, nil},
		{"x86_entry_swaps_slots.S", []check.Kind{check.WrongValue}, nil},
		{"x86_entry_skips_r9.S", []check.Kind{check.Clobber}, nil},
		{"x86_entry_forgets_cs.S", []check.Kind{check.StaleRead}, nil},
		{"x86_entry_misaligned.S", []check.Kind{check.Stack}, nil},
		{"x86_entry_skips_callback.S", []check.Kind{check.Control}, nil},
		{"x86_entry_no_rip_writeback.S", []check.Kind{check.Control}, livepatched},
		{"x86_rth_below_sp.S", []check.Kind{check.Stack}, nil},
		{"x86_rth_jumps_below_sp.S", []check.Kind{check.Stack}, nil},
		{"x86_entry_loops.S", []check.Kind{check.Control}, nil},
		{"x86_entry_ok.S", nil, nil},
		{"x86_rth_ok.S", nil, nil},
		{"s390x_rth_no_backchain.S", []check.Kind{check.Backchain}, nil},
		{"s390x_rth_loses_r2.S", []check.Kind{check.Clobber}, nil},
		{"s390x_rth_store_outside.S", []check.Kind{check.Stack}, nil},
		{"s390x_entry_unbalanced.S", []check.Kind{check.Stack}, nil},
		{"s390x_entry_wrong_gpr15.S", []check.Kind{check.WrongValue}, nil},
		{"s390x_entry_clobbers_r3.S", []check.Kind{check.Clobber}, nil},
		{"s390x_entry_skips_callback.S", []check.Kind{check.Control}, nil},
		{"s390x_entry_returns_r0.S", []check.Kind{check.Control}, livepatched},
		{"s390x_rth_below_sp.S", []check.Kind{check.Stack}, nil},
		{"s390x_entry_frame_no_r14.S", []check.Kind{check.Backchain}, nil},
		{"s390x_entry_loops.S", []check.Kind{check.Control}, nil},
		{"s390x_entry_ok.S", nil, nil},
		{"s390x_rth_ok.S", nil, nil},
	}
	cases = append(cases, arm64Broken...)
	cases = append(cases, riscv64TopBroken...)
	files, _ := filepath.Glob("testdata/broken/*.S")
	if len(files) != len(cases) {
		t.Errorf("testdata/broken has %d files, the tables %d: keep them in step", len(files), len(cases))
	}
	for _, c := range cases {
		c := c
		t.Run(c.file, func(t *testing.T) {
			t.Parallel()
			arch := regs.X86_64
			if strings.HasPrefix(c.file, "s390x") {
				arch = regs.S390X
			}
			if strings.HasPrefix(c.file, "arm64") {
				arch = regs.ARM64
			}
			if strings.HasPrefix(c.file, "riscv64") {
				arch = regs.RISCV64
			}
			role := trampolines.Exit
			if strings.Contains(c.file, "_entry_") {
				role = trampolines.Entry
			}
			tr, err := harness.FromFile(arch, filepath.Join("testdata/broken", c.file), role)
			if err != nil {
				t.Fatal(err)
			}
			wls := c.workloads
			if wls == nil {
				wls = brokenWorkloads(arch)
			}
			for _, r := range runCheck(t, check.Config{Arch: arch, Tramp: tr, Workloads: wls, Calls: 3, Seed: 3}) {
				if got := errorKinds(r); !slices.Equal(got, sortedKinds(c.want...)) {
					t.Errorf("%s: error kinds %s, want %s%s", r.Workload, kindsText(got), kindsText(c.want), findings(r))
				}
			}
		})
	}
}

// brokenCase is one file of testdata/broken with the error kinds it must
// get (none for the correct twins) on its workloads.
type brokenCase struct {
	file      string
	want      []check.Kind
	workloads []string // nil: brokenWorkloads
}

// riscv64TopBroken are the riscv64 files at the top of testdata/broken
// (written for trampemu in the kernel's riscv style; the fixes' pairs are
// in testdata/broken/riscv64, riscv64Broken).
var riscv64TopBroken = []brokenCase{
	{"riscv64_entry_loops.S", []check.Kind{check.Control}, nil},
	{"riscv64_rth_ok.S", nil, nil},
}

// arm64Broken are the arm64 files of testdata/broken (written for
// trampemu): each broken one names its kind in its first comment.
var arm64Broken = []brokenCase{
	{"arm64_rth_loses_x0.S", []check.Kind{check.Clobber}, nil},
	{"arm64_rth_unbalanced.S", []check.Kind{check.Stack}, nil},
	// the 16-byte sp rule: the v7 fgraph_ret_regs block without its pad
	{"arm64_rth_misaligned.S", []check.Kind{check.Stack}, nil},
	{"arm64_entry_skips_callback.S", []check.Kind{check.Control}, nil},
	{"arm64_entry_swaps_slots.S", []check.Kind{check.WrongValue}, nil},
	{"arm64_entry_no_pc_writeback.S", []check.Kind{check.Control}, []string{"klp_target"}},
	{"arm64_entry_misaligned.S", []check.Kind{check.Stack}, nil},
	// no frame record before the call into C; x19 (callee-saved) used as
	// scratch; a load below sp (no red zone)
	{"arm64_entry_no_frame_record.S", []check.Kind{check.Backchain}, nil},
	{"arm64_entry_clobbers_x19.S", []check.Kind{check.Clobber}, nil},
	{"arm64_entry_below_sp.S", []check.Kind{check.Stack}, nil},
	// resumes at the call site's bl: every return re-enters it
	{"arm64_entry_loops.S", []check.Kind{check.Control}, nil},
	{"arm64_entry_ok.S", nil, nil},
	{"arm64_rth_ok.S", nil, nil},
	// correct but unusual: pre/post-indexed frame, reverse restore, br x16
	{"arm64_rth_unusual_ok.S", nil, nil},
}

// TestARM64BrokenFilesSayTheirKind: every arm64 row's file exists and its
// first comment says what it must be caught as (or that it must pass), so
// the table and the files cannot drift apart.
func TestARM64BrokenFilesSayTheirKind(t *testing.T) {
	for _, c := range arm64Broken {
		text, err := os.ReadFile(filepath.Join("testdata/broken", c.file))
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
			t.Errorf("%s: the comment does not say %q:\n%s", c.file, want, head)
		}
	}
}

// TestUserFileErrors: bad user files come back as clear errors that name
// the problem: an assembler error with file:line, missing symbols listed.
func TestUserFileErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		arch *regs.Arch
		role trampolines.Role
		name string
		text string
		want []string
	}{
		{regs.X86_64, trampolines.Exit, "typo.S", "SYM_CODE_START(return_to_handler)\n\tmovq %rax, RAX(%rsp)\n\tmovx %rax, %rbx\n\tRET\nSYM_CODE_END(return_to_handler)\n",
			[]string{"typo.S:3", "movx"}},
		{regs.S390X, trampolines.Exit, "typo.S", "SYM_FUNC_START(return_to_handler)\n\tlgx %r1,%r2\n\tbr %r14\nSYM_FUNC_END(return_to_handler)\n",
			[]string{"typo.S:2", "lgx"}},
		{regs.X86_64, trampolines.Exit, "nosym.S", "SYM_CODE_START(return_to_handlr)\n\tRET\nSYM_CODE_END(return_to_handlr)\n",
			[]string{"nosym.S", "defines neither ftrace_caller nor return_to_handler", "v6.14+"}},
		{regs.S390X, trampolines.Entry, "nosym.S", "SYM_CODE_START(ftrace_caller)\n\tbr %r0\nSYM_CODE_END(ftrace_caller)\n",
			[]string{"missing symbols", "ftrace_call", "ftrace_func"}},
		{regs.X86_64, trampolines.Entry, "undef.S", "SYM_FUNC_START(ftrace_caller)\nSYM_INNER_LABEL(ftrace_call, SYM_L_GLOBAL)\n\tcall my_helper\n\tcall other_helper\n\tRET\nSYM_FUNC_END(ftrace_caller)\n",
			[]string{"undefined symbols", "my_helper, other_helper"}},
		{regs.S390X, trampolines.Exit, "undef.S", "SYM_FUNC_START(return_to_handler)\n\tbrasl %r14,my_helper\n\tbr %r14\nSYM_FUNC_END(return_to_handler)\n",
			[]string{"undefined symbols", "my_helper"}},
	}
	for _, c := range cases {
		t.Run(c.arch.Name+"/"+c.name, func(t *testing.T) {
			// The error comes from loading the file (what it defines, the
			// kernel model, undefined symbols) or from building the pairing.
			tr, err := harness.FromFile(c.arch, write(c.arch.Name+"-"+c.name, c.text), c.role)
			if err == nil {
				_, err = check.Run(check.Config{Arch: c.arch, Tramp: tr, Workloads: []string{"add"}, Calls: 1})
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
}

// TestBelowSPNeedsTheInterruptModel: the trampolines that keep data below
// sp pass every other check (they ran "ok" before the model existed); only
// the modelled interrupt catches them.
func TestBelowSPNeedsTheInterruptModel(t *testing.T) {
	for _, file := range []string{"x86_rth_below_sp.S", "x86_rth_jumps_below_sp.S", "s390x_rth_below_sp.S"} {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			arch := regs.X86_64
			if strings.HasPrefix(file, "s390x") {
				arch = regs.S390X
			}
			tr, err := harness.FromFile(arch, filepath.Join("testdata/broken", file), trampolines.Exit)
			if err != nil {
				t.Fatal(err)
			}
			for _, irq := range []bool{false, true} {
				for _, r := range runCheck(t, check.Config{Arch: arch, Tramp: tr, Workloads: []string{"add", "fib"}, Calls: 3, Seed: 3, NoInterrupts: !irq}) {
					want := []check.Kind(nil)
					if irq {
						want = []check.Kind{check.Stack}
					}
					if got := errorKinds(r); !slices.Equal(got, want) {
						t.Errorf("interrupts %v, %s: error kinds %s, want %s%s", irq, r.Workload, kindsText(got), kindsText(want), findings(r))
					}
				}
			}
		})
	}
}
