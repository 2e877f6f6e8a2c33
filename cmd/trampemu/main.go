package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"trampemu/native"
)

// usageError is bad usage or input: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// findingsError means the command ran and found errors: exit status 1.
var errFindings = errors.New("error findings")

// runFunc is a command's work once its flags parsed: args are the
// positional arguments, w is stdout.
type runFunc func(args []string, w io.Writer) error

// command is one subcommand of the tree: its help texts and setup, which
// declares its flags on c (and their completions) and returns what runs.
type command struct {
	use, short, long, example string
	setup                     func(c *cobra.Command) runFunc
	sub                       []command
}

// commands are trampemu's subcommands in the order its help lists them.
func commands() []command {
	return []command{
		{use: "report", short: "check and cost every variant on every architecture (" + archNames(", ") + "; the main job)",
			long: "Check and cost every variant on every architecture, run the fgraph/fprobe scenarios, the shadow-stack " +
				"measurements, the exactness proof, the emulator's speed and the native x86-64 timing; Markdown on stdout " +
				"(or JSON), report.md, report.json and the charts in --out. Exit 1 on a regression.",
			example: "trampemu report --out out\ntrampemu report --arch s390x --native 0 --emu-calls 0 --calls 2\ntrampemu report --tree ~/linux --out out",
			setup:   cmdReport},
		{use: "check", short: "check trampoline variants (or your .S file) and show findings and costs",
			long: "Run each chosen trampoline in its pairing on every workload with random register files and report what " +
				"it saved, read, clobbered and cost. Choose registry variants (--variant), a kernel file (--file, --role), " +
				"a kernel tree (--tree) and a patch to it (--patch). Exit 1 on an error finding.",
			example: "trampemu check --arch x86_64 --variant rth-merged --workload add --calls 2\n" +
				"trampemu check -a s390x --file my_mcount.S --role exit --json\n" +
				"trampemu check --tree ~/linux --patch 0001-my-fix.patch",
			setup: cmdCheck},
		{use: "scenario", short: "list or run the fgraph/fprobe scenarios",
			long:    "List the fgraph/fprobe scenarios or run one on an arch (exit 1 when it fails).",
			example: "trampemu scenario list\ntrampemu scenario run fgraph-multi --arch s390x --format function_graph",
			setup:   cmdScenario,
			sub: []command{
				{use: "list", short: "list the scenarios", example: "trampemu scenario list", setup: cmdScenarioList},
				{use: "run NAME", short: "run one scenario on an arch",
					example: "trampemu scenario run fprobe --arch x86_64\ntrampemu scenario run header-s390x --arch s390x --header v17",
					setup:   cmdScenarioRun},
			}},
		{use: "mutate", short: "mutate trampolines and check that the checks kill every mutant",
			long: "Mutate each chosen variant's .S (an instruction deleted, a register, displacement or immediate changed, " +
				"two instructions swapped, a branch inverted) and check every mutant in full. Exit 1 when a mutant survives unexplained.",
			example: "trampemu mutate --arch x86_64 --variant rth-merged\ntrampemu mutate --arch all --json > out/mutate.json",
			setup:   cmdMutate},
		{use: "trace", short: "run one traced call and print it step by step (debugging)",
			long: "Run one checked call of a workload through a pairing and print it step by step: each trampoline " +
				"instruction with the registers it changed and the memory it read and wrote, each call into the Go kernel, " +
				"then the findings of that call.",
			example: "trampemu trace --arch x86_64 --variant rth-merged --scenario ret-arg0\n" +
				"trampemu trace --arch x86_64 --variant rth-merged --workload fib --format function_graph",
			setup: cmdTrace},
		{use: "native", short: "time x86-64 pairings on the host CPU",
			long: "Link x86-64 pairings for the host and time them natively in child processes, per mode (off, function " +
				"tracer, graph user), with 95% intervals; --compare states differences with an A/A control.",
			example: "trampemu native --variant rth-full-fregs --variant rth-merged\ntrampemu native --compare rth-merged,rth-full-fregs\n" +
				"trampemu native --variant rth-merged --format bench > new.txt",
			setup: cmdNative},
		{use: "asm [FILE.S]", short: "assemble and link a .S and print the listing",
			example: "trampemu asm --arch s390x --variant ftrace_regs_caller\ntrampemu asm --arch x86_64 my_ftrace_64.S -D CONFIG_X86_KERNEL_IBT",
			setup:   cmdAsm},
		{use: "list", short: "list variants, workloads and scenarios",
			example: "trampemu list --arch s390x\ntrampemu list --config",
			setup:   cmdList},
		{use: "version", short: "print the version and the Unicorn version in use",
			example: "trampemu version", setup: cmdVersion},
	}
}

// afterParse, when set (by the fuzz tests), is called once a command's
// flags parsed; a non-nil error ends the command there.
var afterParse func(c *cobra.Command) error

// newRoot builds the command tree (afresh for every run: the flags'
// values live in it) writing to stdout and stderr.
func newRoot(stdout, stderr io.Writer) *cobra.Command {
	cobra.EnableCommandSorting = false
	root := &cobra.Command{
		Use:   "trampemu",
		Short: "run Linux ftrace trampolines in an emulator, check what they save and measure what they cost",
		Long: "trampemu runs Linux ftrace trampolines (" + archNames(", ") + ") on the Unicorn emulator with Go standing " +
			"in for the kernel, checks what they save and measures what they cost.\n\n" +
			"Exit status: 0 success or no error finding; 1 error findings (check, trace, scenario run, mutate) or " +
			"regressions (report); 2 bad usage or input.",
		Example:           indent("trampemu report --out out\ntrampemu check --arch x86_64 --file arch/x86/kernel/ftrace_64.S\ntrampemu list"),
		SilenceErrors:     true,
		SilenceUsage:      true,
		DisableAutoGenTag: true,
		PersistentPreRunE: func(c *cobra.Command, _ []string) error {
			if afterParse != nil {
				return afterParse(c)
			}
			return nil
		},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usagef("%v (see '%s --help')", err, c.CommandPath())
	})
	for _, s := range commands() {
		root.AddCommand(s.build())
	}
	root.AddCommand(genDocsCommand())
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	return root
}

// unknownCommand is the error for a command name root does not have.
func unknownCommand(root *cobra.Command, name string) error {
	var names []string
	for _, s := range root.Commands() {
		if s.IsAvailableCommand() {
			names = append(names, s.Name())
		}
	}
	return usagef("unknown command %q: valid are %s", name, strings.Join(names, ", "))
}

// sub is c's subcommand called name (or an alias), nil when none.
func sub(c *cobra.Command, name string) *cobra.Command {
	for _, s := range c.Commands() {
		if s.Name() == name || s.HasAlias(name) {
			return s
		}
	}
	return nil
}

// build makes the cobra command of s.
func (s command) build() *cobra.Command {
	c := &cobra.Command{Use: s.use, Short: s.short, Long: s.long, Example: indent(s.example)}
	if c.Long == "" {
		c.Long = strings.ToUpper(s.short[:1]) + s.short[1:] + "."
	}
	c.Flags().SortFlags = false
	c.Flags().SetNormalizeFunc(normalizeFlag)
	run := s.setup(c)
	c.RunE = func(c *cobra.Command, args []string) error { return run(args, c.OutOrStdout()) }
	completeFlags(c)
	for _, sub := range s.sub {
		c.AddCommand(sub.build())
	}
	return c
}

// indent indents each line of an example block by two spaces (cobra
// prints it as it is).
func indent(s string) string {
	if s == "" {
		return ""
	}
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}

// normalizeFlag keeps the flag package's spellings of -D and -U working
// as long flags (--D NAME is --define NAME).
func normalizeFlag(_ *pflag.FlagSet, name string) pflag.NormalizedName {
	switch name {
	case "D":
		name = "define"
	case "U":
		name = "undef"
	}
	return pflag.NormalizedName(name)
}

func main() {
	native.RunChildIfAsked() // a child of Measure runs its job and exits here
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	root := newRoot(stdout, stderr)
	if len(args) == 0 {
		root.SetOut(stderr)
		_ = root.Usage()
		return 2
	}
	if !strings.HasPrefix(args[0], "-") && !strings.HasPrefix(args[0], "__complete") {
		if sub(root, args[0]) == nil {
			fmt.Fprintf(stderr, "trampemu: %v\n", unknownCommand(root, args[0]))
			return 2
		}
	}
	root.SetArgs(gnuArgs(root, args))
	c, err := root.ExecuteC()
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errFindings):
		return 1
	}
	name := "trampemu"
	if c != nil {
		name = c.CommandPath()
	}
	fmt.Fprintf(stderr, "%s: %v\n", name, err)
	return 2
}

// gnuArgs keeps the flag package's single-dash long flags working: in
// args of the command they name, -arch x86_64 and -json=true are
// --arch x86_64 and --json=true when the command has such a flag
// (pflag would read -arch as -a rch). Single letters (-D, -a) and
// everything after -- stay as they are.
func gnuArgs(root *cobra.Command, args []string) []string {
	c, i := root, 0
	for i < len(args) && sub(c, args[i]) != nil {
		c, i = sub(c, args[i]), i+1
	}
	c.InitDefaultHelpFlag()
	out := append([]string(nil), args...)
	for j := i; j < len(out); j++ {
		a := out[j]
		if a == "--" {
			break
		}
		if len(a) < 3 || a[0] != '-' || a[1] == '-' {
			continue
		}
		name, _, _ := strings.Cut(a[1:], "=")
		if len(name) > 1 && c.Flags().Lookup(name) != nil {
			out[j] = "-" + a
		}
	}
	return out
}
