package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"trampemu/harness"
	"trampemu/kernel"
	"trampemu/native"
	"trampemu/regs"
	"trampemu/report"
	"trampemu/trampolines"
)

// cmdNative times x86-64 pairings on the host CPU (package native).
func cmdNative(c *cobra.Command) runFunc {
	fs := c.Flags()
	arch := fs.StringP("arch", "a", native.Arch.Name, "architecture: "+native.Arch.Name+" only (the host CPU's; the others are emulated only)")
	pick := addPickFlags(fs, "variant `NAME` to time in its intended pairing (repeatable; default: every x86-64 variant)", true)
	var compares []string
	fs.StringArrayVar(&compares, "compare", nil, "`A,B`: report B minus A per mode with its 95% interval and p (repeatable); A and B are variant names (their intended pairing) or ENTRY+EXIT; an A/A control is added")
	calls := fs.IntP("calls", "n", 2000, "calls per sample (each sample is one timed loop)")
	warmup := fs.Int("warmup", 500, "untimed calls before each sample")
	budget := fs.Duration("budget", 20*time.Second, "time budget of the sampling rounds")
	target := fs.Float64("target", 1, "the interval half-width (of the comparisons, else of the medians) the run should reach, in ns: reported as reached or not (the run spends its whole budget, so that its blocks span it)")
	rounds := fs.Int("rounds", 40, "interleaved rounds per generation of child processes")
	minGen := fs.Int("min-generations", 6, "generations (fresh child processes) at least; 6 is the fewest for a 95% interval")
	maxGen := fs.Int("max-generations", 0, "generations at most (0: until the budget is spent)")
	cpu := fs.Int("cpu", -1, "CPU to pin the children to (-1: the highest allowed)")
	format := formatFlag(c, "table", "table (Markdown) or bench (Go benchmark lines for benchstat)", "table", "bench")
	asJSON := fs.Bool("json", false, "print JSON")
	return func(args []string, w io.Writer) error {
		a, err := parseArch(args, arch)
		if err != nil {
			return err
		}
		if err := checkRange("--calls", *calls, 1, 1_000_000_000); err != nil {
			return err
		}
		if a.Name != native.Arch.Name {
			return usagef("native timing runs x86-64 code on the host; %s is timed in the emulator (trampemu check, make bench)", a.Name)
		}
		if *format != "table" && *format != "bench" {
			return usagef("--format %q: valid are table, bench", *format)
		}
		if *calls <= 0 || *rounds <= 0 || *warmup < 0 || *minGen < 0 || *maxGen < 0 || *target <= 0 {
			return usagef("--calls, --rounds and --target must be positive, --warmup, --min-generations and --max-generations not negative")
		}
		if err := native.Supported(); err != nil {
			return err
		}
		tramps, err := pick.tramps(native.Arch)
		if err != nil {
			return err
		}
		cfg := native.Config{Calls: *calls, Warmup: *warmup, Budget: *budget, TargetNs: *target, Rounds: *rounds, MinGenerations: *minGen, MaxGenerations: *maxGen, CPU: *cpu}
		seen := map[string]bool{}
		add := func(j native.Job) {
			if !seen[j.Name()] {
				seen[j.Name()] = true
				cfg.Jobs = append(cfg.Jobs, j)
			}
		}
		for _, t := range tramps {
			if t.Variant == nil && (t.Measure != "" || (t.Symbol != "ftrace_caller" && t.Symbol != "return_to_handler")) {
				// The child rebuilds a file's pairing from its path and role
				// (FromFile: ftrace_caller, return_to_handler).
				continue
			}
			partner, err := pick.partner(native.Arch, t)
			if err != nil {
				return err
			}
			// The child rebuilds the pairing from names (and the file's path).
			spec, other := fileSpec(pick, t), fileSpec(pick, partner)
			j := native.Job{Arch: a.Name, Entry: spec, Exit: other}
			if t.Role == trampolines.Exit {
				j.Entry, j.Exit = j.Exit, j.Entry
			}
			add(j) // a file's entry and exit make one pairing
		}
		for _, c := range compares {
			as, bs, ok := strings.Cut(c, ",")
			if !ok {
				return usagef("--compare %q: give A,B", c)
			}
			var pair [2]string
			for i, s := range []string{as, bs} {
				j, err := native.ParsePairing(strings.TrimSpace(s))
				if err != nil {
					return usageError{err.Error()}
				}
				add(j)
				pair[i] = j.Name()
			}
			cfg.Compare = append(cfg.Compare, pair)
		}
		if len(cfg.Jobs) == 0 {
			cfg.Jobs = native.RegistryJobs()
		}
		st, err := native.Run(cfg)
		if err != nil {
			// The pairings built but did not run: the trampolines' fault.
			fmt.Fprintf(w, "%v\n", err)
			return errFindings
		}
		switch {
		case *asJSON:
			return report.WriteJSON(w, st)
		case *format == "bench":
			return native.WriteBench(w, st)
		}
		fmt.Fprintln(w, "Host CPU time per call of add(1, 2); the kernel functions are minimal assembly stand-ins (trampolines/native/x86_64.S).")
		fmt.Fprintln(w, nativeOnly())
		if err := native.WriteInfo(w, st); err != nil {
			return err
		}
		fmt.Fprintln(w)
		if err := native.WriteTable(w, st); err != nil {
			return err
		}
		if len(st.Compare) > 0 {
			fmt.Fprintln(w)
			return native.WriteCompare(w, st)
		}
		return nil
	}
}

// nativeSection times the x86-64 pairings on the host CPU for the report
// when it covers x86-64 and the host can run it (otherwise the note says
// why not), and states the headline effects next to the exact emulated
// differences of the exit trampolines.
func nativeSection(rep *fullReport, as []*regs.Arch, budget time.Duration) error {
	covered := false
	for _, a := range as {
		covered = covered || native.Covers(a)
	}
	switch {
	case !covered:
		rep.NativeNote = "the report does not cover x86-64"
		return nil
	case budget <= 0:
		rep.NativeNote = "--native 0"
		return nil
	}
	if err := native.Supported(); err != nil {
		rep.NativeNote = err.Error()
		return nil
	}
	cfg := native.ReportConfig()
	cfg.Budget = budget
	return nativeSectionWith(rep, cfg, native.HeadlineEffects)
}

// nativeSectionWith runs cfg and states effects.
func nativeSectionWith(rep *fullReport, cfg native.Config, effects []native.Effect) error {
	st, err := native.Run(cfg)
	if err != nil {
		return err
	}
	cost := map[string]native.EmulatedCost{}
	for _, s := range rep.Variants {
		if s.Arch == native.Arch.Name && s.Role == string(trampolines.Exit) {
			cost[s.Variant] = native.EmulatedCost{Instructions: s.Metrics.Instructions, Stores: s.Metrics.Stores, StoreBytes: s.Metrics.StoreBytes}
		}
	}
	rep.nativeStats = st
	rep.Native, rep.NativeCompare, rep.NativeRun = st.Rows, st.Compare, &st.Info
	rep.NativeHeadline = native.Headline(st, effects, cost)
	native.AttachReruns(rep.NativeHeadline, rep.NativeStability)
	return nil
}

// nativeOnly says which arch the native timing covers and why: the host
// CPU runs only its own code; the others of regs.Arches are emulated only.
func nativeOnly() string {
	var others []string
	for _, a := range regs.Arches {
		if !native.Covers(a) {
			others = append(others, a.Name)
		}
	}
	return fmt.Sprintf("Native timing is %s only because the host CPU is %s: %s are emulated only.",
		native.Arch.Name, native.Arch.Name, strings.Join(others, " and "))
}

// writeNativeSection renders the report's native section.
func writeNativeSection(w io.Writer, rep fullReport) error {
	fmt.Fprintln(w, "## x86-64 on the host CPU")
	fmt.Fprintln(w)
	fmt.Fprintln(w, nativeOnly())
	fmt.Fprintln(w)
	if rep.NativeNote != "" {
		fmt.Fprintf(w, "Not run: %s.\n", rep.NativeNote)
		return nil
	}
	st := rep.nativeStats
	fmt.Fprintln(w, "Each pairing linked for the host and called natively, `add(1, 2)` in a loop, with the call site a NOP (off), with a function tracer, and with a graph user (the exit trampoline runs on every return), one child process per pairing. The kernel functions are minimal assembly stand-ins, the same for every pairing (`trampolines/native/x86_64.S`), so the differences are the trampolines' own.")
	if err := native.WriteInfo(w, st); err != nil {
		return err
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "### "+report.HeadingNativeHeadline)
	fmt.Fprintln(w)
	if err := native.WriteHeadline(w, rep.NativeHeadline); err != nil {
		return err
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "### Per pairing (median ns per call, 95% interval)")
	fmt.Fprintln(w)
	if err := native.WriteTable(w, st); err != nil {
		return err
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "### Comparisons (B minus A: median over the blocks of the per-round differences, 95% interval; p of the Wilcoxon signed-rank test of the block differences (paired), with the smallest p its number of blocks can give; a difference is significant only when p < 0.05 and its interval excludes zero, the same rule as the headline; the A/A control is the base pairing in two child processes)")
	fmt.Fprintln(w)
	return native.WriteCompare(w, st)
}

// fileSpec names t for the child process: a variant by name, a kernel
// file by path and role with the model it was judged by and the CONFIG
// choices (a tree's .config included).
func fileSpec(pick *pickFlags, t harness.Tramp) native.Spec {
	if t.Variant != nil {
		return native.Spec{Variant: t.Name}
	}
	ff := pick.kern.flags()
	if ff.Kernel == "" && t.Model != nil && t.Model.Makefile != (kernel.Version{}) {
		// The child judges the file as this process did: from its text,
		// in the tree's version.
		ff.Makefile = t.Model.Makefile.String()
	}
	if ff.Config == "" && pick.opened != nil && pick.opened.ConfigFor(native.Arch.Name) != nil {
		ff.Config = filepath.Join(pick.opened.Dir, ".config")
	}
	return native.Spec{File: t.Source.Name, Role: t.Role, Flags: ff}
}
