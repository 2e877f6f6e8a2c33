package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"trampemu/check"
	"trampemu/native"
	"trampemu/regs"
	"trampemu/scenarios"
)

// Quoted is what the Markdown documents (README.md, docs/*.md) quote from
// a report: the part of out/report.json that `make readme` copies into
// docs/numbers.json, with the machine and the date of the run. Every
// quoted figure sits in a block
//
//	<!-- trampemu:NAME -->
//	...
//	<!-- /trampemu:NAME -->
//
// whose text is Blocks[NAME] rendered from it: `make readme` writes the
// blocks, TestDocsQuoteTheirReport fails when a block differs from what
// docs/numbers.json renders (a number edited by hand, or a snapshot from
// another run).
type Quoted struct {
	// Source is the report file, Machine and Date the native run's
	// (where and when the numbers were measured).
	Source  string `json:"source"`
	Machine string `json:"machine"`
	Date    string `json:"date"`
	// Headline is the native headline, with the rerun experiment's
	// spread when the report had it.
	Headline []native.HeadlineRow `json:"native_headline"`
	// Exits are the x86-64 exit trampolines' exact costs per traced call.
	Exits []QuotedCost `json:"x86_64_exits"`
	// Emulation is each arch's emulator ratio against raw Unicorn.
	Emulation []QuotedRatio `json:"emulation"`
	// EmulationRun names the report run the Emulation ratios come from
	// (machine, date) when it is not the native run's: make
	// readme-emulation takes them from a newer report and keeps the rest.
	EmulationRun *RunName `json:"emulation_run,omitempty"`
	// Stability is the rerun experiment the report read (make
	// bench-stability), nil without one.
	Stability *native.Stability `json:"stability,omitempty"`
	// Fprobe is the fprobe question's quoted numbers, nil when the report
	// had no native timing of its return paths.
	Fprobe *QuotedFprobe `json:"fprobe,omitempty"`
	// Machines is every machine's last native run (KeepMachines), this
	// one's among them: the native-machines block shows a conclusion on
	// each.
	Machines []MachineRun `json:"machines,omitempty"`
}

// RunName is where and when a report ran.
type RunName struct {
	Machine string `json:"machine"`
	Date    string `json:"date"`
}

// QuoteEmulation takes the emulator ratios of the report in data (named
// source) into q, keeping the rest of q, with the report's machine and
// date (the native run's: every report has one on x86-64).
func QuoteEmulation(q *Quoted, data []byte, source string) error {
	n, err := QuoteReport(data, source)
	if err != nil {
		return err
	}
	if len(n.Emulation) == 0 {
		return fmt.Errorf("%s has no emulator speed table: make report with --emu-calls", source)
	}
	q.Emulation = n.Emulation
	q.EmulationRun = &RunName{Machine: n.Machine, Date: n.Date}
	return nil
}

// QuotedFprobe is what the documents quote of the fprobe question: the
// native ns per traced return of both return paths and their difference
// under one entry (scenarios.Comparison's NativeReturns and NativeDiff),
// with the exact trampoline instructions of the one-probe entry+exit cell
// of each design on the native arch, and the machine and date of the
// native run they come from.
type QuotedFprobe struct {
	Machine string                   `json:"machine"`
	Date    string                   `json:"date"`
	Returns []scenarios.NativeReturn `json:"native_returns"`
	Diff    *scenarios.NativeDiff    `json:"native_diff,omitempty"`
	// Instructions are entry + exit trampoline instructions per traced
	// call of the one-probe entry+exit cell, by design.
	Instructions map[string]float64 `json:"instructions"`
}

// quoteFprobe picks the fprobe numbers of a report (nil without native
// returns).
func quoteFprobe(c *scenarios.Comparison, run *native.RunInfo) *QuotedFprobe {
	if c == nil || len(c.NativeReturns) == 0 || run == nil {
		return nil
	}
	q := &QuotedFprobe{Machine: run.Machine, Date: run.Date, Returns: c.NativeReturns, Diff: c.NativeDiff, Instructions: map[string]float64{}}
	for _, r := range c.NativeReturns {
		if row, ok := c.Cell(r.Arch, r.Design, "one", 1, true, 0); ok {
			q.Instructions[r.Design] = row.Entry.Instructions + row.ExitCost.Instructions
		}
	}
	return q
}

// QuotedCost is one variant's exact cost.
type QuotedCost struct {
	Variant      string  `json:"variant"`
	Model        string  `json:"model"`
	Instructions float64 `json:"instructions"`
	Stores       float64 `json:"stores"`
	StoreBytes   float64 `json:"store_bytes"`
}

// QuotedRatio is one arch's emulator overhead over raw Unicorn: the median
// of the rounds' ratios with their range.
type QuotedRatio struct {
	Arch   string       `json:"arch"`
	Ratio  float64      `json:"ratio"`
	IQR    [2]float64   `json:"iqr"`
	Spread check.Spread `json:"spread"`
	// ChecksOn is the checked graph call over the same call with checks
	// off (check.Emulation.ChecksOnRatio), with its rounds' range.
	ChecksOn       float64      `json:"checks_on"`
	ChecksOnSpread check.Spread `json:"checks_on_spread"`
}

// QuoteReport reads out/report.json (the JSON of `trampemu report`) into
// what the documents quote; source names it.
func QuoteReport(data []byte, source string) (*Quoted, error) {
	var rep struct {
		Variants  []check.Summary            `json:"variants"`
		Headline  []native.HeadlineRow       `json:"native_headline"`
		NativeRun *native.RunInfo            `json:"native_run"`
		Emulation map[string]check.Emulation `json:"emulation"`
		Stability *native.Stability          `json:"native_stability"`
		Fprobe    *scenarios.Comparison      `json:"fprobe"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, fmt.Errorf("%s: not the JSON of trampemu report (%v): run make report again", source, err)
	}
	if rep.NativeRun == nil || len(rep.Headline) == 0 {
		return nil, fmt.Errorf("%s has no native run: make report on an x86-64 host (the README quotes its headline)", source)
	}
	q := &Quoted{Source: source, Machine: rep.NativeRun.Machine, Date: rep.NativeRun.Date, Headline: rep.Headline}
	native.AttachReruns(q.Headline, rep.Stability) // the rerun experiment the report read, as the headline quotes it
	q.Stability = rep.Stability
	q.Fprobe = quoteFprobe(rep.Fprobe, rep.NativeRun)
	for _, s := range rep.Variants {
		if s.Arch == native.Arch.Name && s.Role == "exit" {
			q.Exits = append(q.Exits, QuotedCost{Variant: s.Variant, Model: s.Model, Instructions: s.Metrics.Instructions, Stores: s.Metrics.Stores, StoreBytes: s.Metrics.StoreBytes})
		}
	}
	for _, a := range regsOrder(rep.Emulation) {
		e := rep.Emulation[a]
		q.Emulation = append(q.Emulation, QuotedRatio{Arch: e.Arch, Ratio: e.RawUnicornRatio, IQR: e.RatioIQR, Spread: e.RatioSpread,
			ChecksOn: e.ChecksOnRatio, ChecksOnSpread: e.ChecksOnSpread})
	}
	return q, nil
}

// regsOrder lists m's arches in regs.Arches order.
func regsOrder(m map[string]check.Emulation) []string {
	var out []string
	for _, a := range regs.Arches {
		if _, ok := m[a.Name]; ok {
			out = append(out, a.Name)
		}
	}
	return out
}

// Blocks renders each quotable block from q.
var Blocks = map[string]func(q *Quoted) string{
	"native-headline": func(q *Quoted) string {
		var b strings.Builder
		fmt.Fprintf(&b, "From `make report` (%s) on %s, %s.\n\n", q.Source, q.Machine, q.Date)
		b.WriteString("| B minus A (graph user, per traced return) | median [95% interval] | layout shifts | between reruns | exact difference |\n|---|--:|--:|--:|---|\n")
		for _, h := range q.Headline {
			reruns := "not measured"
			if r := h.Reruns; r != nil {
				reruns = fmt.Sprintf("%+.2f to %+.2f, SD %.2f; significant in %d of %d runs (%s)", r.Min, r.Max, r.SD, r.Significant, r.Runs, r.Date)
			}
			exact := ""
			if h.Instructions != nil {
				exact = fmt.Sprintf("%+g instructions, %+g stores, %+g bytes stored", *h.Instructions, *h.Stores, *h.StoreBytes)
			}
			fmt.Fprintf(&b, "| %s: %s minus %s | **%+.2f ns [%+.2f, %+.2f]** (%s) | %+.2f to %+.2f | %s | %s |\n", h.Label, h.B, h.A, h.DiffNs, h.CI95[0], h.CI95[1],
				native.Verdict(h.Significant, h.Negligible), h.ShiftRange[0], h.ShiftRange[1], reruns, exact)
		}
		return b.String()
	},
	"x86_64-exits": func(q *Quoted) string {
		var b strings.Builder
		fmt.Fprintf(&b, "From `make report` (%s), %s.\n\n", q.Source, q.Date)
		b.WriteString("| x86-64 `return_to_handler` | models | insns | stores | bytes stored |\n|---|---|--:|--:|--:|\n")
		for _, c := range q.Exits {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", c.Variant, c.Model, num(c.Instructions), num(c.Stores), num(c.StoreBytes))
		}
		return b.String()
	},
	"stability": func(q *Quoted) string {
		s := q.Stability
		if s == nil {
			return "No rerun experiment in the report (make bench-stability, then make report).\n"
		}
		var b strings.Builder
		fmt.Fprintf(&b, "From `make bench-stability` (%d reruns of %.0f s) on %s, %s, as %s quotes it. A/A control passed in %d of %d.\n\n", s.Runs, s.BudgetS, s.Machine, s.Date, q.Source, s.AAPasses, s.Runs)
		b.WriteString("| B minus A (graph user) | median of runs | between-run SD | range | median half-width | covers the others' median | significant |\n|---|--:|--:|--:|--:|--:|--:|\n")
		for _, r := range s.Compare {
			if r.Mode != native.Graph {
				continue
			}
			fmt.Fprintf(&b, "| %s minus %s | %+.3f | %.3f | %+.3f to %+.3f | %.3f | %d of %d | %d of %d |\n", r.B, r.A, r.Median, r.SD, r.Min, r.Max, r.MedianHalfWidth, r.Covered, len(r.DiffNs), r.Significant, len(r.DiffNs))
		}
		if covered, total := s.GraphCoverage(); total > 0 {
			fmt.Fprintf(&b, "\nThe intervals of the comparisons covered the other runs' median in %d of %d (%.1f%%; nominal %.1f%%).\n", covered, total, 100*float64(covered)/float64(total), 100*s.Compare[0].Nominal)
		}
		return b.String()
	},
	"fprobe-native": func(q *Quoted) string {
		f := q.Fprobe
		if f == nil {
			return "No native timing of the fprobe return paths in the report (make report on an x86-64 host).\n"
		}
		var b strings.Builder
		fmt.Fprintf(&b, "From `make report` on %s, %s: ns per traced return on the host CPU, median [95%% interval], the same assembly stand-ins for both C callbacks:", f.Machine, f.Date)
		for _, r := range f.Returns {
			if r.SameEntry {
				fmt.Fprintf(&b, " %s %s (`%s`, under the other design's entry) %.2f ns [%.2f, %.2f];", r.Arch, r.Design, r.Pairing, r.Ns, r.CI95[0], r.CI95[1])
				continue
			}
			fmt.Fprintf(&b, " %s %s (`%s`, whose trampolines run %s instructions per traced call) %.2f ns [%.2f, %.2f];", r.Arch, r.Design, r.Pairing, num(f.Instructions[r.Design]), r.Ns, r.CI95[0], r.CI95[1])
		}
		s := strings.TrimSuffix(b.String(), ";")
		if d := f.Diff; d != nil {
			s += fmt.Sprintf("; the return paths under one entry, `%s` minus `%s`: %+.2f ns [%+.2f, %+.2f] (%s, p %.3g)", d.B, d.A, d.DiffNs, d.CI95[0], d.CI95[1], native.Verdict(d.Significant, false), d.P)
		}
		return s + ".\n"
	},
	"native-machines": machinesBlock,
	"emulation": func(q *Quoted) string {
		var b strings.Builder
		if r := q.EmulationRun; r != nil {
			fmt.Fprintf(&b, "From `make report` on %s, %s: ns per function-tracer call in the emulator over raw Unicorn, median of the rounds' ratios [their quartiles]:", r.Machine, r.Date)
		} else {
			fmt.Fprintf(&b, "From `make report` (%s) on %s, %s: ns per function-tracer call in the emulator over raw Unicorn, median of the rounds' ratios [their quartiles]:", q.Source, q.Machine, q.Date)
		}
		for _, e := range q.Emulation {
			fmt.Fprintf(&b, " %s %.2fx [%.2f-%.2f];", e.Arch, e.Ratio, e.IQR[0], e.IQR[1])
		}
		s := strings.TrimSuffix(b.String(), ";")
		if len(q.Emulation) > 0 && q.Emulation[0].ChecksOn > 0 {
			s += "; a graph call with every check on over the same call with checks off, median [range] of the rounds:"
			for _, e := range q.Emulation {
				s += fmt.Sprintf(" %s %.2fx [%.2f-%.2f];", e.Arch, e.ChecksOn, e.ChecksOnSpread.Min, e.ChecksOnSpread.Max)
			}
			s = strings.TrimSuffix(s, ";")
		}
		return s + ".\n"
	},
}

// BlockNames lists Blocks' names, sorted.
func BlockNames() []string {
	var out []string
	for n := range Blocks {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

const (
	blockOpen  = "<!-- trampemu:"
	blockClose = "<!-- /trampemu:"
	blockEnd   = " -->"
)

// block is one quoted block of a document: its name and the text between
// its markers, at [start, end) of the document.
type block struct {
	name       string
	start, end int
}

// findBlocks lists doc's blocks; a block without its end marker, or of a
// name Blocks does not know, is an error.
func findBlocks(doc []byte) ([]block, error) {
	var out []block
	for off := 0; ; {
		i := bytes.Index(doc[off:], []byte(blockOpen))
		if i < 0 {
			return out, nil
		}
		i += off
		j := bytes.Index(doc[i:], []byte(blockEnd))
		if j < 0 {
			return nil, fmt.Errorf("an unterminated %q marker", blockOpen)
		}
		name := string(doc[i+len(blockOpen) : i+j])
		if _, ok := Blocks[name]; !ok {
			return nil, fmt.Errorf("block %q: valid are %s", name, strings.Join(BlockNames(), ", "))
		}
		start := i + j + len(blockEnd)
		if start < len(doc) && doc[start] == '\n' {
			start++
		}
		closing := blockClose + name + blockEnd
		k := bytes.Index(doc[start:], []byte(closing))
		if k < 0 {
			return nil, fmt.Errorf("block %q has no %q", name, closing)
		}
		out = append(out, block{name: name, start: start, end: start + k})
		off = start + k + len(closing)
	}
}

// RewriteQuotes renders every block of doc from q.
func RewriteQuotes(doc []byte, q *Quoted) ([]byte, error) {
	bs, err := findBlocks(doc)
	if err != nil {
		return nil, err
	}
	var out []byte
	last := 0
	for _, b := range bs {
		out = append(out, doc[last:b.start]...)
		out = append(out, Blocks[b.name](q)...)
		last = b.end
	}
	return append(out, doc[last:]...), nil
}

// CheckQuotes reports every block of doc whose text is not what q
// renders; the number of blocks checked.
func CheckQuotes(doc []byte, q *Quoted) (int, error) {
	bs, err := findBlocks(doc)
	if err != nil {
		return 0, err
	}
	var bad []string
	for _, b := range bs {
		if want := Blocks[b.name](q); string(doc[b.start:b.end]) != want {
			bad = append(bad, fmt.Sprintf("block %s differs from %s (%s): has\n%s\nwants\n%s", b.name, q.Source, q.Date, doc[b.start:b.end], want))
		}
	}
	if len(bad) > 0 {
		return len(bs), fmt.Errorf("%s\n(make readme rewrites the blocks from out/report.json)", strings.Join(bad, "\n"))
	}
	return len(bs), nil
}
