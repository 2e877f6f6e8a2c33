package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"trampemu/asm"
	"trampemu/check"
	"trampemu/emu"
	"trampemu/ftrace"
	"trampemu/harness"
	"trampemu/kernel"
	"trampemu/mutate"
	"trampemu/native"
	"trampemu/regs"
	"trampemu/report"
	"trampemu/scenarios"
	"trampemu/trampolines"
)

// Version is the tool's version.
const Version = "0.1.0"

func cmdVersion(*cobra.Command) runFunc {
	return func(args []string, w io.Writer) error {
		if len(args) > 0 {
			return usagef("unexpected arguments %v", args)
		}
		rt, compiled := emu.UnicornVersion()
		fmt.Fprintf(w, "trampemu %s (Unicorn %s, built against API %s)\n", Version, rt, compiled)
		if ot, err := asm.FindObjtool(); err == nil {
			fmt.Fprintf(w, "objtool: %s\n", ot)
		} else {
			fmt.Fprintf(w, "objtool: %v\n", err)
		}
		return nil
	}
}

func archFlag(fs *pflag.FlagSet, def string) *string {
	if def == "all" {
		return fs.StringP("arch", "a", def, "architecture: "+archNames(", ")+" or all (every one)")
	}
	return fs.StringP("arch", "a", def, "architecture: "+archNames(" or "))
}

// archNames lists regs.Arches by name, the last one after last: "x86_64,
// s390x or arm64".
func archNames(last string) string {
	names := make([]string, len(regs.Arches))
	for i, a := range regs.Arches {
		names[i] = a.Name
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + last + names[len(names)-1]
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

func cmdAsm(c *cobra.Command) runFunc {
	fs := c.Flags()
	arch := archFlag(fs, "")
	variant := fs.String("variant", "", "list a registry variant instead of a file")
	kern := addKernelFlags(fs)
	return func(args []string, w io.Writer) error {
		a, err := archOf(*arch)
		if err != nil {
			return err
		}
		var src asm.Source
		var hdrs map[string][]byte
		var dirs []string
		switch {
		case *variant != "" && len(args) == 0:
			v, err := harness.FindVariant(a, "", *variant)
			if err != nil {
				return usageError{err.Error()}
			}
			t, err := harness.FromVariant(v)
			if err != nil {
				return err
			}
			src, hdrs = t.Source, t.Headers
			src.Headers = harness.FregsHeaders(a, t.FrameLayout(a))
		case *variant == "" && len(args) == 1:
			if err := checkText(args[0], args[0]); err != nil {
				return err
			}
			text, err := os.ReadFile(args[0])
			if err != nil {
				return usageError{err.Error()}
			}
			src = asm.Source{Name: args[0], Text: text, Dir: filepath.Dir(args[0])}
			dirs = []string{filepath.Dir(args[0])}
			// A kernel file is built as check builds it: its model's CONFIG
			// options (or --config), then -D / -U; a file that fits no model
			// gets only -D / -U.
			o, err := kern.fileOptions(a)
			if err != nil {
				return err
			}
			var m *kernel.Model
			if o.Kernel != nil {
				m = o.Kernel.Model
			} else if c, err := kernel.Detect(a.Name, text); err == nil {
				m = c.Model
			}
			c, err := harness.FileConfig(m, o)
			if err != nil {
				return usageError{err.Error()}
			}
			src.Defines = c.Defines()
			if m != nil {
				src.Headers = harness.FregsHeaders(a, a.FregsLayout(m.Fregs, src.Defines))
			}
		default:
			return usagef("give one .S file or --variant NAME (see 'trampemu list --arch %s')", a.Name)
		}
		src.Unit = "code"
		if *variant != "" && kern.used() {
			return usagef("--kernel, --config, -D and -U go with a file (a variant carries its own options)")
		}
		hosts := harness.StandaloneHostFuncs
		im, err := asm.Build(asm.Options{Arch: a, HostFuncs: hosts, Headers: hdrs, IncludeDirs: dirs},
			src, asm.Source{Name: "provided data", Unit: "provided", Text: []byte(harness.ProvidedData())},
			asm.Source{Name: "kernel stand-ins", Unit: "kernel", Text: []byte(kernel.StandIns(a.Name))})
		if err != nil {
			return err
		}
		fmt.Fprint(w, asm.FormatListing(im))
		return nil
	}
}

func cmdList(c *cobra.Command) runFunc {
	fs := c.Flags()
	arch := archFlag(fs, "all")
	config := fs.Bool("config", false, "list the kernel models and the CONFIG options of each (a distribution kernel's), which --file and --tree use by default")
	return func(args []string, w io.Writer) error {
		as, err := arches(*arch)
		if err != nil {
			return err
		}
		if *config {
			return listModels(w, as)
		}
		for _, a := range as {
			fmt.Fprintf(w, "%s variants:\n", a.Name)
			for _, v := range harness.VariantsOf(a, "") {
				tag := ""
				switch {
				case v.Experiment:
					tag = " [experiment]"
				case !v.Kernel:
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
		for _, s := range harness.UserSets {
			fmt.Fprintf(w, "  %-11s %s\n", s.Name, s.Doc)
		}
		return nil
	}
}

// listModels prints each arch's kernel models with their CONFIG options.
func listModels(w io.Writer, as []*regs.Arch) error {
	for _, a := range as {
		fmt.Fprintf(w, "%s kernel models (--kernel vX.Y; a file's model is found from the file):\n", a.Name)
		for _, m := range kernel.ModelsOf(a.Name) {
			fmt.Fprintf(w, "  %-12s %s\n", m.Name, m.Doc)
			fmt.Fprintf(w, "               graph entry %s, exit ABI %s; pairs with %s / %s\n", m.Graph, m.ExitABI,
				m.Partner[trampolines.Entry], m.Partner[trampolines.Exit])
			fmt.Fprintf(w, "               defaults: %s\n", strings.Join(configWords(m.Config), " "))
			for _, b := range m.KnownBugs {
				// kind, slot and %register as a finding of the bug prints them
				f := check.Finding{Kind: check.Kind(b.Kind), Slot: b.Slot, Register: b.Register, Message: b.Cause}
				fmt.Fprintf(w, "               known kernel bug: %s (%s): %s\n", b.Symbol, b.Citation(), f)
			}
		}
	}
	return nil
}

// modelsMarkdown renders every arch's kernel models with their default
// CONFIG options as a Markdown table.
func modelsMarkdown(w io.Writer) {
	fmt.Fprintln(w, "| arch | model | graph entry | exit ABI | partners | default CONFIG options (a distribution kernel's) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, a := range regs.Arches {
		for _, m := range kernel.ModelsOf(a.Name) {
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s / %s | %s |\n", a.Name, m.Name, m.Graph, m.ExitABI,
				m.Partner[trampolines.Entry], m.Partner[trampolines.Exit], strings.Join(configWords(m.Config), " "))
		}
	}
}

func configWords(c kernel.Config) []string {
	var out []string
	for _, k := range c.Names() {
		if v := c[k]; v == "y" {
			out = append(out, k)
		} else {
			out = append(out, k+"="+v)
		}
	}
	return out
}

// parseArch checks a command has no positional arguments and resolves
// --arch.
func parseArch(args []string, arch *string) (*regs.Arch, error) {
	if len(args) > 0 {
		return nil, usagef("unexpected arguments %v (a file goes with --file)", args)
	}
	return archOf(*arch)
}

// parseRun checks the arguments of a command that runs a pairing (check,
// trace), resolves the arch and the scenario, and checks the workloads
// (a func: they are known only after parsing).
func parseRun(args []string, arch, scenario *string, workloads func() []string) (*regs.Arch, harness.UserSet, error) {
	var none harness.UserSet
	a, err := parseArch(args, arch)
	if err != nil {
		return nil, none, err
	}
	sc, err := harness.FindUserSet(*scenario)
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

func cmdCheck(c *cobra.Command) runFunc {
	fs := c.Flags()
	arch := archFlag(fs, "")
	pick := addPickFlags(fs, "variant `NAME` to check (repeatable; default: every variant of the arch)", false)
	pick.addPatchFlag(fs)
	var workloads []string
	fs.StringArrayVarP(&workloads, "workload", "w", nil, "workload `NAME` to run (repeatable; default: all)")
	scenario := fs.StringP("scenario", "s", "default", "which kernel users are registered (see 'trampemu list')")
	calls := fs.IntP("calls", "n", 8, "calls per workload (1 to 100000), each with random registers and arguments")
	seed := fs.Uint64("seed", 1, "random seed")
	asJSON := fs.Bool("json", false, "print JSON")
	fprobe := fprobeFlag(c)
	return func(args []string, w io.Writer) error {
		if len(args) > 0 {
			return usagef("unexpected arguments %v (a file goes with --file)", args)
		}
		design, err := parseFprobe(*fprobe)
		if err != nil {
			return err
		}
		as, err := pick.archNames(*arch)
		if err != nil {
			return err
		}
		sc, err := harness.FindUserSet(*scenario)
		if err != nil {
			return usageError{err.Error()}
		}
		if err := checkCalls(*calls); err != nil {
			return err
		}
		for _, a := range as {
			for _, wl := range workloads {
				if _, err := harness.FindWorkload(a, wl); err != nil {
					return usageError{err.Error()}
				}
			}
		}
		run := func(as []*regs.Arch, pick *pickFlags) ([]check.Result, []harness.Tramp, error) {
			var all []check.Result
			var used []harness.Tramp
			for _, a := range as {
				tramps, err := pick.tramps(a)
				if err != nil {
					return nil, nil, err
				}
				if len(tramps) == 0 && design != ftrace.DesignRethook {
					if tramps, err = check.Variants(a, ""); err != nil {
						return nil, nil, err
					}
				}
				if tramps, err = designTramps(a, design, tramps); err != nil {
					return nil, nil, err
				}
				started := checkProgress(a, tramps, len(workloads), *calls)
				for _, t := range tramps {
					partner, err := designPartner(a, design, t)
					if err != nil {
						return nil, nil, err
					}
					rs, err := check.Run(check.Config{Arch: a, Tramp: t, Partner: partner, Workloads: workloads, Scenario: sc, Calls: *calls, Seed: *seed, Started: started})
					if err != nil {
						if t.Variant == nil {
							return nil, nil, explainFile(a, t, err)
						}
						return nil, nil, err
					}
					all = append(all, rs...)
					pick.notes = append(pick.notes, sc.NotApplicable(t)...)
				}
				used = append(used, tramps...)
			}
			return all, used, nil
		}
		if *pick.patch != "" {
			return checkPatch(w, as, pick, run, *asJSON)
		}
		all, tramps, err := run(as, pick)
		if err != nil {
			return err
		}
		if *asJSON {
			notes := pick.notes
			if notes == nil {
				notes = []string{}
			}
			if err := report.WriteJSON(w, checkOutput{Results: all, Notes: notes}); err != nil {
				return err
			}
		} else {
			modelLines(w, tramps)
			if err := report.CheckTable(w, all); err != nil {
				return err
			}
			writeNotes(w, pick.notes)
		}
		for _, r := range all {
			if !r.OK {
				return errFindings
			}
		}
		return nil
	}
}

// checkOutput is what `trampemu check --json` prints: the results and the
// notes (trampolines the options compiled out of a file checked without
// --role).
type checkOutput struct {
	Results []check.Result `json:"results"`
	Notes   []string       `json:"notes"`
}

// writeNotes prints each note on a line of its own after the table.
func writeNotes(w io.Writer, notes []string) {
	if len(notes) > 0 {
		fmt.Fprintln(w)
	}
	for _, n := range notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

// checkPatch checks --tree or --file before and after --patch and prints
// both and the delta per trampoline.
func checkPatch(w io.Writer, as []*regs.Arch, pick *pickFlags,
	run func([]*regs.Arch, *pickFlags) ([]check.Result, []harness.Tramp, error), asJSON bool) error {
	after := *pick
	switch {
	case *pick.tree != "":
		t, err := pick.openTree()
		if err != nil {
			return err
		}
		pt, done, err := kernel.PatchedTree(t, *pick.patch)
		if err != nil {
			return usageError{err.Error()}
		}
		defer done()
		dir := pt.Dir
		after.tree, after.opened = &dir, pt
	case *pick.file != "":
		f, done, err := kernel.PatchedFile(*pick.file, *pick.patch)
		if err != nil {
			return usageError{err.Error()}
		}
		defer done()
		after.file, after.fileName, after.includeDir = &f, filepath.Base(*pick.file), filepath.Dir(*pick.file)
	default:
		return usagef("--patch goes with --tree DIR or --file F.S")
	}
	var rep report.PatchReport
	var bt, at []harness.Tramp
	var err error
	if rep.Before, bt, err = run(as, pick); err != nil {
		return err
	}
	if rep.After, at, err = run(as, &after); err != nil {
		return err
	}
	rep.Delta = report.PatchDelta(rep.Before, rep.After)
	if asJSON {
		if err := report.WriteJSON(w, rep); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(w, "Before %s:\n", *pick.patch)
		modelLines(w, bt)
		if err := report.CheckTable(w, rep.Before); err != nil {
			return err
		}
		fmt.Fprintf(w, "\nAfter %s:\n", *pick.patch)
		modelLines(w, at)
		if err := report.CheckTable(w, rep.After); err != nil {
			return err
		}
		fmt.Fprintln(w)
		if err := report.DeltaTable(w, rep.Delta); err != nil {
			return err
		}
	}
	for _, r := range rep.After {
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
	// Fprobe is the fprobe question's comparison (rethook against fgraph).
	Fprobe *scenarios.Comparison `json:"fprobe,omitempty"`
	// Native is the x86-64 pairings timed on the host CPU (per pairing and
	// mode, with intervals), NativeCompare the differences with the A/A
	// control, NativeHeadline the effects the report states; NativeNote
	// says why there is none (a host that is not Linux x86-64, --native 0).
	Native         []native.Row         `json:"native,omitempty"`
	NativeCompare  []native.Comparison  `json:"native_compare,omitempty"`
	NativeRun      *native.RunInfo      `json:"native_run,omitempty"`
	NativeHeadline []native.HeadlineRow `json:"native_headline,omitempty"`
	// NativeStability is the rerun experiment read from the output
	// folder's stability.json (make bench-stability), when there is one.
	NativeStability *native.Stability `json:"native_stability,omitempty"`
	NativeNote      string            `json:"native_note,omitempty"`
	nativeStats     *native.Stats
	// Exactness proves every variant's cost (report_extra.go); Emulation
	// is the emulator's speed per arch against raw Unicorn; Charts the
	// charts written next to report.md.
	Exactness     []check.Exactness          `json:"exactness"`
	Emulation     map[string]check.Emulation `json:"emulation,omitempty"`
	Charts        []report.Chart             `json:"charts,omitempty"`
	emulationList []check.Emulation
	// Mutation is the summary of the last `make mutate` in the output
	// folder (mutate.json), MutationNote says where it came from or why
	// there is none: mutating every variant takes minutes, so the report
	// reads it instead of running it.
	Mutation     []mutate.Summary `json:"mutation,omitempty"`
	MutationNote string           `json:"mutation_note"`
	// Tree is the check of --tree's trampoline files, when given.
	Tree    []check.Result `json:"tree,omitempty"`
	TreeDir string         `json:"tree_dir,omitempty"`
	treeTr  []harness.Tramp
}

// reportProgress makes the report's progress bar (a test counts its
// steps).
var reportProgress = func(total int) *progress { return newProgress(total, isTerminal(os.Stderr), os.Stderr) }

func cmdReport(c *cobra.Command) runFunc {
	fs := c.Flags()
	arch := archFlag(fs, "all")
	calls := fs.IntP("calls", "n", 8, "calls per (variant, workload) (1 to 100000), each with random registers")
	speed := fs.Uint64("speed", 0, "traced calls per per-variant speed measurement, JSON only (0: none)")
	emuCalls := fs.Uint64("emu-calls", 2000, "traced calls per run of the emulator-speed measurement (0: none; short runs, so that few rounds are preempted on a loaded machine)")
	emuRepeats := fs.Int("emu-repeats", 31, "interleaved rounds of the emulator-speed measurement (the ratio is the median of the rounds')")
	exact := fs.Bool("exact", true, "prove every variant's cost with the per-instruction counter")
	nativeBudget := fs.Duration("native", 20*time.Second, "time budget of the native timing of the x86-64 pairings on the host CPU (0: none)")
	asJSON := fs.Bool("json", false, "print JSON instead of Markdown")
	out := fs.StringP("out", "o", "", "also write report.md and report.json into this folder")
	tree := fs.StringP("tree", "t", "", "also check this kernel tree's trampoline files (as check --tree does)")
	return func(args []string, w io.Writer) error {
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
		if *out != "" {
			if rep.Mutation, rep.MutationNote, err = readMutation(filepath.Join(*out, "mutate.json")); err != nil {
				return err
			}
			if rep.NativeStability, err = native.ReadStability(filepath.Join(*out, "stability.json")); err != nil {
				return usagef("%v", err)
			}
		}
		nv := 0
		for _, a := range as {
			nv += len(harness.VariantsOf(a, ""))
		}
		// One step per checked variant, per scenario and arch, the shadow-stack
		// measurements, per proven variant, per arch's emulator speed, the
		// native timing and the charts: the steps that will run.
		steps := nv + len(scenarios.All())*len(as) + 3
		if *exact {
			steps += nv
		}
		if *emuCalls > 0 && *emuRepeats > 0 {
			steps += len(as)
		}
		bar := reportProgress(steps)
		defer bar.finish()
		if *tree != "" {
			if rep.Tree, rep.treeTr, err = checkTree(*tree, as, *calls); err != nil {
				return err
			}
			rep.TreeDir = *tree
		}
		if rep.Variants, err = check.All(as, check.AllOptions{Calls: *calls, Seed: 1, SpeedN: *speed,
			Progress: func(arch, v string) { bar.step("checked " + arch + " " + v) }}); err != nil {
			return err
		}
		for _, sc := range scenarios.All() {
			for _, a := range as {
				o, err := sc.Run(a, ftrace.HeaderMerged)
				if err != nil {
					return fmt.Errorf("scenario %s on %s: %w", sc.Name, a.Name, err)
				}
				rep.Scenarios = append(rep.Scenarios, o)
				if sc.Designs { // and on the rethook design (v5.18-v6.13)
					o, err := sc.RunDesign(a, ftrace.HeaderMerged, ftrace.DesignRethook, nil)
					if err != nil {
						return fmt.Errorf("scenario %s on %s (rethook): %w", sc.Name, a.Name, err)
					}
					rep.Scenarios = append(rep.Scenarios, o)
				}
				bar.step("scenario " + sc.Name + " " + a.Name)
			}
		}
		fc := scenarios.DefaultCompareConfig()
		fc.Arches = as
		cmp, err := scenarios.CompareFprobe(fc)
		if err != nil {
			return err
		}
		rep.Fprobe = &cmp
		mc := scenarios.DefaultMeasureConfig()
		mc.Arches = as
		if rep.ShadowStack, err = scenarios.Measure(mc); err != nil {
			return err
		}
		bar.step("shadow-stack measurements")
		if *exact {
			if rep.Exactness, err = exactnessRows(as, bar); err != nil {
				return err
			}
		}
		if rep.Emulation, rep.emulationList, err = emulationRows(as, *emuCalls, *emuRepeats, bar); err != nil {
			return err
		}
		if err := nativeSection(&rep, as, *nativeBudget); err != nil {
			return err
		}
		if rep.Fprobe != nil {
			if rep.nativeStats != nil {
				if err := report.AttachNativeFprobe(rep.Fprobe, rep.nativeStats); err != nil {
					return err
				}
			} else {
				rep.Fprobe.NativeNote = "not run: " + rep.NativeNote
			}
		}
		bar.step("native timing")
		if err := reportCharts(*out, &rep); err != nil {
			return err
		}
		bar.step("charts")
		bar.finish()
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
		return reportStatus(&rep)
	}
}

// reportStatus is the report's exit status: errFindings when a variant
// regressed, a scenario, shadow-stack or tree row failed, or an
// exactness row is not equal (a cost the tables show is not proven).
func reportStatus(rep *fullReport) error {
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
	for _, r := range rep.Tree {
		if !r.OK {
			return errFindings
		}
	}
	for _, e := range rep.Exactness {
		if !e.Equal() {
			return errFindings
		}
	}
	return nil
}

// checkTree checks a kernel tree's trampoline files of the given arches
// (those the tree has) with every workload.
func checkTree(dir string, as []*regs.Arch, calls int) ([]check.Result, []harness.Tramp, error) {
	p := &pickFlags{file: new(string), role: new(string), pair: new(string), tree: &dir, patch: new(string),
		kern: kernelFlags{version: new(string), config: new(string)}}
	t, err := p.openTree()
	if err != nil {
		return nil, nil, err
	}
	var rs []check.Result
	var ts []harness.Tramp
	for _, a := range as {
		if _, ok := t.Files[a.Name]; !ok {
			continue
		}
		tramps, err := p.tramps(a)
		if err != nil {
			return nil, nil, err
		}
		for _, tr := range tramps {
			r, err := check.Run(check.Config{Arch: a, Tramp: tr, Calls: calls, Seed: 1})
			if err != nil {
				return nil, nil, usageError{err.Error()}
			}
			rs = append(rs, r...)
		}
		ts = append(ts, tramps...)
	}
	return rs, ts, nil
}

func markdownReport(w io.Writer, rep fullReport, calls int) error {
	rt, _ := emu.UnicornVersion()
	var answers strings.Builder
	if err := report.Answers(&answers, report.AnswerInputs{Headline: rep.NativeHeadline, NativeNote: rep.NativeNote, Scenarios: rep.Scenarios, Shadow: rep.ShadowStack}); err != nil {
		return err
	}
	notes := []string{
		strings.TrimRight(answers.String(), "\n") + "\n",
		fmt.Sprintf("trampemu %s on Unicorn %s. Costs are per traced call of the trampoline's own code (host stubs and workloads excluded), exact counts from block counters, proven below against a per-instruction count; the emulator's speed is given per arch, with its spread, under \"Emulator speed against raw Unicorn\".", Version, rt),
		fmt.Sprintf("Scenario: %s. Each variant runs in its intended pairing on every workload with %d random register files.", mustScenario("default").Doc, calls),
	}
	if err := report.Markdown(w, "trampemu report", rep.Variants, notes); err != nil {
		return err
	}
	fmt.Fprintln(w, "## "+report.HeadingScenarios)
	fmt.Fprintln(w)
	if err := report.ScenarioTable(w, rep.Scenarios); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if rep.Fprobe != nil {
		if err := report.FprobeSection(w, *rep.Fprobe); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "## "+report.HeadingShadowStack)
	fmt.Fprintln(w)
	if err := scenarios.WriteMeasureTable(w, rep.ShadowStack); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if err := markdownExtra(w, rep); err != nil {
		return err
	}
	if rep.TreeDir != "" {
		fmt.Fprintf(w, "## Kernel tree %s\n\n```\n", rep.TreeDir)
		modelLines(w, rep.treeTr)
		if err := report.CheckTable(w, rep.Tree); err != nil {
			return err
		}
		fmt.Fprint(w, "```\n\n")
	}
	fmt.Fprintln(w, "## Kernel models (how `--file` and `--tree` judge a kernel's own files)")
	fmt.Fprintln(w)
	modelsMarkdown(w)
	fmt.Fprintln(w)
	if err := writeMutationSection(w, rep); err != nil {
		return err
	}
	return writeNativeSection(w, rep)
}

func mustScenario(name string) harness.UserSet {
	s, _ := harness.FindUserSet(name)
	return s
}
