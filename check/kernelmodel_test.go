package check

import (
	"strings"
	"testing"

	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
)

// TestAFileCarriesItsKernelModel: a check of a trampoline file (not a
// registry variant) says which kernel model judged it; outside a kernel
// tree there is no Makefile version to name.
func TestAFileCarriesItsKernelModel(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			f := "../tests/testdata/broken/" + strings.TrimSuffix(a.Name, "_64") + "_rth_ok.S"
			if ok, has := map[string]string{"riscv64": "riscv64/riscv64_rth_fregs_record_ok.S"}[a.Name]; has {
				f = "../tests/testdata/broken/" + ok
			}
			tr, err := harness.FromFile(a, f, trampolines.Exit)
			if err != nil {
				t.Fatal(err)
			}
			rs, err := Run(Config{Arch: a, Tramp: tr, Workloads: []string{"add"}, Calls: 1, NoInterrupts: true})
			if err != nil {
				t.Fatal(err)
			}
			k := rs[0].Kernel
			if k == nil || k.Model == "" || k.MakefileVersion != "" {
				t.Fatalf("kernel %+v, want a model and no Makefile version", k)
			}
		})
	}
}
