package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"trampemu/harness"
	"trampemu/kernel"
	"trampemu/regs"
	"trampemu/trampolines"
)

// pickFlags are the flags that choose trampolines, shared by check, trace
// and native: --variant (repeatable), --file with --role, and --pair; for
// a kernel file also the model (--kernel) and the CONFIG options (-D, -U,
// --config).
type pickFlags struct {
	variants         []string
	file, role, pair *string
	tree, patch      *string
	kern             kernelFlags
	opened           *kernel.Tree
	// fileName and includeDir, when set, name a patched copy of --file
	// as the original and keep the original's folder on the include path.
	fileName, includeDir string
	// notes say which trampolines the options compiled out of the files
	// loaded without --role (missingNotes).
	notes []string
}

// kernelFlags choose the kernel model and the CONFIG options of a file.
type kernelFlags struct {
	version, config *string
	defines, undefs []string
}

func addKernelFlags(fs *pflag.FlagSet) *kernelFlags {
	k := &kernelFlags{}
	k.add(fs)
	return k
}

func (k *kernelFlags) add(fs *pflag.FlagSet) {
	k.version = fs.String("kernel", "", "kernel model vX.Y the file is judged by (default: found from the file; see 'trampemu list --config')")
	k.config = fs.String("config", "", "a kernel .config whose options replace the model's distribution defaults")
	fs.StringArrayVarP(&k.defines, "define", "D", nil, "CONFIG option or define `NAME[=VALUE]` on top (repeatable)")
	fs.StringArrayVarP(&k.undefs, "undef", "U", nil, "CONFIG option `NAME` to unset (repeatable)")
}

// flags returns the choices as harness.FileFlags.
func (k *kernelFlags) flags() harness.FileFlags {
	return harness.FileFlags{Kernel: *k.version, Config: *k.config, Define: k.defines, Undef: k.undefs}
}

// fileOptions resolves the flags for arch a.
func (k *kernelFlags) fileOptions(a *regs.Arch) (harness.FileOptions, error) {
	o, err := k.flags().Options(a)
	if err != nil {
		return o, usageError{err.Error()}
	}
	return o, nil
}

// used reports whether any kernel flag was given.
func (k *kernelFlags) used() bool { return k.flags().Used() }

// addPickFlags registers the flags; --pair only when withPair is set.
func addPickFlags(fs *pflag.FlagSet, variantHelp string, withPair bool) *pickFlags {
	p := &pickFlags{pair: new(string)}
	fs.StringArrayVar(&p.variants, "variant", nil, variantHelp)
	p.file = fs.StringP("file", "f", "", "a kernel .S (a whole ftrace_64.S / mcount.S, or your trampoline): every trampoline it defines is checked")
	p.role = fs.StringP("role", "r", "", "with --file: only entry, exit, or one symbol (ftrace_caller, ftrace_regs_caller, return_to_handler)")
	p.tree = fs.StringP("tree", "t", "", "a kernel source tree: its trampoline files (arch/x86/kernel/ftrace_64.S, arch/s390/kernel/mcount.S), its Makefile version and .config")
	p.patch = new(string)
	p.kern.add(fs)
	if withPair {
		fs.StringVar(p.pair, "pair", "", "the variant for the other role of --file or a single --variant (default: the intended pair; for a file its own trampoline of the other role, else the variant of its kernel model)")
	}
	return p
}

// addPatchFlag registers --patch (check only).
func (p *pickFlags) addPatchFlag(fs *pflag.FlagSet) {
	fs.StringVar(p.patch, "patch", "", "a patch (git format-patch / diff -u) applied to a copy of --tree or --file with GNU patch: before, after and the delta per trampoline")
}

// openTree reads --tree once.
func (p *pickFlags) openTree() (*kernel.Tree, error) {
	if p.opened == nil {
		t, err := kernel.OpenTree(*p.tree)
		if err != nil {
			return nil, usageError{err.Error()}
		}
		p.opened = t
	}
	return p.opened, nil
}

// archNames resolves --arch; with --tree and no --arch, every arch the
// tree has a trampoline file for (a note names the files of arches the
// tool does not model).
func (p *pickFlags) archNames(arch string) ([]*regs.Arch, error) {
	if *p.tree == "" || arch != "" {
		a, err := archOf(arch)
		if err != nil {
			return nil, err
		}
		return []*regs.Arch{a}, nil
	}
	t, err := p.openTree()
	if err != nil {
		return nil, err
	}
	p.notes = append(p.notes, t.Notes()...)
	var out []*regs.Arch
	for _, n := range t.Arches() {
		a, err := archOf(n)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// treeTramps loads arch a's trampoline file of a tree, judged by the
// tree's version and .config unless --kernel / --config say otherwise.
func (p *pickFlags) treeTramps(a *regs.Arch, t *kernel.Tree) ([]harness.Tramp, error) {
	rel, ok := t.Files[a.Name]
	if !ok {
		return nil, usagef("--tree %s has no %s trampoline file (it has %v)", t.Dir, a.Name, t.Arches())
	}
	o, err := p.kern.fileOptions(a)
	if err != nil {
		return nil, err
	}
	if o.Kernel == nil {
		o.Makefile = t.Version
	}
	if o.Config == nil {
		o.Config = t.ConfigFor(a.Name)
	}
	o.Name = rel
	var with []companion
	for _, c := range t.Companions[a.Name] {
		with = append(with, companion{filepath.Join(t.Dir, c), c})
	}
	return p.load(a, filepath.Join(t.Dir, rel), o, with...)
}

// companion is another trampoline file of a tree's arch (its path and how
// rows name it), checked with the arch's file (kernel.Tree.Companions).
type companion struct{ path, name string }

// tramps resolves the file or tree (first) and each named variant; none
// chosen gives none.
func (p *pickFlags) tramps(a *regs.Arch) ([]harness.Tramp, error) {
	var out []harness.Tramp
	if *p.tree != "" {
		if *p.file != "" {
			return nil, usagef("--tree or --file, not both")
		}
		t, err := p.openTree()
		if err != nil {
			return nil, err
		}
		ts, err := p.treeTramps(a, t)
		if err != nil {
			return nil, err
		}
		out = append(out, ts...)
	} else if *p.file != "" {
		ts, err := p.fileTramps(a, *p.file, p.fileName)
		if err != nil {
			return nil, err
		}
		out = append(out, ts...)
	} else if *p.role != "" {
		return nil, usagef("--role goes with --file or --tree")
	} else if p.kern.used() {
		return nil, usagef("--kernel, --config, -D and -U go with --file or --tree (registry variants carry their own options)")
	}
	for _, name := range p.variants {
		t, err := tramp(a, "", name)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	if *p.pair != "" && len(out) != 1 {
		return nil, usagef("--pair goes with --file or a single --variant")
	}
	return out, nil
}

// fileTramps loads a kernel file with the kernel flags and narrows to
// --role; name, when set, is how rows name the file.
func (p *pickFlags) fileTramps(a *regs.Arch, file, name string) ([]harness.Tramp, error) {
	o, err := p.kern.fileOptions(a)
	if err != nil {
		return nil, err
	}
	o.Name = name
	if p.includeDir != "" {
		o.IncludeDirs = []string{p.includeDir}
	}
	return p.load(a, file, o)
}

// load loads a kernel file and narrows to --role.
func (p *pickFlags) load(a *regs.Arch, file string, o harness.FileOptions, with ...companion) ([]harness.Tramp, error) {
	if err := checkFile(file); err != nil {
		return nil, err
	}
	role := trampolines.Role(*p.role)
	f, err := harness.LoadFile(a, file, o)
	if err != nil {
		return nil, explainFile(a, fileTramp(file, role, o), err)
	}
	for _, c := range with {
		if err := checkFile(c.path); err != nil {
			return nil, err
		}
		co := o
		co.Name = c.name
		g, err := harness.LoadFile(a, c.path, co)
		if err != nil {
			return nil, explainFile(a, fileTramp(c.path, role, co), err)
		}
		p.addNote(g)
		f.Join(g)
	}
	switch role {
	case "", trampolines.Entry, trampolines.Exit:
		ts, err := f.Role(role)
		if err != nil {
			return nil, wrongRole(f, file, role, err)
		}
		if role == "" {
			p.notes = append(p.notes, missingNotes(f)...)
		}
		p.addNote(f)
		return ts, nil
	}
	for _, t := range f.Tramps {
		if t.Trampoline() == *p.role {
			p.addNote(f)
			return []harness.Tramp{t}, nil
		}
	}
	var have []string
	for _, t := range f.Tramps {
		have = append(have, t.Trampoline())
	}
	return nil, usagef("--role %q: want entry or exit, or one of the trampolines %s defines with these options: %v", *p.role, file, have)
}

// addNote notes where a tree's file and its Makefile's version disagree.
func (p *pickFlags) addNote(f *harness.File) {
	if f.Choice.Note != "" {
		p.notes = append(p.notes, f.Name+": "+f.Choice.Note)
	}
}

// partner resolves --pair for t: the named variant of the other role, or
// t's intended pair (for a file, its own trampoline of the other role or
// its model's variant).
func (p *pickFlags) partner(a *regs.Arch, t harness.Tramp) (harness.Tramp, error) {
	if *p.pair == "" {
		return harness.Pair(a, t)
	}
	if t.Role.Returns() {
		return tramp(a, trampolines.Entry, *p.pair)
	}
	// An entry pairs with return_to_handler or arch_rethook_trampoline.
	if v, err := harness.FindVariant(a, trampolines.Rethook, *p.pair); err == nil {
		return harness.FromVariant(v)
	}
	return tramp(a, trampolines.Exit, *p.pair)
}

// tramp resolves a variant name of an arch (any role when role is "").
func tramp(a *regs.Arch, role trampolines.Role, name string) (harness.Tramp, error) {
	v, err := harness.FindVariant(a, role, name)
	if err != nil {
		return harness.Tramp{}, usageError{err.Error()}
	}
	return harness.FromVariant(v)
}

// modelLines prints, once per kernel file, the model it is judged by and
// why.
func modelLines(w io.Writer, tramps []harness.Tramp) {
	seen := map[*kernel.Choice]bool{}
	for _, t := range tramps {
		if t.Model == nil || seen[t.Model] {
			continue
		}
		seen[t.Model] = true
		file, _, _ := strings.Cut(t.Name, ":")
		fmt.Fprintf(w, "%s: kernel model %s, %s\n", file, t.Model.Model.Name, t.Model.Reason)
		for _, pr := range t.Model.Properties {
			fmt.Fprintf(w, "  %-21s %-28s %s: %s\n", pr.Name, pr.Value, pr.From, pr.Evidence)
		}
	}
	if len(seen) > 0 {
		fmt.Fprintln(w)
	}
}
