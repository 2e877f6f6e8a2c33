package report

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"trampemu/ftrace"
	"trampemu/native"
	"trampemu/regs"
	"trampemu/scenarios"
)

// FprobeSectionTitle is the report section answering Jiri Olsa on
// "fprobe: Rewrite fprobe on function-graph tracer" (v5 28/34).
const FprobeSectionTitle = "The fprobe question (v5 28/34)"

// FprobeAnswer is the one-sentence answer for an arch to "this looks
// expensive compared to what we do now": one probe with an exit handler on
// one function, per traced call, on both designs, from the comparison's
// cells ("" when they are missing).
func FprobeAnswer(c scenarios.Comparison, arch string) string {
	rh, ok1 := c.Cell(arch, "rethook", "one", 1, true, 0)
	fg, ok2 := c.Cell(arch, "fgraph", "one", 1, true, 0)
	if !ok1 || !ok2 {
		return ""
	}
	s := fmt.Sprintf("%s, one fprobe with an exit handler, per traced call: rethook runs %s (%s) + %s (%s) = %s trampoline instructions and on the C side %s ops, %s hash lookups, %s pool operations (%s atomic RMWs); fgraph runs %s + %s = %s instructions, %s ops, %s hash lookups, %s shadow-stack words, no atomics",
		arch, num(rh.Entry.Instructions), rh.Entry.Trampoline, num(rh.ExitCost.Instructions), rh.ExitCost.Trampoline, num(rh.Entry.Instructions+rh.ExitCost.Instructions),
		num(rh.CSide.OpsVisited), num(rh.CSide.HashLookups), num(rh.CSide.PoolOps), num(rh.CSide.Atomics),
		num(fg.Entry.Instructions), num(fg.ExitCost.Instructions), num(fg.Entry.Instructions+fg.ExitCost.Instructions),
		num(fg.CSide.OpsVisited), num(fg.CSide.HashLookups), num(fg.CSide.ShadowWords))
	if rh8, ok := c.Cell(arch, "rethook", "one", 8, true, 0); ok {
		if fg8, ok := c.Cell(arch, "fgraph", "one", 8, true, 0); ok {
			s += fmt.Sprintf("; with 8 on one function rethook visits %s ops with %s lookups and %s pool operations, fgraph does %s lookups and %s words",
				num(rh8.CSide.OpsVisited), num(rh8.CSide.HashLookups), num(rh8.CSide.PoolOps), num(fg8.CSide.HashLookups), num(fg8.CSide.ShadowWords))
		}
	}
	s += fmt.Sprintf("; memory: %s per probe in rethook pools for %d CPUs against %s of shadow stacks for %d tasks",
		bytesText(rh.MemoryBytes), c.CPUs, bytesText(fg.MemoryBytes), c.Tasks)
	if rh.NativeNs != nil && fg.NativeNs != nil {
		s += fmt.Sprintf("; on the host CPU, with the same stand-ins for both C callbacks, a traced return costs %s ns [%s, %s] on rethook and %s ns [%s, %s] on fgraph after each design's entry",
			ns2(*rh.NativeNs), ns2(rh.CI95[0]), ns2(rh.CI95[1]), ns2(*fg.NativeNs), ns2(fg.CI95[0]), ns2(fg.CI95[1]))
		if d := c.NativeDiff; d != nil {
			s += fmt.Sprintf(", and under one entry rethook's return minus fgraph's is %+.2f ns [%+.2f, %+.2f] (%s)", d.DiffNs, d.CI95[0], d.CI95[1], native.Verdict(d.Significant, false))
		}
	}
	return s + "."
}

func ns2(v float64) string { return fmt.Sprintf("%.2f", v) }

// NativeFprobeText is the section's paragraph on the native timing of the
// two return paths (or why it did not run).
func NativeFprobeText(c scenarios.Comparison) string {
	if len(c.NativeReturns) == 0 {
		note := c.NativeNote
		if note == "" {
			note = "not run (trampemu fprobe --native DURATION, or make report on an x86-64 host)"
		}
		return "Native ns per traced return of the two return paths: " + note + "."
	}
	var parts []string
	for _, r := range c.NativeReturns {
		where := "its design's pairing"
		if r.SameEntry {
			where = "under the other design's entry"
		}
		parts = append(parts, fmt.Sprintf("%s %s (%s, %s) %s ns [%s, %s]", r.Arch, r.Design, r.Pairing, where, ns2(r.Ns), ns2(r.CI95[0]), ns2(r.CI95[1])))
	}
	s := "Native ns per traced return (host CPU; per round the graph-user sample minus the function-tracer sample of the same child process, so the stand-in's return-address swap and the whole return path; medians over blocks of generations with benchmath's 95% interval). The kernel functions are the same minimal assembly stand-ins for both paths (`trampolines/native/x86_64.S`): `ftrace_return_to_handler` counts the return and pops the real return address off a plain array; `arch_rethook_trampoline_callback` does the same count and pop and then the two stores the x86-64 trampoline relies on (the address over the fake return address, flags into the ss slot); neither runs a handler, a node pool or the shadow-stack meta words: " + strings.Join(parts, "; ") + "."
	if d := c.NativeDiff; d != nil {
		s += fmt.Sprintf(" The return paths' own difference, under one entry (%s minus %s, graph mode, paired per round): %+.2f ns [%+.2f, %+.2f], p %.3g (Wilcoxon signed-rank): %s. A return's cost also depends on the entry it follows (the designs' entries differ: SAVE_REGS ftrace_regs_caller against ftrace_caller), which is why the paired comparison under one entry is the return paths' answer.",
			d.B, d.A, d.DiffNs, d.CI95[0], d.CI95[1], d.P, native.Verdict(d.Significant, false))
	}
	return s
}

// nativeTimed reports whether c already has pairing n's return cost.
func nativeTimed(c *scenarios.Comparison, n string) bool {
	for _, r := range c.NativeReturns {
		if r.Pairing == n {
			return true
		}
	}
	return false
}

// designOfPairing names the design whose return path pairing n (one of
// native.RethookBase, native.RethookPairing) runs.
func designOfPairing(n string) string {
	if n == native.RethookPairing {
		return ftrace.DesignRethook.String()
	}
	return ftrace.DesignFgraph.String()
}

// nativeArch is the arch of regs.Arches the host CPU runs (nil: none).
func nativeArch() *regs.Arch {
	for _, a := range regs.Arches {
		if native.Covers(a) {
			return a
		}
	}
	return nil
}

// FprobeNativeConfig is a native run of the fprobe question alone: the
// pairing each design's rows run on the native arch, and the two return
// paths under one entry compared (native.RethookBase, RethookPairing),
// for the budget.
func FprobeNativeConfig(budget time.Duration) (native.Config, error) {
	cfg := native.Config{CPU: -1, Budget: budget, Compare: [][2]string{{native.RethookBase, native.RethookPairing}}}
	a := nativeArch()
	if a == nil {
		return cfg, fmt.Errorf("no arch of this build runs on the host CPU")
	}
	names := []string{native.RethookBase, native.RethookPairing}
	for _, d := range ftrace.FprobeDesigns {
		n, err := scenarios.DesignPairingName(a, d)
		if err != nil {
			return cfg, err
		}
		names = append(names, n)
	}
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		j, err := native.ParsePairing(n)
		if err != nil {
			return cfg, err
		}
		cfg.Jobs = append(cfg.Jobs, j)
	}
	return cfg, nil
}

// AttachNativeFprobe fills c's native numbers from a run that timed the
// designs' pairings (FprobeNativeConfig, or the report's
// native.ReportConfig): each design's ns per traced return on its
// one-probe cell, and the two return paths' difference under one entry.
func AttachNativeFprobe(c *scenarios.Comparison, st *native.Stats) error {
	a := nativeArch()
	if a == nil || st == nil {
		return fmt.Errorf("no native run to attach")
	}
	for _, d := range ftrace.FprobeDesigns {
		n, err := scenarios.DesignPairingName(a, d)
		if err != nil {
			return err
		}
		rc, ok := st.ReturnCost(n)
		if !ok {
			return fmt.Errorf("the native run did not time %s (the %s design's pairing)", n, d)
		}
		c.AttachNative(scenarios.NativeReturn{Arch: a.Name, Design: d.String(), Pairing: n, Ns: rc.Ns, CI95: rc.CI95})
	}
	// The two return paths under one entry: their paired difference, and
	// each one's cost where it is not already a design's pairing.
	if cmp, ok := st.Comparison(native.RethookBase, native.RethookPairing, native.Graph); ok {
		c.NativeDiff = &scenarios.NativeDiff{A: cmp.A, B: cmp.B, DiffNs: cmp.DiffNs, CI95: cmp.CI95, P: cmp.P, Significant: cmp.Significant}
		for _, n := range []string{native.RethookBase, native.RethookPairing} {
			if nativeTimed(c, n) {
				continue
			}
			if rc, ok := st.ReturnCost(n); ok {
				c.AttachNative(scenarios.NativeReturn{Arch: a.Name, Design: designOfPairing(n), Pairing: n, Ns: rc.Ns, CI95: rc.CI95, SameEntry: true})
			}
		}
	}
	return nil
}

func bytesText(b int64) string {
	switch {
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d B", b)
}

// FprobeSection writes the Markdown section: the answer per arch, the
// design table (entry+exit, no data, and entry-only) and the dispatch
// table.
func FprobeSection(w io.Writer, c scenarios.Comparison) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n", FprobeSectionTitle)
	b.WriteString("Jiri Olsa on the fgraph-based fprobe: \"this looks expensive compared to what we do now\". Both designs run the same calls of `add` through their own trampolines (rethook, v5.18-v6.13: the entry its era's SAVE_REGS ops goes through and `arch_rethook_trampoline`; fgraph, v6.14+: `ftrace_caller` and `return_to_handler`); the C side is counted by the Go kernel.\n\n")
	for _, a := range archesOfCmp(c) {
		if s := FprobeAnswer(c, a); s != "" {
			fmt.Fprintf(&b, "- %s\n", s)
		}
	}
	b.WriteString("\n| arch | design | probes | functions | exit | data | entry insns | exit insns | ops visited | hash lookups | pool ops | shadow words | atomics | nmissed/call | memory |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range c.FprobeDesigns {
		exit := "entry only"
		if r.Exit {
			exit = "entry+exit"
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			r.Arch, r.Design, r.Probes, r.Functions, exit, r.DataBytes, num(r.Entry.Instructions), num(r.ExitCost.Instructions),
			num(r.CSide.OpsVisited), num(r.CSide.HashLookups), num(r.CSide.PoolOps), num(r.CSide.ShadowWords), num(r.CSide.Atomics),
			num(r.NMissed), bytesText(r.MemoryBytes))
	}
	if len(c.FgraphModes) > 0 {
		b.WriteString("\nfgraph dispatch, N graph users on one function, per traced call: merged (v6.11+: one graph_ops, a lone user called directly, several looped over with each filter tested) against the v5-v9 drafts as an experiment: per-ops-draft (with WITH_ARGS each user's own ftrace_ops, so ftrace's list function tests every user's hash, and function_graph_enter_ops per user, the later ones reusing the first one's frame) and loop (without WITH_ARGS the arch's ftrace_graph_caller -> function_graph_enter testing every user's hash, run on the arch's ftrace_graph_caller pairing). Ops visited are ftrace_ops; filter lookups count every hash test.\n\n")
		b.WriteString("| arch | mode | users | ops visited | filter lookups | shadow words | entry insns | exit insns | trampolines |\n|---|---|---|---|---|---|---|---|---|\n")
		for _, m := range c.FgraphModes {
			fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %s | %s | %s | %s |\n", m.Arch, m.Mode, m.Users, num(m.OpsVisited), num(m.HashLookups),
				num(m.ShadowWords), num(m.Entry.Instructions), num(m.Exit.Instructions), m.Pairing)
		}
		for _, a := range archesOfCmp(c) {
			if s := DispatchAnswer(c, a); s != "" {
				fmt.Fprintf(&b, "\n- %s", s)
			}
		}
		b.WriteString("\n")
	}
	if len(c.DispatchScenarios) > 0 {
		b.WriteString("\nEvery scenario on the fgraph design under each dispatch form (`scenario run --dispatch`), scenarios passed of run:")
		for _, r := range c.DispatchScenarios {
			fmt.Fprintf(&b, " %s %s %d/%d;", r.Arch, r.Dispatch, r.Passed, r.Run)
		}
		s := strings.TrimSuffix(b.String(), ";")
		b.Reset()
		b.WriteString(s + ".")
		for _, r := range c.DispatchScenarios {
			for _, f := range r.Failed {
				fmt.Fprintf(&b, " FAILED on %s %s: %s.", r.Arch, r.Dispatch, f)
			}
		}
		b.WriteString(" The per-ops draft passes index-reuse by showing its frame-reuse misfire (docs/fprobe.md).\n")
	}
	b.WriteString("\nThe chart (fprobe-question-<arch>) plots the entry+exit cells on one function; a cell where every call counted nmissed (fgraph with more exit probes on one function than one 32-word reservation holds) did no work and is left out of it. The chart fgraph-dispatch-<arch> plots each dispatch form's ops visited + filter lookups and shadow-stack words against the number of graph users.\n")
	b.WriteString("\n" + NativeFprobeText(c) + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// DispatchAnswer is the dispatch forms' sentence for an arch: one and
// sixteen graph users on one function ("" when the rows are missing).
func DispatchAnswer(c scenarios.Comparison, arch string) string {
	row := func(mode string, users int) (scenarios.ModeRow, bool) {
		for _, m := range c.FgraphModes {
			if m.Arch == arch && m.Mode == mode && m.Users == users {
				return m, true
			}
		}
		return scenarios.ModeRow{}, false
	}
	hi := 0
	for _, m := range c.FgraphModes {
		if m.Arch == arch {
			hi = max(hi, m.Users)
		}
	}
	var parts []string
	for _, mode := range []string{"merged", "per-ops-draft", "loop"} {
		one, ok1 := row(mode, 1)
		many, ok2 := row(mode, hi)
		if !ok1 || !ok2 {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s ops + %s lookups, %s words for 1 user and %s ops + %s lookups, %s words for %d",
			mode, num(one.OpsVisited), num(one.HashLookups), num(one.ShadowWords), num(many.OpsVisited), num(many.HashLookups), num(many.ShadowWords), hi))
	}
	if len(parts) == 0 || hi < 2 {
		return ""
	}
	return fmt.Sprintf("%s, fgraph dispatch per traced call: %s.", arch, strings.Join(parts, "; "))
}

func archesOfCmp(c scenarios.Comparison) []string {
	var as []string
	seen := map[string]bool{}
	for _, r := range c.FprobeDesigns {
		if !seen[r.Arch] {
			seen[r.Arch] = true
			as = append(as, r.Arch)
		}
	}
	return as
}

// FprobeChartName is the chart's file name prefix ("-<arch>" follows).
const FprobeChartName = "fprobe-question"

// FprobeCharts draws per arch the C side's work per traced call against
// the number of entry+exit probes on one function: rethook's ops visited
// plus hash lookups and its pool operations, fgraph's hash lookups and
// shadow-stack words; SVG and PNG into dir.
func FprobeCharts(dir string, c scenarios.Comparison) ([]Chart, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var out []Chart
	for _, a := range archesOfCmp(c) {
		p := plot.New()
		p.Title.Text = a + ": C-side work per traced call, N entry+exit fprobes on one function"
		p.X.Label.Text = "fprobes on the function"
		p.Y.Label.Text = "operations per traced call"
		series := []struct {
			label, design string
			val           func(scenarios.DesignRow) float64
		}{
			{"rethook: ops visited + hash lookups", "rethook", func(r scenarios.DesignRow) float64 { return r.CSide.OpsVisited + r.CSide.HashLookups }},
			{"rethook: pool gets + puts", "rethook", func(r scenarios.DesignRow) float64 { return r.CSide.PoolOps }},
			{"fgraph: ops visited + hash lookups", "fgraph", func(r scenarios.DesignRow) float64 { return r.CSide.OpsVisited + r.CSide.HashLookups }},
			{"fgraph: shadow-stack words", "fgraph", func(r scenarios.DesignRow) float64 { return r.CSide.ShadowWords }},
		}
		for i, s := range series {
			var xy plotter.XYs
			for _, r := range c.FprobeDesigns {
				// A cell where every call missed (fgraph: more exit probes
				// than one reservation holds) did no work: left out.
				if r.Arch == a && r.Design == s.design && r.Functions == "one" && r.Exit && r.DataBytes == 0 && r.NMissed == 0 {
					xy = append(xy, plotter.XY{X: float64(r.Probes), Y: s.val(r)})
				}
			}
			if len(xy) == 0 {
				continue
			}
			l, pts, err := plotter.NewLinePoints(xy)
			if err != nil {
				return out, err
			}
			l.Color, pts.Color = plotutil.Color(i), plotutil.Color(i)
			l.Dashes = plotutil.Dashes(i) // rethook's two lines coincide: tell them apart
			pts.Shape = plotutil.Shape(i)
			p.Add(l, pts)
			p.Legend.Add(s.label, l, pts)
		}
		p.Legend.Top = true
		p.Legend.Left = true
		p.Add(plotter.NewGrid())
		ch := Chart{Name: FprobeChartName + "-" + a, Title: p.Title.Text}
		for _, f := range ChartFormats {
			path := filepath.Join(dir, ch.Name+"."+f)
			if err := p.Save(7*vg.Inch, 5*vg.Inch, path); err != nil {
				return out, fmt.Errorf("chart %s: %w", path, err)
			}
			ch.Files = append(ch.Files, path)
		}
		out = append(out, ch)
		if dc, ok, err := dispatchChart(dir, c, a); err != nil {
			return out, err
		} else if ok {
			out = append(out, dc)
		}
	}
	return out, nil
}

// DispatchChartName is the dispatch chart's file name prefix ("-<arch>"
// follows).
const DispatchChartName = "fgraph-dispatch"

// dispatchChart draws an arch's fgraph dispatch rows: per form, ops
// visited + filter lookups and shadow-stack words per traced call against
// the number of graph users (false: the arch has no rows).
func dispatchChart(dir string, c scenarios.Comparison, a string) (Chart, bool, error) {
	p := plot.New()
	p.Title.Text = a + ": fgraph dispatch per traced call, N graph users on one function"
	p.X.Label.Text = "graph users"
	p.Y.Label.Text = "per traced call"
	i, any := 0, false
	for _, mode := range []string{"merged", "per-ops-draft", "loop"} {
		for _, s := range []struct {
			label string
			val   func(scenarios.ModeRow) float64
		}{
			{"ops visited + lookups", func(m scenarios.ModeRow) float64 { return m.OpsVisited + m.HashLookups }},
			{"shadow-stack words", func(m scenarios.ModeRow) float64 { return m.ShadowWords }},
		} {
			var xy plotter.XYs
			for _, m := range c.FgraphModes {
				if m.Arch == a && m.Mode == mode {
					xy = append(xy, plotter.XY{X: float64(m.Users), Y: s.val(m)})
				}
			}
			if len(xy) == 0 {
				continue
			}
			l, pts, err := plotter.NewLinePoints(xy)
			if err != nil {
				return Chart{}, false, err
			}
			l.Color, pts.Color = plotutil.Color(i), plotutil.Color(i)
			l.Dashes = plotutil.Dashes(i)
			pts.Shape = plotutil.Shape(i)
			p.Add(l, pts)
			p.Legend.Add(mode+": "+s.label, l, pts)
			i++
			any = true
		}
	}
	if !any {
		return Chart{}, false, nil
	}
	p.Legend.Top, p.Legend.Left = true, true
	p.Add(plotter.NewGrid())
	ch := Chart{Name: DispatchChartName + "-" + a, Title: p.Title.Text}
	for _, f := range ChartFormats {
		path := filepath.Join(dir, ch.Name+"."+f)
		if err := p.Save(7*vg.Inch, 5*vg.Inch, path); err != nil {
			return ch, false, fmt.Errorf("chart %s: %w", path, err)
		}
		ch.Files = append(ch.Files, path)
	}
	return ch, true, nil
}
