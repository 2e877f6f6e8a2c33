package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"trampemu/ftrace"
	"trampemu/harness"
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
	asJSON := fs.Bool("json", false, "print JSON (--format json)")
	format := fs.String("format", formatText, "text, json, or function_graph (what the graph users saw, in the kernel's function_graph trace format)")
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
	if err := checkFormat(*format, formatText, formatJSON, formatFunctionGraph); err != nil {
		return err
	}
	glog := newGraphLog()
	var watch func(h *harness.Harness)
	if *format == formatFunctionGraph {
		watch = func(h *harness.Harness) { watchGraph(glog, h) }
	}
	out, err := sc.RunWatched(a, hdr, watch)
	if err != nil {
		return err
	}
	switch {
	case *format == formatFunctionGraph:
		fmt.Fprintf(w, "# trampemu scenario %s on %s, header %s: %s\n", out.Scenario, out.Arch, out.Header, map[bool]string{true: "ok", false: "FAILED"}[out.OK])
		err = glog.Render(w)
	case *asJSON || *format == formatJSON:
		err = out.WriteJSON(w)
	default:
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
