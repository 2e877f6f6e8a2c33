package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"trampemu/ftrace"
	"trampemu/harness"
	"trampemu/trace"
)

// Output formats of trace and scenario run.
const (
	formatText          = "text"
	formatJSON          = "json"
	formatFunctionGraph = "function_graph"
)

// formatFlag declares --format with its default, usage and the valid
// values (completed by the shells).
func formatFlag(c *cobra.Command, def, usage string, valid ...string) *string {
	f := c.Flags().String("format", def, usage)
	_ = c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(valid, cobra.ShellCompDirectiveNoFileComp))
	return f
}

func checkFormat(f string, valid ...string) error {
	for _, v := range valid {
		if f == v {
			return nil
		}
	}
	return usagef("unknown --format %q: valid are %s", f, strings.Join(valid, ", "))
}

// newGraphLog is the function_graph log of a command: durations in
// emulated instructions.
func newGraphLog() *trace.GraphLog {
	return &trace.GraphLog{Unit: "emulated instructions from the entry to the return callback, counted per translated block"}
}

// watchGraph attaches log to the graph users of h's kernel, each event
// stamped with the instructions h's machine executed so far (its counter
// restarts with every run: the clock carries on across runs).
func watchGraph(log *trace.GraphLog, h *harness.Harness) {
	m := h.M
	var base, last uint64
	clock := func() uint64 {
		now := m.Executed()
		if now < last {
			base += last
		}
		last = now
		return base + now
	}
	if log.Name == nil {
		im := h.Image
		log.Name = func(addr uint64) string {
			s := im.Describe(addr)
			if i := strings.Index(s, "+"); i > 0 {
				s = s[:i] // %ps: the symbol without its offset
			}
			if strings.HasPrefix(s, "0x") {
				return fmt.Sprintf("0x%x", addr)
			}
			return s
		}
	}
	h.K.Graph.Watch(func(ev ftrace.GraphEvent) { log.AddAt(ev, clock()) })
}
