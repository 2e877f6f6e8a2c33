package harness

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"trampemu/asm"
	"trampemu/ftrace"
	"trampemu/kernel"
	"trampemu/regs"
	"trampemu/trampolines"
)

// Tramp is one trampoline to link: a registry variant or a user's file.
type Tramp struct {
	Name    string
	Role    trampolines.Role
	Source  asm.Source
	Headers map[string][]byte
	Symbol  string // ftrace_caller / ftrace_regs_caller / return_to_handler
	Graph   trampolines.GraphEntry
	ExitABI trampolines.ExitABI
	Variant *trampolines.Variant // nil for a user's file
	// IncludeDirs: a user file's own folder.
	IncludeDirs []string
	// Model is the kernel model a file is judged by (nil for a variant).
	Model *kernel.Choice
	// Partner, when set, is the trampoline for the other role (a kernel
	// file's own return_to_handler or entry).
	Partner *Tramp
	// Measure, when set, names the function whose code the cost counts
	// (ftrace_graph_caller: reached through ftrace_caller, costed alone).
	Measure string
	// Support are sources linked with the trampoline (stand-ins for kernel
	// functions a kernel file names but never reaches).
	Support []asm.Source
}

// Trampoline names what the row checks: the measured function, else the
// symbol the traced call site calls (or returns into).
func (t Tramp) Trampoline() string {
	if t.Measure != "" {
		return t.Measure
	}
	return t.Symbol
}

// NoFullRegs reports whether the entry trampoline predates
// arch_ftrace_get_regs and kprobes on ftrace (a registry variant's flag, or
// its kernel model's).
func (t Tramp) NoFullRegs() bool {
	if t.Variant != nil {
		return t.Variant.NoFullRegs
	}
	// A pt_regs-era ftrace_caller (arm64 WITH_REGS) saves part of pt_regs:
	// ops that want the registers (FTRACE_OPS_FL_SAVE_REGS) go through
	// ftrace_regs_caller (kernel/trace/ftrace.c ftrace_get_addr_new,
	// FTRACE_FL_REGS).
	return t.Model != nil && (t.Model.Model.NoFullRegs || (t.Model.Model.PtRegs && t.Symbol == "ftrace_caller"))
}

// Pg reports whether the entry trampoline's era calls it from gcc's -pg
// call site and hands its callbacks (ip, parent_ip) only (arm64
// v4.19-v5.4): a registry variant's flag, or its kernel model's.
func (t Tramp) Pg() bool {
	if t.Variant != nil {
		return t.Variant.Pg
	}
	return t.Model != nil && t.Model.Model != nil && t.Model.Model.Pg
}

// PtRegs reports whether the entry trampoline hands its callbacks a
// struct pt_regs where its arch's ftrace_regs is another structure (arm64
// DYNAMIC_FTRACE_WITH_REGS, v5.5-v6.1): a registry variant's flag, or its
// kernel model's.
func (t Tramp) PtRegs() bool {
	if t.Variant != nil {
		return t.Variant.PtRegs
	}
	return t.Model != nil && t.Model.Model.PtRegs
}

// DirectCalls reports whether the entry trampoline's era has
// DYNAMIC_FTRACE_WITH_DIRECT_CALLS, so a user can send a traced call
// through a direct trampoline (register_ftrace_direct): a registry
// variant's flag (trampolines.Variant.NoDirectCalls), or the option in its
// kernel model's distribution config (arch/arm64/Kconfig selects
// HAVE_DYNAMIC_FTRACE_WITH_DIRECT_CALLS from v6.4, 2aa6ac03516d).
func (t Tramp) DirectCalls() bool {
	if t.Variant != nil {
		return !t.Variant.NoDirectCalls
	}
	if t.Model != nil && t.Model.Model != nil {
		return t.Model.Model.Config["CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS"] == "y"
	}
	return true
}

// NoRegs reports whether the entry trampoline hands its callbacks a block
// that is neither a struct ftrace_regs nor a pt_regs, read by none of
// the ops that come there (riscv64 v5.11-v6.7 ftrace_caller: a0-a7, t0, ra
// in an ABI block, arch/riscv/kernel/mcount-dyn.S; ops with SAVE_REGS
// go through ftrace_regs_caller): a registry variant's flag, or a file's
// ftrace_caller of a model without WITH_ARGS whose ftrace_regs_caller
// fills a pt_regs. The harness passes the ops no registers for it, as
// x86-64 v5.10's ftrace_caller passes regs = NULL.
func (t Tramp) NoRegs() bool {
	if t.Variant != nil {
		return t.Variant.NoRegs
	}
	m := t.Model
	return m != nil && !m.Model.WithArgs && m.Model.PtRegs && t.Symbol == "ftrace_caller"
}

// FrameLayout is the structure the trampoline hands its callbacks (an
// entry) or ftrace_return_to_handler (an exit of ExitFregs): the arch's
// pt_regs for a PtRegs entry, else its struct ftrace_regs in the form of
// the trampoline's era and build (regs.Arch.FregsLayout of FregsEra and
// the source's defines; Frame for most).
func (t Tramp) FrameLayout(a *regs.Arch) *regs.Layout {
	if t.Role != trampolines.Exit && t.PtRegs() && a.PtRegs != nil {
		return a.PtRegs // the entry's pt_regs (an exit passes struct ftrace_regs)
	}
	return a.FregsLayout(t.FregsEra(), t.Source.Defines)
}

// FregsEra is the era of struct ftrace_regs the trampoline is built
// against (regs.Arch.FregsForms): a registry variant's Fregs, a file's
// kernel model's; "" is the arch's Frame.
func (t Tramp) FregsEra() string {
	if t.Variant != nil {
		return t.Variant.Fregs
	}
	if t.Model != nil && t.Model.Model != nil {
		return t.Model.Model.Fregs
	}
	return ""
}

// NoIPModify reports whether the entry trampoline hands its callbacks no
// registers, so that the kernel sends ip-modifying ops (live patching,
// kprobes) through ftrace_regs_caller instead (a registry variant's flag;
// for a file, its kernel model's: ftrace_caller of an era without
// DYNAMIC_FTRACE_WITH_ARGS and with a ftrace_regs_caller of its own, as
// arch/x86/kernel/ftrace_64.S v5.10 passes regs = NULL; see
// trampolines.Variant.NoIPModify).
func (t Tramp) NoIPModify() bool {
	if t.Variant != nil {
		return t.Variant.NoIPModify
	}
	m := t.Model
	return m != nil && ((!m.Model.WithArgs && !m.Model.RegsAliased) || m.Model.PtRegs) && t.Symbol == "ftrace_caller"
}

// NoLivePatch reports whether the entry trampoline's era has no live
// patching (HAVE_LIVEPATCH): a registry variant's flag
// (trampolines.Variant.NoLivePatch), or its kernel model's.
func (t Tramp) NoLivePatch() bool {
	if t.Variant != nil {
		return t.Variant.NoLivePatch
	}
	return t.Model != nil && t.Model.Model != nil && t.Model.Model.NoLivePatch
}

// Site is the call-site form the entry trampoline is reached from: a
// registry variant's (trampolines.Variant.Site), a file's (kernel.Choice.Site,
// found from the file); "" is the arch's usual form.
func (t Tramp) Site() trampolines.CallSite {
	if t.Variant != nil {
		return t.Variant.Site
	}
	if t.Model != nil {
		return t.Model.Site
	}
	return ""
}

// PrepareABI is how the entry trampoline's ftrace_graph_caller calls
// prepare_ftrace_return: a file's kernel model says; a registry variant
// has its arch's form of the variants' era (harnessArch.prepareABI,
// x86_64.go and s390x.go).
func (t Tramp) PrepareABI(a *regs.Arch) ftrace.PrepareABI {
	if t.Model != nil && t.Model.Model.Prepare != ftrace.PrepareUnknown {
		return t.Model.Model.Prepare
	}
	if t.Variant != nil && t.Variant.PrepareParentFirst {
		return ftrace.PrepareParentIPFP
	}
	if h, err := hooksOf(a); err == nil {
		return h.prepareABI
	}
	return ftrace.PrepareUnknown
}

// Kernel reports whether the trampoline is merged kernel code.
func (t Tramp) Kernel() bool { return t.Variant != nil && t.Variant.Kernel }

// FindVariant looks a variant up by arch, role and name; the error lists
// the valid names.
func FindVariant(a *regs.Arch, role trampolines.Role, name string) (*trampolines.Variant, error) {
	var names []string
	for i := range trampolines.Variants {
		v := &trampolines.Variants[i]
		if v.Arch != a.Name || (role != "" && v.Role != role) {
			continue
		}
		if v.Name == name {
			return v, nil
		}
		names = append(names, v.Name)
	}
	sort.Strings(names)
	what := "variant"
	if role != "" {
		what = string(role) + " variant"
	}
	return nil, fmt.Errorf("unknown %s %s %q: valid are %s", a.Name, what, name, strings.Join(names, ", "))
}

// VariantsOf lists the registry's variants of an arch (all roles when role is "").
func VariantsOf(a *regs.Arch, role trampolines.Role) []*trampolines.Variant {
	var out []*trampolines.Variant
	for i := range trampolines.Variants {
		v := &trampolines.Variants[i]
		if v.Arch == a.Name && (role == "" || v.Role == role) {
			out = append(out, v)
		}
	}
	return out
}

// FprobeDesignsOf are the fprobe designs (ftrace.FprobeDesigns) whose
// return trampoline the registry holds for a: rethook needs an
// arch_rethook_trampoline variant (riscv64 has none yet), fgraph a
// return_to_handler.
func FprobeDesignsOf(a *regs.Arch) []ftrace.FprobeDesign {
	var out []ftrace.FprobeDesign
	for _, d := range ftrace.FprobeDesigns {
		role := trampolines.Exit
		if d == ftrace.DesignRethook {
			role = trampolines.Rethook
		}
		if len(VariantsOf(a, role)) > 0 {
			out = append(out, d)
		}
	}
	return out
}

// FromVariant loads a registry variant's source and the headers of its
// folder.
func FromVariant(v *trampolines.Variant) (Tramp, error) {
	text, err := fs.ReadFile(trampolines.Files, v.File)
	if err != nil {
		return Tramp{}, fmt.Errorf("variant %s: %w", v.Name, err)
	}
	hdrs, err := headersOf(path.Dir(v.File))
	if err != nil {
		return Tramp{}, err
	}
	return Tramp{
		Name: v.Name, Role: v.Role, Variant: v, Symbol: v.Symbol, Graph: v.Graph, ExitABI: v.ExitABI,
		Source:  asm.Source{Name: "trampolines/" + v.File, Text: text, Unit: string(v.Role), Defines: v.Defines},
		Headers: hdrs,
	}, nil
}

func headersOf(dir string) (map[string][]byte, error) {
	ents, err := fs.ReadDir(trampolines.Files, dir)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".h") {
			b, err := fs.ReadFile(trampolines.Files, path.Join(dir, e.Name()))
			if err != nil {
				return nil, err
			}
			out[e.Name()] = b
		}
	}
	return out, nil
}

// FromFile loads a user's kernel-style .S for one role with the default
// options: the model found from the file, the model's CONFIG options. See
// LoadFile.
func FromFile(a *regs.Arch, file string, role trampolines.Role) (Tramp, error) {
	if role != trampolines.Entry && role != trampolines.Exit {
		return Tramp{}, fmt.Errorf("--role must be entry or exit, not %q", role)
	}
	f, err := LoadFile(a, file, FileOptions{})
	if err != nil {
		return Tramp{}, err
	}
	ts, err := f.Role(role)
	if err != nil {
		return Tramp{}, err
	}
	return ts[0], nil
}

// Current returns the kernel's current variant for an arch and role.
func Current(a *regs.Arch, role trampolines.Role) (Tramp, error) {
	v, err := FindVariant(a, role, trampolines.Current[a.Name][role])
	if err != nil {
		return Tramp{}, err
	}
	return FromVariant(v)
}

// IntendedSetup is t wired with its intended partner (Pair) in the roles
// they play.
func IntendedSetup(a *regs.Arch, t Tramp) (Setup, error) {
	p, err := Pair(a, t)
	if err != nil {
		return Setup{}, err
	}
	if t.Role.Returns() {
		return Setup{Arch: a, Entry: p, Exit: t}, nil
	}
	return Setup{Arch: a, Entry: t, Exit: p}, nil
}

// Pair returns the variant's intended partner for the other role.
func Pair(a *regs.Arch, t Tramp) (Tramp, error) {
	other := trampolines.Exit
	if t.Role.Returns() {
		other = trampolines.Entry
	}
	if t.Partner != nil {
		return *t.Partner, nil
	}
	if t.Variant == nil && t.Model != nil {
		v, err := FindVariant(a, other, t.Model.Model.Partner[other])
		if err != nil {
			return Tramp{}, fmt.Errorf("partner of %s (kernel model %s): %w", t.Name, t.Model.Model.Name, err)
		}
		return FromVariant(v)
	}
	if t.Variant == nil || t.Variant.Pair == "" {
		return Current(a, other)
	}
	v, err := FindVariant(a, other, t.Variant.Pair)
	if err != nil {
		return Tramp{}, fmt.Errorf("pair of %s: %w", t.Name, err)
	}
	return FromVariant(v)
}
