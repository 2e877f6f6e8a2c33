package native

import (
	"fmt"
	"io"
	"strings"

	"trampemu/trampolines"
)

// RegistryJobs lists one job per x86-64 registry variant in its intended
// pairing (a pairing named by two variants is measured once), in registry
// order.
func RegistryJobs(calls, repeats int) []Job {
	var out []Job
	seen := map[[2]string]bool{}
	for _, v := range trampolines.Variants {
		if v.Arch != Arch.Name || v.Pair == "" {
			continue
		}
		entry, exit := v.Name, v.Pair
		if v.Role == trampolines.Exit {
			entry, exit = v.Pair, v.Name
		}
		if seen[[2]string{entry, exit}] {
			continue
		}
		seen[[2]string{entry, exit}] = true
		out = append(out, Job{Arch: Arch.Name, Entry: Spec{Variant: entry}, Exit: Spec{Variant: exit}, Calls: calls, Repeats: repeats})
	}
	return out
}

// WriteTable prints results as a Markdown table.
func WriteTable(w io.Writer, rs []Result) error {
	var b strings.Builder
	b.WriteString("| entry | exit | off ns/call | function tracer ns/call | graph user ns/call | function tracer cost | graph cost |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for _, r := range rs {
		fmt.Fprintf(&b, "| %s | %s | %.2f | %.2f | %.2f | +%.2f | +%.2f |\n", r.Entry, r.Exit, r.Off, r.Function, r.Graph, r.FunctionCost, r.GraphCost)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
