package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"trampemu/ftrace"
	"trampemu/harness"
	"trampemu/kernel"
	"trampemu/native"
	"trampemu/regs"
	"trampemu/report"
	"trampemu/scenarios"
	"trampemu/trampolines"
)

// fprobeFlag declares --fprobe on a command that runs a pairing.
func fprobeFlag(c *cobra.Command) *string {
	f := c.Flags().String("fprobe", "", "fprobe design whose return path runs: rethook (v5.18-v6.13, arch_rethook_trampoline) or fgraph (v6.14+, return_to_handler); default: the variant's own")
	_ = c.RegisterFlagCompletionFunc("fprobe", cobra.FixedCompletions([]string{"rethook", "fgraph"}, cobra.ShellCompDirectiveNoFileComp))
	return f
}

// parseFprobe reads --fprobe ("" is DesignNone: no override).
func parseFprobe(s string) (ftrace.FprobeDesign, error) {
	if s == "" {
		return ftrace.DesignNone, nil
	}
	d, err := ftrace.ParseFprobeDesign(s)
	if err != nil {
		return d, usageError{err.Error()}
	}
	return d, nil
}

// designTramps applies --fprobe to the chosen trampolines: rethook keeps
// the entries and the arch_rethook_trampoline variants (all of the arch's
// when none was chosen), fgraph drops the rethook ones.
func designTramps(a *regs.Arch, d ftrace.FprobeDesign, tramps []harness.Tramp) ([]harness.Tramp, error) {
	if d == ftrace.DesignNone {
		return tramps, nil
	}
	if d == ftrace.DesignRethook && len(tramps) == 0 {
		for _, v := range harness.VariantsOf(a, trampolines.Rethook) {
			t, err := harness.FromVariant(v)
			if err != nil {
				return nil, err
			}
			tramps = append(tramps, t)
		}
		return tramps, nil
	}
	var out []harness.Tramp
	for _, t := range tramps {
		rethook := t.Role == trampolines.Rethook
		switch {
		case t.Role == trampolines.Entry, rethook == (d == ftrace.DesignRethook):
			out = append(out, t)
		case len(tramps) == 1:
			return nil, usagef("--fprobe %s: %s is a %s trampoline (the %s design's return path is %s)", d, t.Name, t.Role, d, designExit(d))
		}
	}
	return out, nil
}

func designExit(d ftrace.FprobeDesign) string {
	if d == ftrace.DesignRethook {
		return "arch_rethook_trampoline"
	}
	return "return_to_handler"
}

// designPartner is an entry's partner under --fprobe rethook: the arch's
// arch_rethook_trampoline (nil: the usual partner).
func designPartner(a *regs.Arch, d ftrace.FprobeDesign, t harness.Tramp) (*harness.Tramp, error) {
	if d != ftrace.DesignRethook || t.Role != trampolines.Entry {
		return nil, nil
	}
	p, err := tramp(a, trampolines.Rethook, "rethook")
	return &p, err
}

const fprobeUsage = "usage: trampemu fprobe [--arch A|all] [--probes 1,2,8,64] [--cpus N] [--tasks N] [--kernel vX.Y] [--native 10s] [--json]"

// cmdFprobe is `trampemu fprobe`: the fprobe question's numbers.
func cmdFprobe(c *cobra.Command) runFunc {
	fs := c.Flags()
	arch := archFlag(fs, "all")
	probes := fs.String("probes", "1,2,8,64", "numbers of fprobes per cell, comma-separated")
	cpus := fs.Int("cpus", scenarios.DefaultCompareConfig().CPUs, "possible CPUs the memory figures are for (rethook pools)")
	tasks := fs.Int("tasks", scenarios.DefaultCompareConfig().Tasks, "tasks the memory figures are for (shadow stacks)")
	kern := fs.String("kernel", "", "also say which design a kernel version vX.Y uses on each arch")
	asJSON := fs.Bool("json", false, "print JSON: {fprobe_designs: [...], fgraph_modes: [...]}")
	nativeBudget := fs.Duration("native", 0, "also time both return paths on the host CPU (x86-64) for this long, e.g. 10s (0: not timed)")
	return func(args []string, w io.Writer) error {
		if len(args) > 0 {
			return usagef("unexpected arguments %v; %s", args, fprobeUsage)
		}
		as, err := arches(*arch)
		if err != nil {
			return err
		}
		var ns []int
		for _, f := range strings.Split(*probes, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 || n > 1024 {
				return usagef("--probes %q: want numbers from 1 to 1024 separated by commas, e.g. 1,2,8,64", *probes)
			}
			ns = append(ns, n)
		}
		if *cpus < 1 || *cpus > 8192 || *tasks < 1 || *tasks > 10_000_000 {
			return usagef("--cpus %d --tasks %d: want 1..8192 CPUs and 1..10000000 tasks", *cpus, *tasks)
		}
		var eras []string
		if *kern != "" {
			v, err := kernel.ParseVersion(*kern)
			if err != nil {
				return usageError{err.Error()}
			}
			for _, a := range as {
				e := kernel.FprobeEraFor(a.Name, v)
				form := ""
				if e.Design == ftrace.DesignRethook {
					form = fmt.Sprintf(" (%s form: %s pool)", e.Rethook.Name, e.Rethook.Pool)
				}
				eras = append(eras, fmt.Sprintf("%s %s: fprobe design %s%s", a.Name, v, e.Design, form))
			}
		}
		cfg := scenarios.DefaultCompareConfig()
		cfg.Arches, cfg.Probes, cfg.CPUs, cfg.Tasks = as, ns, *cpus, *tasks
		cmp, err := scenarios.CompareFprobe(cfg)
		if err != nil {
			return err
		}
		if err := fprobeNative(&cmp, as, *nativeBudget); err != nil {
			return err
		}
		if *asJSON {
			return cmp.WriteJSON(w)
		}
		for _, e := range eras {
			fmt.Fprintln(w, e)
		}
		return report.FprobeSection(w, cmp)
	}
}

// fprobeNative times the two return paths on the host CPU for --native
// when the arches include the host's, or says why not.
func fprobeNative(cmp *scenarios.Comparison, as []*regs.Arch, budget time.Duration) error {
	covered := false
	for _, a := range as {
		covered = covered || native.Covers(a)
	}
	switch {
	case budget < 0:
		return usagef("--native %v: want a duration of 0 or more", budget)
	case budget == 0:
		cmp.NativeNote = "not timed (--native 10s times them)"
		return nil
	case !covered:
		cmp.NativeNote = "not timed: the arches asked for do not include the host's (" + native.Arch.Name + ")"
		return nil
	}
	if err := native.Supported(); err != nil {
		cmp.NativeNote = "not timed: " + err.Error()
		return nil
	}
	cfg, err := report.FprobeNativeConfig(budget)
	if err != nil {
		return err
	}
	st, err := native.Run(cfg)
	if err != nil {
		return err
	}
	return report.AttachNativeFprobe(cmp, st)
}
