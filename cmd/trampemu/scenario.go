package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"trampemu/ftrace"
	"trampemu/scenarios"
)

const scenarioUsage = "usage: trampemu scenario list | trampemu scenario run NAME --arch A [--header ENC] [--json]"

// scenarioList is `trampemu scenario list`.
func scenarioList(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("scenario list", flag.ContinueOnError)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected arguments %v; %s", fs.Args(), scenarioUsage)
	}
	return scenarios.WriteList(w)
}

// scenarioRun is `trampemu scenario run NAME --arch A [--header ENC] [--json]`;
// the name may come before or after the flags.
func scenarioRun(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("scenario run", flag.ContinueOnError)
	arch := archFlag(fs, "")
	header := fs.String("header", ftrace.HeaderMerged.String(), "fprobe header encoding: "+strings.Join(scenarios.HeaderNames(), ", "))
	asJSON := fs.Bool("json", false, "print JSON")
	var name string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	rest := fs.Args()
	if name == "" && len(rest) > 0 {
		name, rest = rest[0], rest[1:]
	}
	if name == "" || len(rest) > 0 {
		return usagef("give one scenario name (valid are %s); %s", strings.Join(scenarios.Names(), ", "), scenarioUsage)
	}
	sc, err := scenarios.Find(name)
	if err != nil {
		return usageError{err.Error()}
	}
	a, err := archOf(*arch)
	if err != nil {
		return err
	}
	hdr, err := ftrace.ParseHeaderEncoding(*header)
	if err != nil {
		return usageError{err.Error()}
	}
	out, err := sc.Run(a, hdr)
	if err != nil {
		return err
	}
	if *asJSON {
		err = out.WriteJSON(w)
	} else {
		err = out.WriteText(w)
	}
	if err != nil {
		return err
	}
	if !out.OK {
		return errFindings
	}
	return nil
}

// scenarioCommand dispatches `trampemu scenario list|run`.
func scenarioCommand(args []string, w io.Writer) error {
	if len(args) == 0 {
		return usagef("%s", scenarioUsage)
	}
	switch args[0] {
	case "list":
		return scenarioList(args[1:], w)
	case "run":
		return scenarioRun(args[1:], w)
	case "-h", "--help", "help":
		fmt.Fprintln(w, scenarioUsage)
		return scenarios.WriteList(w)
	}
	return usagef("unknown scenario subcommand %q: valid are list, run; %s", args[0], scenarioUsage)
}
