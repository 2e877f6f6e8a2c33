package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"trampemu/asm"
	"trampemu/check"
	"trampemu/emu"
	"trampemu/ftrace"
	"trampemu/harness"
	"trampemu/native"
	"trampemu/regs"
	"trampemu/report"
	"trampemu/scenarios"
	"trampemu/trampolines"
)

// Version is the tool's version.
const Version = "0.1.0"

func cmdVersion(args []string, w io.Writer) error {
	rt, compiled := emu.UnicornVersion()
	fmt.Fprintf(w, "trampemu %s (Unicorn %s, built against API %s)\n", Version, rt, compiled)
	return nil
}

func archFlag(fs *flag.FlagSet, def string) *string {
	return fs.String("arch", def, "architecture: x86_64 or s390x")
}

func archOf(name string) (*regs.Arch, error) {
	a, err := regs.ArchByName(name)
	if err != nil {
		return nil, usageError{err.Error()}
	}
	return a, nil
}

func arches(name string) ([]*regs.Arch, error) {
	if name == "" || name == "all" {
		return regs.Arches, nil
	}
	a, err := archOf(name)
	if err != nil {
		return nil, err
	}
	return []*regs.Arch{a}, nil
}

func cmdAsm(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("asm", flag.ContinueOnError)
	arch := archFlag(fs, "")
	variant := fs.String("variant", "", "list a registry variant instead of a file")
	var defs multi
	fs.Var(&defs, "D", "preprocessor define NAME[=VALUE] (repeatable)")
	if err := parse(fs, args); err != nil {
		return err
	}
	a, err := archOf(*arch)
	if err != nil {
		return err
	}
	var src asm.Source
	var hdrs map[string][]byte
	var dirs []string
	switch {
	case *variant != "" && fs.NArg() == 0:
		v, err := harness.FindVariant(a, "", *variant)
		if err != nil {
			return usageError{err.Error()}
		}
		t, err := harness.FromVariant(v)
		if err != nil {
			return err
		}
		src, hdrs = t.Source, t.Headers
	case *variant == "" && fs.NArg() == 1:
		text, err := os.ReadFile(fs.Arg(0))
		if err != nil {
			return usageError{err.Error()}
		}
		src = asm.Source{Name: fs.Arg(0), Text: text}
		dirs = []string{filepath.Dir(fs.Arg(0))}
	default:
		return usagef("give one .S file or --variant NAME (see 'trampemu list --arch %s')", a.Name)
	}
	src.Unit = "code"
	defines := map[string]string{}
	for _, d := range defs {
		k, v, _ := strings.Cut(d, "=")
		defines[k] = v
	}
	hosts := append([]string{"ftrace_stub"}, harness.HostFuncs...)
	im, err := asm.Build(asm.Options{Arch: a, Defines: defines, HostFuncs: hosts, Headers: hdrs, IncludeDirs: dirs},
		src, asm.Source{Name: "provided data", Unit: "provided", Text: []byte(providedData(a))})
	if err != nil {
		return err
	}
	fmt.Fprint(w, asm.FormatListing(im))
	return nil
}

// providedData defines the kernel data symbols a trampoline may use, as
// weak zero words, so a file links on its own.
func providedData(a *regs.Arch) string {
	var b strings.Builder
	b.WriteString("\t.data\n")
	for _, s := range []string{"function_trace_op", "ftrace_func", "ftrace_trace_function"} {
		fmt.Fprintf(&b, "\t.weak %s\n%s:\t.quad 0\n", s, s)
	}
	return b.String()
}

func cmdList(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	arch := archFlag(fs, "all")
	if err := parse(fs, args); err != nil {
		return err
	}
	as, err := arches(*arch)
	if err != nil {
		return err
	}
	for _, a := range as {
		fmt.Fprintf(w, "%s variants:\n", a.Name)
		for _, v := range harness.VariantsOf(a, "") {
			tag := ""
			if !v.Kernel {
				tag = " [not merged]"
			}
			if v.Bug != "" {
				tag += " [known bug: " + v.Bug + "]"
			}
			fmt.Fprintf(w, "  %-6s %-26s %s (pairs with %s)%s\n", v.Role, v.Name, v.Model, v.Pair, tag)
		}
		fmt.Fprintf(w, "%s workloads:\n", a.Name)
		for _, wl := range trampolines.Workloads {
			if wl.Arch == "" || wl.Arch == a.Name {
				fmt.Fprintf(w, "  %-13s %s\n", wl.Name, wl.Doc)
			}
		}
	}
	fmt.Fprintln(w, "check scenarios (--scenario):")
	for _, s := range harness.Scenarios {
		fmt.Fprintf(w, "  %-11s %s\n", s.Name, s.Doc)
	}
	return nil
}

// parseArch parses a command's flags (no positional arguments) and
// resolves --arch.
func parseArch(fs *flag.FlagSet, args []string, arch *string) (*regs.Arch, error) {
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, usagef("unexpected arguments %v (a file goes with --file)", fs.Args())
	}
	return archOf(*arch)
}

// parseRun parses the flags of a command that runs a pairing (check,
// trace) and resolves the arch and the scenario, and checks the workloads
// (a func: they are known only after parsing).
func parseRun(fs *flag.FlagSet, args []string, arch, scenario *string, workloads func() []string) (*regs.Arch, harness.Scenario, error) {
	var none harness.Scenario
	a, err := parseArch(fs, args, arch)
	if err != nil {
		return nil, none, err
	}
	sc, err := harness.FindScenario(*scenario)
	if err != nil {
		return nil, none, usageError{err.Error()}
	}
	for _, wl := range workloads() {
		if _, err := harness.FindWorkload(a, wl); err != nil {
			return nil, none, usageError{err.Error()}
		}
	}
	return a, sc, nil
}

func cmdCheck(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	arch := archFlag(fs, "")
	pick := addPickFlags(fs, "variant to check (repeatable; default: every variant of the arch)", false)
	var workloads multi
	fs.Var(&workloads, "workload", "workload to run (repeatable; default: all)")
	scenario := fs.String("scenario", "default", "which kernel users are registered (see 'trampemu list')")
	calls := fs.Int("calls", 8, "calls per workload (1 to 100000), each with random registers and arguments")
	seed := fs.Uint64("seed", 1, "random seed")
	asJSON := fs.Bool("json", false, "print JSON")
	a, sc, err := parseRun(fs, args, arch, scenario, func() []string { return workloads })
	if err != nil {
		return err
	}
	tramps, err := pick.tramps(a)
	if err != nil {
		return err
	}
	if len(tramps) == 0 {
		if tramps, err = check.Variants(a, ""); err != nil {
			return err
		}
	}
	if err := checkCalls(*calls); err != nil {
		return err
	}
	started := checkProgress(a, tramps, len(workloads), *calls)
	var all []check.Result
	for _, t := range tramps {
		rs, err := check.Run(check.Config{Arch: a, Tramp: t, Workloads: workloads, Scenario: sc, Calls: *calls, Seed: *seed, Started: started})
		if err != nil {
			if t.Variant == nil {
				return explainFile(a, t, err)
			}
			return err
		}
		all = append(all, rs...)
	}
	if *asJSON {
		if err := report.WriteJSON(w, all); err != nil {
			return err
		}
	} else if err := report.CheckTable(w, all); err != nil {
		return err
	}
	for _, r := range all {
		if !r.OK {
			return errFindings
		}
	}
	return nil
}

// fullReport is what `trampemu report --json` prints.
type fullReport struct {
	Variants    []check.Summary        `json:"variants"`
	Scenarios   []scenarios.Outcome    `json:"scenarios"`
	ShadowStack []scenarios.MeasureRow `json:"shadow_stack"`
	// Native is the x86-64 pairings timed on the host CPU; NativeNote says
	// why there is none (a host that is not Linux x86-64, --native 0).
	Native     []native.Result `json:"native,omitempty"`
	NativeNote string          `json:"native_note,omitempty"`
}

func cmdReport(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	arch := archFlag(fs, "all")
	calls := fs.Int("calls", 8, "calls per (variant, workload) (1 to 100000), each with random registers")
	speed := fs.Uint64("speed", 200000, "traced calls per speed measurement (0: none)")
	nativeCalls := fs.Int("native", 200000, "calls per native timing loop of the x86-64 pairings on the host CPU (0: none)")
	asJSON := fs.Bool("json", false, "print JSON instead of Markdown")
	out := fs.String("out", "", "also write report.md and report.json into this folder")
	if err := parse(fs, args); err != nil {
		return err
	}
	as, err := arches(*arch)
	if err != nil {
		return err
	}
	if err := checkCalls(*calls); err != nil {
		return err
	}
	if *out != "" {
		if err := writableDir(*out); err != nil {
			return err
		}
	}
	var rep fullReport
	if rep.Variants, err = check.All(as, check.AllOptions{Calls: *calls, Seed: 1, SpeedN: *speed}); err != nil {
		return err
	}
	for _, sc := range scenarios.All() {
		for _, a := range as {
			o, err := sc.Run(a, ftrace.HeaderMerged)
			if err != nil {
				return fmt.Errorf("scenario %s on %s: %w", sc.Name, a.Name, err)
			}
			rep.Scenarios = append(rep.Scenarios, o)
		}
	}
	mc := scenarios.DefaultMeasureConfig()
	mc.Arches = as
	if rep.ShadowStack, err = scenarios.Measure(mc); err != nil {
		return err
	}
	if rep.Native, rep.NativeNote, err = nativeRows(as, *nativeCalls); err != nil {
		return err
	}
	write := func(w io.Writer, asJSON bool) error {
		if asJSON {
			return report.WriteJSON(w, rep)
		}
		return markdownReport(w, rep, *calls)
	}
	if *out != "" {
		if err := writeFiles(*out, []outFile{
			{"report.md", func(w io.Writer) error { return write(w, false) }},
			{"report.json", func(w io.Writer) error { return write(w, true) }},
		}); err != nil {
			return err
		}
	}
	if err := write(w, *asJSON); err != nil {
		return err
	}
	for _, s := range rep.Variants {
		if s.Regression() {
			return errFindings
		}
	}
	for _, o := range rep.Scenarios {
		if !o.OK {
			return errFindings
		}
	}
	for _, r := range rep.ShadowStack {
		if !r.OK {
			return errFindings
		}
	}
	return nil
}

func markdownReport(w io.Writer, rep fullReport, calls int) error {
	rt, _ := emu.UnicornVersion()
	notes := []string{
		fmt.Sprintf("trampemu %s on Unicorn %s. Costs are per traced call of the trampoline's own code (host stubs and workloads excluded), exact counts from block counters; ns/traced call is the whole traced call of `add` (fentry, entry trampoline, Go callbacks, function, return_to_handler) in the emulator with a function tracer and a graph user, checks off.", Version, rt),
		fmt.Sprintf("Scenario: %s. Each variant runs in its intended pairing on every workload with %d random register files.", mustScenario("default").Doc, calls),
	}
	if err := report.Markdown(w, "trampemu report", rep.Variants, notes); err != nil {
		return err
	}
	fmt.Fprintln(w, "## fgraph and fprobe scenarios (merged header, through the current trampolines)")
	fmt.Fprintln(w)
	if err := report.ScenarioTable(w, rep.Scenarios); err != nil {
		return err
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "## Shadow-stack cost per traced call (`add`) and traced depth (`chain`, 131 levels)")
	fmt.Fprintln(w)
	if err := scenarios.WriteMeasureTable(w, rep.ShadowStack); err != nil {
		return err
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "## x86-64 on the host CPU")
	fmt.Fprintln(w)
	if rep.NativeNote != "" {
		fmt.Fprintf(w, "Not run: %s.\n", rep.NativeNote)
		return nil
	}
	fmt.Fprintln(w, "Each pairing linked for the host and called natively, `add(1, 2)` in a loop: the fastest of 5 loops, with the call site a NOP (off), with a function tracer, and with a graph user (the exit trampoline runs on every return). The kernel functions are minimal assembly stand-ins, the same for every pairing (`trampolines/native/x86_64.S`), so the differences are the trampolines' own; the graph cost includes the mispredicted return the swapped return address causes.")
	fmt.Fprintln(w)
	return native.WriteTable(w, rep.Native)
}

// nativeRows times the x86-64 pairings on the host CPU when the report
// covers x86-64 and the host can run it; otherwise the note says why not.
func nativeRows(as []*regs.Arch, calls int) ([]native.Result, string, error) {
	covered := false
	for _, a := range as {
		covered = covered || a.Name == native.Arch.Name
	}
	switch {
	case !covered:
		return nil, "the report does not cover x86-64", nil
	case calls <= 0:
		return nil, "--native 0", nil
	}
	if err := native.Supported(); err != nil {
		return nil, err.Error(), nil
	}
	var rs []native.Result
	for _, j := range native.RegistryJobs(calls, 5) {
		r, err := native.Measure(j)
		if err != nil {
			return nil, "", err
		}
		rs = append(rs, r)
	}
	return rs, "", nil
}

func mustScenario(name string) harness.Scenario {
	s, _ := harness.FindScenario(name)
	return s
}

func cmdScenario(args []string, w io.Writer) error {
	return scenarioCommand(args, w)
}
