package main

import (
	"flag"

	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
)

// pickFlags are the flags that choose trampolines, shared by check, trace
// and native: --variant (repeatable), --file with --role, and --pair.
type pickFlags struct {
	variants         multi
	file, role, pair *string
}

// addPickFlags registers the flags; --pair only when withPair is set.
func addPickFlags(fs *flag.FlagSet, variantHelp string, withPair bool) *pickFlags {
	p := &pickFlags{pair: new(string)}
	fs.Var(&p.variants, "variant", variantHelp)
	p.file = fs.String("file", "", "your kernel-style .S (defines ftrace_caller or return_to_handler)")
	p.role = fs.String("role", "", "with --file: entry or exit")
	if withPair {
		fs.StringVar(p.pair, "pair", "", "the variant for the other role of --file or a single --variant (default: the intended pair, for a file the kernel's current one)")
	}
	return p
}

// tramps resolves the file (first) and each named variant; none chosen
// gives none.
func (p *pickFlags) tramps(a *regs.Arch) ([]harness.Tramp, error) {
	var out []harness.Tramp
	if *p.file != "" {
		if err := checkFile(*p.file); err != nil {
			return nil, err
		}
		t, err := harness.FromFile(a, *p.file, trampolines.Role(*p.role))
		if err != nil {
			return nil, usageError{err.Error()}
		}
		out = append(out, t)
	} else if *p.role != "" {
		return nil, usagef("--role goes with --file")
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

// partner resolves --pair for t: the named variant of the other role, or
// t's intended pair (for a file, the kernel's current variant).
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
