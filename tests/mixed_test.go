package tests

import (
	"testing"

	"trampemu/check"
	"trampemu/harness"
	"trampemu/kernel"
	"trampemu/regs"
)

// TestMixedErasInTree: a mixed-era file (an old graph path with a new
// exit, a new entry with an old exit) gets the same verdict in a tree
// whose Makefile gives an older or newer version as it gets alone
// (TestKernelFiles), with a note; forcing one whole era with --kernel
// judges the other half by the wrong ABI, and where that ABI matters the
// check says so (forcedErrs: x86-64 ignores the frame pointer argument,
// HAVE_FUNCTION_GRAPH_FP_TEST is arm64's, so both its eras pass).
func TestMixedErasInTree(t *testing.T) {
	cases := []struct {
		arch      *regs.Arch
		file      string
		makefile  kernel.Version
		force     kernel.Version // --kernel: the entry's era
		forcedErr bool
	}{
		{regs.X86_64, "x86_64_mixed_old_graph.S", kernel.Version{Major: 5, Minor: 15}, kernel.Version{Major: 5, Minor: 11}, false},
		{regs.X86_64, "x86_64_mixed_new_entry.S", kernel.Version{Major: 6, Minor: 14}, kernel.Version{Major: 6, Minor: 14}, true},
		{regs.S390X, "s390x_mixed_old_graph.S", kernel.Version{Major: 6, Minor: 12}, kernel.Version{Major: 6, Minor: 5}, true},
		{regs.S390X, "s390x_mixed_new_entry.S", kernel.Version{Major: 6, Minor: 14}, kernel.Version{Major: 6, Minor: 14}, true},
		{regs.ARM64, "arm64_mixed_old_graph.S", kernel.Version{Major: 5, Minor: 10}, kernel.Version{Major: 5, Minor: 5}, true},
		{regs.ARM64, "arm64_mixed_new_entry.S", kernel.Version{Major: 6, Minor: 2}, kernel.Version{Major: 6, Minor: 2}, true},
		{regs.RISCV64, "riscv64_mixed_new_entry.S", kernel.Version{Major: 6, Minor: 14}, kernel.Version{Major: 6, Minor: 14}, true},
		// its exit is the 67a5ba8f742f block, which keeps no frame record:
		// the v6.14+ exit's known kernel bug, ok (known) in a tree
		{regs.RISCV64, "riscv64_mixed_old_graph.S", kernel.Version{Major: 6, Minor: 7}, kernel.Version{Major: 6, Minor: 5}, true},
	}
	seen := map[string]bool{}
	for _, c := range cases {
		seen[c.arch.Name] = true
		t.Run(c.arch.Name+"/"+c.file, func(t *testing.T) {
			tr, err := loadRole(c.arch, c.file, harness.FileOptions{Makefile: c.makefile}, "exit")
			if err != nil {
				t.Fatal(err)
			}
			if tr.Model.Note == "" || tr.Model.Makefile != c.makefile {
				t.Errorf("in a %s tree: note %q, Makefile %s", c.makefile, tr.Model.Note, tr.Model.Makefile)
			}
			rs, err := check.Run(check.Config{Arch: c.arch, Tramp: tr, Workloads: []string{"add"}, Calls: 2})
			if err != nil {
				t.Fatal(err)
			}
			if !rs[0].OK || rs[0].Kernel.MakefileVersion != c.makefile.String() || len(rs[0].Kernel.Properties) == 0 {
				t.Errorf("in a %s tree: ok=%v kernel %+v%s", c.makefile, rs[0].OK, rs[0].Kernel, findings(rs[0]))
			}
			ch, err := kernel.Choose(c.arch.Name, c.force, "--kernel")
			if err != nil {
				t.Fatal(err)
			}
			tr, err = loadRole(c.arch, c.file, harness.FileOptions{Kernel: &ch}, "exit")
			if err != nil {
				t.Fatal(err)
			}
			rs, err = check.Run(check.Config{Arch: c.arch, Tramp: tr, Workloads: []string{"add"}, Calls: 2})
			if err != nil {
				t.Fatal(err)
			}
			if rs[0].OK == c.forcedErr {
				t.Errorf("--kernel %s: ok=%v, want errors %v%s", c.force, rs[0].OK, c.forcedErr, findings(rs[0]))
			}
		})
	}
	for _, a := range regs.Arches {
		if !seen[a.Name] {
			t.Errorf("%s: no mixed-era case", a.Name)
		}
	}
}
