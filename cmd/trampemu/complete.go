package main

import (
	"strings"

	"github.com/spf13/cobra"

	"trampemu/harness"
	"trampemu/kernel"
	"trampemu/regs"
	"trampemu/scenarios"
)

// flagCompletions complete the values of the flags that name something
// (trampemu completion bash|zsh|fish), by flag name, for every command
// that has the flag.
var flagCompletions = map[string]cobra.CompletionFunc{
	"arch": func(c *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		var out []string
		for _, a := range regs.Arches {
			out = append(out, a.Name)
		}
		if f := c.Flags().Lookup("arch"); f != nil && strings.Contains(f.Usage, " or all") {
			out = append(out, "all")
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	},
	"variant": variantCompletion,
	"pair":    variantCompletion,
	"workload": func(c *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		var out []string
		for _, a := range completionArches(c) {
			out = append(out, harness.WorkloadNames(a)...)
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	},
	"scenario": func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		var out []string
		for _, s := range harness.UserSets {
			out = append(out, s.Name)
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	},
	"role":   cobra.FixedCompletions([]string{"entry", "exit", "ftrace_caller", "ftrace_regs_caller", "return_to_handler"}, cobra.ShellCompDirectiveNoFileComp),
	"header": cobra.FixedCompletions(scenarios.HeaderNames(), cobra.ShellCompDirectiveNoFileComp),
	"kernel": func(c *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		var out []string
		for _, a := range completionArches(c) {
			for _, m := range kernel.ModelsOf(a.Name) {
				out = append(out, m.From.String())
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	},
	"file":  fileCompletion("S"),
	"patch": fileCompletion("patch", "diff"),
	"tree":  dirCompletion,
	"out":   dirCompletion,
}

// completeFlags registers the completions of c's flags.
func completeFlags(c *cobra.Command) {
	for name, f := range flagCompletions {
		if c.Flags().Lookup(name) != nil {
			// Only fails for a flag registered twice: flagCompletions
			// names each once.
			_ = c.RegisterFlagCompletionFunc(name, f)
		}
	}
}

// completionArches are the arches --arch names so far, all when none.
func completionArches(c *cobra.Command) []*regs.Arch {
	name, _ := c.Flags().GetString("arch")
	if as, err := arches(name); err == nil {
		return as
	}
	return regs.Arches
}

func variantCompletion(c *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
	seen := map[string]bool{}
	var out []string
	for _, a := range completionArches(c) {
		for _, v := range harness.VariantsOf(a, "") {
			if !seen[v.Name] {
				seen[v.Name] = true
				out = append(out, v.Name+"\t"+v.Model)
			}
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

func fileCompletion(exts ...string) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return exts, cobra.ShellCompDirectiveFilterFileExt
	}
}

func dirCompletion(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return nil, cobra.ShellCompDirectiveFilterDirs
}
