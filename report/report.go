package report

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"trampemu/check"
	"trampemu/scenarios"
)

// WriteJSON writes v as indented JSON.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // disassembly has <symbol+off>
	return enc.Encode(v)
}

// CheckTable renders check results, one row per (variant, workload), then
// every finding under its row's name.
func CheckTable(w io.Writer, rs []check.Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	// The ORC LOST column is there when some row walked an ORC table
	// (x86-64).
	orc := false
	for _, r := range rs {
		orc = orc || r.Metrics.HasORC
	}
	fmt.Fprintln(tw, "ARCH\tVARIANT\tROLE\tWORKLOAD\tSCENARIO\tRESULT\tINSNS\tLOADS\tSTORES\tLD B\tST B\tSTACK\tUNWIND LOST\t"+orcHeader(orc)+"SLOTS FILLED")
	for _, r := range rs {
		m := r.Metrics
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s%s\n", r.Arch, r.Variant, r.Role, r.Workload, r.Scenario, resultText(r),
			num(m.Instructions), num(m.Loads), num(m.Stores), num(m.LoadBytes), num(m.StoreBytes), m.StackBytes, unwindText(m), orcCell(orc, m), strings.Join(m.Written, " "))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range rs {
		if len(r.Findings) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s %s %s / %s:\n", r.Arch, r.Role, r.Variant, r.Workload)
		for _, f := range r.Findings {
			if f.Known != nil {
				// String says "known kernel bug (...)"
				fmt.Fprintf(w, "  %s%s\n", f.String(), countText(f.Count))
				fmt.Fprintf(w, "    cause: %s\n", f.Known.Cause)
				continue
			}
			fmt.Fprintf(w, "  %-5s %s%s\n", f.Severity, f.String(), countText(f.Count))
		}
	}
	return nil
}

// unwindText is "unrecoverable/boundaries": at how many of the
// instruction boundaries the interrupt model visited the arch's unwinder
// could not find the traced function's caller ("-" with interrupts off).
func unwindText(m check.Metrics) string {
	if m.Boundaries == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d", m.UnrecoverableInsns, m.Boundaries)
}

// orcText is "lost/boundaries" of the ORC walks (x86-64 with an ORC
// table), "-" where none ran.
func orcText(m check.Metrics) string {
	if m.Boundaries == 0 || !m.HasORC {
		return "-"
	}
	return fmt.Sprintf("%d/%d", m.ORCUnrecoverableInsns, m.Boundaries)
}

func orcHeader(on bool) string {
	if on {
		return "ORC LOST\t"
	}
	return ""
}

func orcCell(on bool, m check.Metrics) string {
	if on {
		return orcText(m) + "\t"
	}
	return ""
}

// resultText is the RESULT cell: "ok", "ok (N info)", "known (N kernel
// bugs[, M info])" for a row whose only errors are its kernel model's
// known bugs (kernel.KnownBug), or "FAIL (N errors[, M known])".
func resultText(r check.Result) string {
	known := r.KnownBugs()
	if r.OK {
		switch {
		case known > 0 && len(r.Findings) > known:
			return fmt.Sprintf("known (%s, %d info)", plural(known, "kernel bug"), len(r.Findings)-known)
		case known > 0:
			return fmt.Sprintf("known (%s)", plural(known, "kernel bug"))
		case len(r.Findings) > 0:
			return fmt.Sprintf("ok (%d info)", len(r.Findings))
		}
		return "ok"
	}
	s := "FAIL (" + plural(r.Errors(), "error")
	if known > 0 {
		s += fmt.Sprintf(", %d known", known)
	}
	return s + ")"
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func countText(n int) string {
	if n <= 1 {
		return ""
	}
	return fmt.Sprintf(" [x%d]", n)
}

// num prints a per-call average: an integer when it is one.
func num(v float64) string {
	if v == float64(int64(v)) {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%.2f", v)
}

// SummaryTable renders one row per variant.
func SummaryTable(w io.Writer, ss []check.Summary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	orc := false
	for _, s := range ss {
		orc = orc || s.Metrics.HasORC
	}
	fmt.Fprintln(tw, "ARCH\tROLE\tVARIANT\tMODEL\tPAIR\tRESULT\tINSNS\tLOADS\tSTORES\tST B\tSTACK\tUNWIND LOST\t"+orcHeader(orc)+"NS/CALL\tWRITTEN")
	for _, s := range ss {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s%s\t%s\n", s.Arch, s.Role, s.Variant, s.Model, s.Pair, verdict(s),
			num(s.Metrics.Instructions), num(s.Metrics.Loads), num(s.Metrics.Stores), num(s.Metrics.StoreBytes), s.Metrics.StackBytes,
			unwindText(s.Metrics), orcCell(orc, s.Metrics), speedText(s.Speed), strings.Join(s.Metrics.Written, " "))
	}
	return tw.Flush()
}

func speedText(sp *check.Speed) string {
	if sp == nil {
		return "-"
	}
	return fmt.Sprintf("%.0f", sp.NsPerCall)
}

// verdict says how a variant fared.
func verdict(s check.Summary) string {
	kinds := make([]string, len(s.Kinds))
	for i, k := range s.Kinds {
		kinds[i] = string(k)
	}
	switch {
	case s.Errors == 0:
		return "ok"
	case s.Bug != "":
		return "caught: " + strings.Join(kinds, ",")
	case s.Regression():
		return "REGRESSION: " + strings.Join(kinds, ",")
	default:
		return "findings: " + strings.Join(kinds, ",")
	}
}

// Markdown renders the full report: per arch and role a table of the
// variants, then every finding.
func Markdown(w io.Writer, title string, ss []check.Summary, notes []string) error {
	fmt.Fprintf(w, "# %s\n\n", title)
	for _, n := range notes {
		fmt.Fprintf(w, "%s\n", n)
	}
	if len(notes) > 0 {
		fmt.Fprintln(w)
	}
	groups := map[string][]check.Summary{}
	var keys []string
	for _, s := range ss {
		k := s.Arch + " " + s.Role
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], s)
	}
	for _, k := range keys {
		fmt.Fprintf(w, "## %s trampolines\n\n", k)
		// No time column: one emulated timing per variant moves by 2x from
		// run to run; the emulator's speed is reported per arch, with
		// repeats (EmulationTable).
		fmt.Fprintln(w, "| variant | models | paired with | result | insns | loads | stores | bytes stored | cache lines | stack | unwind lost | slots the asm fills |")
		fmt.Fprintln(w, "|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|---|")
		for _, s := range groups[k] {
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %d | %s | %s |\n", s.Variant, s.Model, s.Pair, verdict(s),
				num(s.Metrics.Instructions), num(s.Metrics.Loads), num(s.Metrics.Stores), num(s.Metrics.StoreBytes),
				num(s.Metrics.CacheLines), s.Metrics.StackBytes, unwindText(s.Metrics), strings.Join(s.Metrics.Written, " "))
		}
		fmt.Fprintln(w)
	}
	unwindSection(w, ss)
	fmt.Fprintln(w, "## Findings")
	fmt.Fprintln(w)
	for _, s := range ss {
		lines := findingLines(s)
		if len(lines) == 0 {
			continue
		}
		fmt.Fprintf(w, "### %s %s %s\n\n", s.Arch, s.Role, s.Variant)
		if s.Bug != "" {
			fmt.Fprintf(w, "Known defect: %s.\n\n", s.Bug)
		}
		for _, l := range lines {
			fmt.Fprintf(w, "- %s\n", l)
		}
		fmt.Fprintln(w)
	}
	return nil
}

// unwindSection lists, per variant, the instructions at which the arch's
// unwinder could not find the traced function's caller: on the add
// workload, and on the workload with the most.
func unwindSection(w io.Writer, ss []check.Summary) {
	fmt.Fprintln(w, "## Unwindability at every instruction boundary")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "An interrupt at each boundary of each trampoline: could the arch's unwinder (x86-64 ORC, s390x back chain, arm64 frame records) find the traced function's caller there? \"unwind lost\" above is unrecoverable/boundaries on the add workload.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "\"ORC lost\" (x86-64) is the kernel's ORC unwinder over the table the kernel's objtool generated for the image: the boundaries where its walk from the interrupted registers misses the caller, errs (arch_stack_walk_reliable fails) or never reaches the end of the stack.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| arch | role | variant | boundaries | unrecoverable (add) | worst workload | unrecoverable there | instructions (add) | ORC lost (add) | ORC instructions (add) |")
	fmt.Fprintln(w, "|---|---|---|--:|--:|---|--:|---|--:|---|")
	for _, s := range ss {
		worst := check.Result{}
		for _, r := range s.Results {
			if worst.Workload == "" || r.Metrics.UnrecoverableInsns > worst.Metrics.UnrecoverableInsns {
				worst = r
			}
		}
		if s.Metrics.Boundaries == 0 && worst.Metrics.Boundaries == 0 {
			continue
		}
		fmt.Fprintf(w, "| %s | %s | %s | %d | %d | %s | %d | %s | %s | %s |\n", s.Arch, s.Role, s.Variant, s.Metrics.Boundaries,
			s.Metrics.UnrecoverableInsns, worst.Workload, worst.Metrics.UnrecoverableInsns, strings.Join(s.Metrics.Unrecoverable, " "),
			orcText(s.Metrics), strings.Join(s.Metrics.ORCUnrecoverable, " "))
	}
	fmt.Fprintln(w)
}

// findingLines merges a summary's findings over workloads: one line per
// finding, with the workloads that showed it.
func findingLines(s check.Summary) []string {
	type agg struct {
		f   check.Finding
		wls []string
	}
	m := map[string]*agg{}
	var order []string
	for _, r := range s.Results {
		for _, f := range r.Findings {
			key := string(f.Kind) + "\x00" + f.Slot + "\x00" + f.Register + "\x00" + f.Summary
			if a, ok := m[key]; ok {
				a.wls = append(a.wls, r.Workload)
				continue
			}
			m[key] = &agg{f: f, wls: []string{r.Workload}}
			order = append(order, key)
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return m[order[i]].f.Severity < m[order[j]].f.Severity })
	var out []string
	for _, k := range order {
		a := m[k]
		out = append(out, fmt.Sprintf("**%s** (%s) %s; workloads: %s", a.f.Kind, a.f.Severity, strings.TrimPrefix(a.f.String(), string(a.f.Kind)+" "), strings.Join(a.wls, ", ")))
	}
	return out
}

// ScenarioTable renders scenario outcomes in Markdown: one row per
// (scenario, arch, fprobe design) with its verdict, shadow-stack words per call, warnings
// and failed expectations.
func ScenarioTable(w io.Writer, outs []scenarios.Outcome) error {
	fmt.Fprintln(w, "| scenario | arch | fprobe design | header | result | shadow words/call | warnings | failed expectations |")
	fmt.Fprintln(w, "|---|---|---|---|---|--:|---|---|")
	for _, o := range outs {
		res := "ok"
		if !o.OK {
			res = "FAILED"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", o.Scenario, o.Arch, o.Design, o.Header, res,
			num(o.ShadowWordsPerCall), cell(o.Warnings), cell(o.Findings))
	}
	return nil
}

func cell(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return strings.ReplaceAll(strings.Join(s, "; "), "|", "\\|")
}
