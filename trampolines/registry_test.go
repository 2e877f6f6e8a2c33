package trampolines

import (
	"io/fs"
	"strings"
	"testing"

	"trampemu/regs"
)

// TestRegistry: every variant's file is embedded, its pair is a variant
// of the other role on the same arch, and its claims name slots of the
// structure it fills (struct ftrace_regs or, for the pt_regs entries,
// struct pt_regs; struct fgraph_ret_regs for the v6.5-v6.13 exits), on
// every arch package regs describes.
func TestRegistry(t *testing.T) {
	byName := map[[3]string]*Variant{}
	for i := range Variants {
		v := &Variants[i]
		k := [3]string{v.Arch, string(v.Role), v.Name}
		if byName[k] != nil {
			t.Errorf("%s %s %s: listed twice", v.Arch, v.Role, v.Name)
		}
		byName[k] = v
	}
	seen := map[string]bool{}
	for i := range Variants {
		v := &Variants[i]
		seen[v.Arch] = true
		var a *regs.Arch
		for _, x := range regs.Arches {
			if x.Name == v.Arch {
				a = x
			}
		}
		if a == nil {
			t.Errorf("%s: unknown arch %q", v.Name, v.Arch)
			continue
		}
		if _, err := fs.Stat(Files, v.File); err != nil {
			t.Errorf("%s/%s: %v", v.Arch, v.Name, err)
		}
		other := Entry
		if v.Role == Entry {
			other = Exit
		}
		if v.Pair != "" && byName[[3]string{v.Arch, string(other), v.Pair}] == nil {
			t.Errorf("%s/%s: pair %q is no %s variant", v.Arch, v.Name, v.Pair, other)
		}
		layout := a.Frame
		switch {
		case v.PtRegs:
			layout = a.PtRegs
		case v.ExitABI == ExitRetRegs:
			layout = a.RetRegs
		case v.ExitABI == ExitRethook && a.PtRegs != nil:
			layout = a.PtRegs // the pt_regs arch_rethook_trampoline builds
		}
		if (v.Role == Rethook) != (v.ExitABI == ExitRethook) {
			t.Errorf("%s/%s: role %s with exit ABI %q", v.Arch, v.Name, v.Role, v.ExitABI)
		}
		if layout == nil {
			t.Errorf("%s/%s: %s has no layout for it", v.Arch, v.Name, a.Name)
			continue
		}
		for _, c := range v.Claims {
			if _, ok := layout.Slot(c); !ok {
				t.Errorf("%s/%s: claim %q is no slot of %s", v.Arch, v.Name, c, layout.Name)
			}
		}
		if v.PtRegs && (v.Role != Entry || a.PtRegs == nil) {
			t.Errorf("%s/%s: PtRegs on a %s variant of %s", v.Arch, v.Name, v.Role, a.Name)
		}
	}
	for _, a := range regs.Arches {
		if !seen[a.Name] {
			t.Errorf("no variants for %s", a.Name)
		}
		for _, r := range []Role{Entry, Exit} {
			if byName[[3]string{a.Name, string(r), Current[a.Name][r]}] == nil {
				t.Errorf("%s: current %s variant %q is not in the registry", a.Name, r, Current[a.Name][r])
			}
		}
		if _, err := fs.Stat(Files, "workloads/"+a.Name+".S"); err != nil {
			t.Errorf("%s: %v", a.Name, err)
		}
		if _, err := fs.Stat(Files, "runtime/"+a.Name+".S"); err != nil {
			t.Errorf("%s: %v", a.Name, err)
		}
	}
}

// TestRuntimeDefines: one TREC_<reg> per general register, inside the
// record, none for the program counter or the flags; arm64 has x0-x30.
func TestRuntimeDefines(t *testing.T) {
	for _, c := range []struct {
		arch *regs.Arch
		regs int
		last string
	}{{regs.X86_64, 16, "TREC_R15"}, {regs.S390X, 16, "TREC_R15"}, {regs.ARM64, 31, "TREC_X30"}} {
		d := RuntimeDefines(c.arch)
		n := 0
		for _, r := range c.arch.Regs {
			if _, ok := d["TREC_"+strings.ToUpper(r.Name)]; ok {
				n++
			}
		}
		if n != c.regs || d[c.last] == "" || d["TREC_PC"] != "" || d["TREC_SP"] != "" && c.arch == regs.ARM64 {
			t.Errorf("%s: %d register defines, want %d with %s: %v", c.arch.Name, n, c.regs, c.last, d)
		}
		if RecRegs+RecGPRs*8 > RecStack {
			t.Errorf("record: registers overlap the stack arguments")
		}
	}
}
