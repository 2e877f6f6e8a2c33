package main

import (
	"bytes"
	"fmt"

	"trampemu/harness"
)

// fileKinds are the trampolines a kernel file defines and the CONFIG
// option each is built under: arch/x86/kernel/ftrace_64.S (v6.14) has
// ftrace_caller and ftrace_regs_caller inside #ifdef CONFIG_DYNAMIC_FTRACE
// (ftrace_regs_caller for DYNAMIC_FTRACE_WITH_REGS) and return_to_handler
// inside #ifdef CONFIG_FUNCTION_GRAPH_TRACER; arch/s390/kernel/mcount.S
// (v6.14) the same under CONFIG_FUNCTION_TRACER.
var fileKinds = []struct{ symbol, option string }{
	{"ftrace_caller", "CONFIG_DYNAMIC_FTRACE"},
	{"ftrace_regs_caller", "CONFIG_DYNAMIC_FTRACE_WITH_REGS"},
	{"return_to_handler", "CONFIG_FUNCTION_GRAPH_TRACER"},
}

// missingNotes names each trampoline kind the options compiled out of f:
// its source names it and its model's kernels build it (the option is set
// in the model's distribution defaults), but f with these options defines
// none. An aliased ftrace_regs_caller (s390x before the ftrace_regs_entry
// macro) is the same code as ftrace_caller, checked once under that name.
func missingNotes(f *harness.File) []string {
	have := map[string]bool{}
	for _, t := range f.Tramps {
		have[t.Symbol] = true
	}
	m := f.Choice.Model
	if m != nil && m.RegsAliased && have["ftrace_caller"] {
		have["ftrace_regs_caller"] = true
	}
	var out []string
	for _, k := range fileKinds {
		if have[k.symbol] || !bytes.Contains(f.Text, []byte(k.symbol)) || (m != nil && m.Config[k.option] != "y") {
			continue
		}
		out = append(out, fmt.Sprintf("%s defines no %s with these options (%s unset?)", f.Name, k.symbol, k.option))
	}
	return out
}
