package harness

import (
	"testing"

	"trampemu/kernel"
	"trampemu/regs"
	"trampemu/trampolines"
)

// TestDirectCallsData: whether an entry can take a direct trampoline is
// data: the registry variant's flag, the kernel model's config. arm64 got
// direct calls in v6.4 (2aa6ac03516d); every x86-64 and s390x registry
// entry has them but s390x's v4.x one (register_ftrace_direct is v5.5).
func TestDirectCallsData(t *testing.T) {
	noDirect := map[string]bool{"arm64/ftrace_caller-v6.3": true, "arm64/ftrace_caller-v6.2": true, "arm64/ftrace_caller-v6.1": true,
		"arm64/ftrace_regs_caller-v6.1": true, "arm64/ftrace_caller-v5.10": true, "arm64/ftrace_regs_caller-v5.10": true,
		"arm64/ftrace_caller-v5.0": true, "arm64/ftrace_caller-v4.19": true, "arm64/ftrace_caller-v5.0-wrong-parent": true,
		"arm64/ftrace_caller-v5.0-wrong-fp": true,
		"s390x/ftrace_caller-v4":            true,
		// riscv64 direct calls came with v6.8 (196c79f19a92).
		"riscv64/ftrace_caller-v6.7": true, "riscv64/ftrace_regs_caller-v6.7": true,
		"riscv64/ftrace_caller-v6.2": true, "riscv64/ftrace_regs_caller-v6.2": true}
	direct, _ := FindUserSet("direct")
	for _, a := range regs.Arches {
		for _, v := range VariantsOf(a, trampolines.Entry) {
			tr := Tramp{Name: v.Name, Role: v.Role, Variant: v}
			want := !noDirect[a.Name+"/"+v.Name]
			if got := tr.DirectCalls(); got != want {
				t.Errorf("%s %s: DirectCalls %v, want %v", a.Name, v.Name, got, want)
			}
			if n := direct.NotApplicable(tr); (len(n) > 0) == want {
				t.Errorf("%s %s: NotApplicable %q with DirectCalls %v", a.Name, v.Name, n, want)
			}
		}
	}
	for _, m := range kernel.ModelsOf(regs.ARM64.Name) {
		tr := Tramp{Name: "file", Role: trampolines.Entry, Model: &kernel.Choice{Model: m}}
		if got, want := tr.DirectCalls(), !m.From.Less(kernel.Version{Major: 6, Minor: 4}); got != want {
			t.Errorf("arm64 model %s: DirectCalls %v, want %v", m.Name, got, want)
		}
	}
}

// TestLivePatchData: whether an entry's era can live patch is data too:
// riscv64 v5.11-v6.2 has no HAVE_LIVEPATCH (arch/riscv/Kconfig v5.15,
// potatogeek/kernel-a34x-permissiver@a1cd818d9681): its registry entries
// and its model say so, the livepatch user set names the user it leaves
// out, and every other entry and model keeps it.
func TestLivePatchData(t *testing.T) {
	none := map[string]bool{"riscv64/ftrace_caller-v6.2": true, "riscv64/ftrace_regs_caller-v6.2": true}
	lp, _ := FindUserSet("livepatch")
	for _, a := range regs.Arches {
		for _, v := range VariantsOf(a, trampolines.Entry) {
			tr := Tramp{Name: v.Name, Role: v.Role, Variant: v}
			want := none[a.Name+"/"+v.Name]
			if got := tr.NoLivePatch(); got != want {
				t.Errorf("%s %s: NoLivePatch %v, want %v", a.Name, v.Name, got, want)
			}
			if n := lp.NotApplicable(tr); (len(n) > 0) != want {
				t.Errorf("%s %s: NotApplicable %q with NoLivePatch %v", a.Name, v.Name, n, want)
			}
		}
		for _, m := range kernel.ModelsOf(a.Name) {
			tr := Tramp{Name: "file", Role: trampolines.Entry, Model: &kernel.Choice{Model: m}}
			if got, want := tr.NoLivePatch(), a == regs.RISCV64 && m.Name == "v5.11-v6.2"; got != want {
				t.Errorf("%s model %s: NoLivePatch %v, want %v", a.Name, m.Name, got, want)
			}
		}
	}
}
