package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"trampemu/ftrace"
	"trampemu/harness"
	"trampemu/scenarios"
)

const scenarioUsage = "usage: trampemu scenario list | trampemu scenario run NAME --arch A [--header ENC] [--json]"

// cmdScenario is `trampemu scenario` without a subcommand (list or run).
func cmdScenario(c *cobra.Command) runFunc {
	var b strings.Builder
	if err := scenarios.WriteList(&b); err == nil {
		c.Long += "\n\n" + strings.TrimRight(b.String(), "\n")
	}
	return func(args []string, w io.Writer) error {
		if len(args) == 0 {
			return usagef("%s", scenarioUsage)
		}
		return usagef("unknown scenario subcommand %q: valid are list, run; %s", args[0], scenarioUsage)
	}
}

// cmdScenarioList is `trampemu scenario list`.
func cmdScenarioList(*cobra.Command) runFunc {
	return func(args []string, w io.Writer) error {
		if len(args) > 0 {
			return usagef("unexpected arguments %v; %s", args, scenarioUsage)
		}
		return scenarios.WriteList(w)
	}
}

// cmdScenarioRun is `trampemu scenario run NAME --arch A [--header ENC]
// [--json]`; the name may come before or after the flags.
func cmdScenarioRun(c *cobra.Command) runFunc {
	fs := c.Flags()
	arch := archFlag(fs, "")
	header := fs.String("header", ftrace.HeaderMerged.String(), "fprobe header encoding: "+strings.Join(scenarios.HeaderNames(), ", "))
	asJSON := fs.Bool("json", false, "print JSON (--format json)")
	format := formatFlag(c, formatText, "text, json, or function_graph (what the graph users saw, in the kernel's function_graph trace format)",
		formatText, formatJSON, formatFunctionGraph)
	c.ValidArgs = scenarios.Names()
	return func(args []string, w io.Writer) error {
		if len(args) != 1 {
			return usagef("give one scenario name (valid are %s); %s", strings.Join(scenarios.Names(), ", "), scenarioUsage)
		}
		sc, err := scenarios.Find(args[0])
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
}
