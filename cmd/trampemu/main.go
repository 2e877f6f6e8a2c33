package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"trampemu/native"
)

// usageError is bad usage or input: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// findingsError means the command ran and found errors: exit status 1.
var errFindings = errors.New("error findings")

var commands = []struct {
	name, summary string
	run           func(args []string, stdout io.Writer) error
}{
	{"report", "check and cost every variant on every architecture (" + archNames(", ") + "; the main job)", cmdReport},
	{"check", "check trampoline variants (or your .S file) and show findings and costs", cmdCheck},
	{"scenario", "list or run the fgraph/fprobe scenarios", cmdScenario},
	{"mutate", "mutate trampolines and check that the checks kill every mutant", cmdMutate},
	{"trace", "run one traced call and print it step by step (debugging)", cmdTrace},
	{"native", "time x86-64 pairings on the host CPU", cmdNative},
	{"asm", "assemble and link a .S and print the listing", cmdAsm},
	{"list", "list variants, workloads and scenarios", cmdList},
	{"version", "print the version and the Unicorn version in use", cmdVersion},
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: trampemu <command> [flags]\n\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'trampemu <command> -h' for a command's flags.")
}

func main() {
	native.RunChildIfAsked() // a child of Measure runs its job and exits here
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		err := c.run(args[1:], stdout)
		var ue usageError
		switch {
		case err == nil:
			return 0
		case errors.Is(err, flag.ErrHelp):
			return 0
		case errors.Is(err, errFindings):
			return 1
		case errors.As(err, &ue):
			fmt.Fprintf(stderr, "trampemu %s: %v\n", c.name, err)
			return 2
		default:
			fmt.Fprintf(stderr, "trampemu %s: %v\n", c.name, err)
			return 2
		}
	}
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	fmt.Fprintf(stderr, "trampemu: unknown command %q: valid are %s\n", args[0], strings.Join(names, ", "))
	return 2
}

// multi is a repeatable string flag.
type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

// helpOut is where -h prints a command's flags.
var helpOut io.Writer = os.Stderr

// afterParse, when set (by the fuzz tests), is called once a command's
// flags parsed; a non-nil error ends the command there.
var afterParse func(fs *flag.FlagSet) error

// parse parses a command's flags; a parse error is a usage error whose
// one-line message comes first (the flag package's own output is not
// printed; -h prints the flags).
func parse(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(helpOut)
			fmt.Fprintf(helpOut, "usage of trampemu %s:\n", fs.Name())
			fs.PrintDefaults()
			return err
		}
		return usagef("%v (see 'trampemu %s -h')", err, fs.Name())
	}
	if afterParse != nil {
		return afterParse(fs)
	}
	return nil
}
