package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"trampemu/ftrace"
	"trampemu/harness"
	"trampemu/kernel"
	"trampemu/scenarios"
)

const scenarioUsage = "usage: trampemu scenario list | trampemu scenario run NAME --arch A [--header ENC] [--fprobe rethook|fgraph] [--json]"

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
	fprobe := fprobeFlag(c)
	kern := fs.String("kernel", "", "kernel version vX.Y whose fprobe design (and rethook form) the scenario runs on; --fprobe overrides the design")
	dispatchName := fs.String("dispatch", ftrace.DispatchMerged.String(), "fgraph dispatch form: merged (v6.11+), or the v5-v9 drafts' per-ops-draft or loop (an experiment)")
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
		design, err := parseFprobe(*fprobe)
		if err != nil {
			return err
		}
		form := ftrace.RethookV613
		if *kern != "" {
			v, err := kernel.ParseVersion(*kern)
			if err != nil {
				return usageError{err.Error()}
			}
			era := kernel.FprobeEraFor(a.Name, v)
			if era.Design == ftrace.DesignNone && design == ftrace.DesignNone {
				return usagef("--kernel %s: %s has no fprobe in %s (the eras: rethook v5.18-v6.13 where the arch has rethook, fgraph v6.14+); give --fprobe to run a design anyway", *kern, a.Name, v)
			}
			if design == ftrace.DesignNone {
				design = era.Design
			}
			form = kernel.RethookFormFor(v)
		}
		if design == ftrace.DesignNone {
			design = ftrace.DesignFgraph
		}
		if design == ftrace.DesignRethook && !sc.Designs {
			return usagef("scenario %s runs on the fgraph design only; --fprobe rethook applies to %s", sc.Name, strings.Join(scenarios.DesignNames(), ", "))
		}
		glog := newGraphLog()
		var watch func(h *harness.Harness)
		if *format == formatFunctionGraph {
			watch = func(h *harness.Harness) { watchGraph(glog, h) }
		}
		dispatch, err := ftrace.ParseGraphDispatch(*dispatchName)
		if err != nil {
			return usageError{err.Error()}
		}
		if dispatch != ftrace.DispatchMerged && design != ftrace.DesignFgraph {
			return usagef("--dispatch %s: the dispatch forms are fgraph's; the scenario runs on the %s design", dispatch, design)
		}
		var out scenarios.Outcome
		if dispatch != ftrace.DispatchMerged {
			out, err = sc.RunDispatch(a, hdr, dispatch, watch)
		} else {
			out, err = sc.RunForm(a, hdr, design, form, watch)
		}
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
