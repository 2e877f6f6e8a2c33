package main

import (
	"flag"
	"fmt"
	"io"

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
	variants         multi
	file, role, pair *string
	kern             kernelFlags
}

// kernelFlags choose the kernel model and the CONFIG options of a file.
type kernelFlags struct {
	version, config *string
	defines, undefs multi
}

func addKernelFlags(fs *flag.FlagSet) *kernelFlags {
	k := &kernelFlags{}
	k.add(fs)
	return k
}

func (k *kernelFlags) add(fs *flag.FlagSet) {
	k.version = fs.String("kernel", "", "kernel model vX.Y the file is judged by (default: found from the file; see 'trampemu list --config')")
	k.config = fs.String("config", "", "a kernel .config whose options replace the model's distribution defaults")
	fs.Var(&k.defines, "D", "CONFIG option or define NAME[=VALUE] on top (repeatable)")
	fs.Var(&k.undefs, "U", "CONFIG option to unset (repeatable)")
}

// fileOptions resolves the flags for arch a.
func (k *kernelFlags) fileOptions(a *regs.Arch) (harness.FileOptions, error) {
	o := harness.FileOptions{Options: kernel.Options{Define: k.defines, Undef: k.undefs}}
	if *k.version != "" {
		v, err := kernel.ParseVersion(*k.version)
		if err != nil {
			return o, usageError{"--kernel: " + err.Error()}
		}
		c, err := kernel.Choose(a.Name, v, "--kernel")
		if err != nil {
			return o, usageError{"--kernel: " + err.Error()}
		}
		o.Kernel = &c
	}
	if *k.config != "" {
		c, err := kernel.ReadConfig(*k.config)
		if err != nil {
			return o, usageError{err.Error()}
		}
		o.Config = c
	}
	return o, nil
}

// used reports whether any kernel flag was given.
func (k *kernelFlags) used() bool {
	return *k.version != "" || *k.config != "" || len(k.defines) > 0 || len(k.undefs) > 0
}

// addPickFlags registers the flags; --pair only when withPair is set.
func addPickFlags(fs *flag.FlagSet, variantHelp string, withPair bool) *pickFlags {
	p := &pickFlags{pair: new(string)}
	fs.Var(&p.variants, "variant", variantHelp)
	p.file = fs.String("file", "", "a kernel .S (a whole ftrace_64.S / mcount.S, or your trampoline): every trampoline it defines is checked")
	p.role = fs.String("role", "", "with --file: only entry, exit, or one symbol (ftrace_caller, ftrace_regs_caller, return_to_handler)")
	p.kern.add(fs)
	if withPair {
		fs.StringVar(p.pair, "pair", "", "the variant for the other role of --file or a single --variant (default: the intended pair; for a file its own trampoline of the other role, else the variant of its kernel model)")
	}
	return p
}

// tramps resolves the file (first) and each named variant; none chosen
// gives none.
func (p *pickFlags) tramps(a *regs.Arch) ([]harness.Tramp, error) {
	var out []harness.Tramp
	if *p.file != "" {
		ts, err := p.fileTramps(a, *p.file, "")
		if err != nil {
			return nil, err
		}
		out = append(out, ts...)
	} else if *p.role != "" {
		return nil, usagef("--role goes with --file")
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
	f, err := harness.LoadFile(a, file, o)
	if err != nil {
		return nil, usageError{err.Error()}
	}
	role := trampolines.Role(*p.role)
	switch role {
	case "", trampolines.Entry, trampolines.Exit:
		ts, err := f.Role(role)
		if err != nil {
			return nil, usageError{err.Error()}
		}
		return ts, nil
	}
	for _, t := range f.Tramps {
		if t.Symbol == *p.role {
			return []harness.Tramp{t}, nil
		}
	}
	var have []string
	for _, t := range f.Tramps {
		have = append(have, t.Symbol)
	}
	return nil, usagef("--role %q: %s defines %v with these options; give entry, exit or one of them", *p.role, file, have)
}

// partner resolves --pair for t: the named variant of the other role, or
// t's intended pair (for a file, its own trampoline of the other role or
// its model's variant).
func (p *pickFlags) partner(a *regs.Arch, t harness.Tramp) (harness.Tramp, error) {
	if *p.pair == "" {
		return harness.Pair(a, t)
	}
	other := trampolines.Entry
	if t.Role == trampolines.Entry {
		other = trampolines.Exit
	}
	return tramp(a, other, *p.pair)
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
		fmt.Fprintf(w, "%s: kernel model %s, %s\n", t.Source.Name, t.Model.Model.Name, t.Model.Reason)
	}
	if len(seen) > 0 {
		fmt.Fprintln(w)
	}
}
