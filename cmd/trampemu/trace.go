package main

import (
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/spf13/cobra"

	"trampemu/asm"
	"trampemu/check"
	"trampemu/ftrace"
	"trampemu/harness"
	"trampemu/regs"
	"trampemu/report"
	"trampemu/trace"
	"trampemu/trampolines"
)

// cmdTrace runs one checked call of a workload through a pairing and prints
// it step by step: each trampoline instruction with the registers it
// changed and the memory it read and wrote, each call into the Go kernel
// with what it read, wrote and clobbered, then the findings of that call.
func cmdTrace(c *cobra.Command) runFunc {
	fs := c.Flags()
	arch := archFlag(fs, "")
	pick := addPickFlags(fs, "the variant `NAME` to trace (see 'trampemu list')", true)
	workload := fs.StringP("workload", "w", "add", "the traced function the driver calls")
	scenario := fs.StringP("scenario", "s", "default", "which kernel users are registered")
	seed := fs.Uint64("seed", 1, "random seed of the canary registers and arguments")
	all := fs.Bool("all", false, "also list the traced function's and the driver's instructions")
	asJSON := fs.Bool("json", false, "print JSON: the call's check result with every step of every unit (--format json)")
	format := formatFlag(c, formatText, "text (step by step), json (as --json), or function_graph (what the graph users saw, in the kernel's function_graph trace format)",
		formatText, formatJSON, formatFunctionGraph)
	limit := fs.Uint64("limit", 1000000, "instructions before the run counts as runaway (each costs a Go call here)")
	fprobe := fprobeFlag(c)
	return func(args []string, w io.Writer) error {
		a, sc, err := parseRun(args, arch, scenario, func() []string { return []string{*workload} })
		if err != nil {
			return err
		}
		design, err := parseFprobe(*fprobe)
		if err != nil {
			return err
		}
		tramps, err := pick.tramps(a)
		if err != nil {
			return err
		}
		if design == ftrace.DesignRethook && len(tramps) == 0 {
			if tramps, err = designTramps(a, design, nil); err != nil {
				return err
			}
			tramps = tramps[:1] // the arch's arch_rethook_trampoline
		} else if tramps, err = designTramps(a, design, tramps); err != nil {
			return err
		}
		if len(tramps) != 1 {
			var names []string
			for _, t := range tramps {
				names = append(names, t.Trampoline())
			}
			if len(names) > 1 {
				return usagef("which trampoline? the file defines %v: choose one with --role", names)
			}
			return usagef("which trampoline? one --variant NAME (see 'trampemu list --arch %s') or --file F.S --role entry|exit|SYMBOL", a.Name)
		}
		if err := checkFormat(*format, formatText, formatJSON, formatFunctionGraph); err != nil {
			return err
		}
		if *format == formatJSON {
			*asJSON = true
		}
		t := tramps[0]
		partner, err := pick.partner(a, t)
		if err != nil {
			return err
		}
		if p, err := designPartner(a, design, t); err != nil {
			return err
		} else if p != nil && *pick.pair == "" {
			partner = *p
		}
		cfg := check.Config{Arch: a, Tramp: t, Partner: &partner, Workloads: []string{*workload}, Scenario: sc, Calls: 1, Seed: *seed, Limit: *limit}
		// First the interrupt model alone (its calls are not traced): at which
		// instructions an unwinder would lose the traced function's caller.
		unwind, err := check.Run(cfg)
		if err != nil {
			if *pick.file != "" {
				return usageError{err.Error()}
			}
			return err
		}
		cfg.NoInterrupts = true // the traced call: one call, not interrupted
		var rec *trace.Recorder
		var im *asm.Image
		obs := &observed{}
		glog := newGraphLog()
		names := map[uint64]string{}
		cfg.Started = func(h *harness.Harness) error {
			h.Opts.AllHostRegs = true // matched with the trace's steps by the whole register file
			h.M.SetLeaveFlags(true)   // and every register at each leave
			im = h.Image
			for addr, n := range opsLiteralNames(h) {
				names[addr] = n
			}
			if *format == formatFunctionGraph {
				watchGraph(glog, h) // no step-by-step recorder: it costs a Go call per instruction
				return nil
			}
			rec = trace.NewRecorder(im)
			rec.Max = 50000 // one call of the deepest workload takes far fewer
			text := a.Memory.Text
			return h.M.Trace(rec, text.Base, text.End())
		}
		cfg.Observe = obs.add
		rs, err := check.Run(cfg)
		if err != nil {
			if cfg.Tramp.Variant == nil {
				return explainFile(a, cfg.Tramp, err)
			}
			return err
		}
		r := rs[0]
		u := unwind[0].Metrics
		r.Metrics.Boundaries, r.Metrics.UnrecoverableInsns, r.Metrics.Unrecoverable = u.Boundaries, u.UnrecoverableInsns, u.Unrecoverable
		// What only an interrupt shows (the traced call is not interrupted).
		for _, f := range unwind[0].Findings {
			if f.Kind == check.Stack && strings.Contains(f.Summary, check.BelowSPSummary) {
				r.Findings = append(r.Findings, f)
			}
		}
		r.OK = r.Errors() == 0
		if *format == formatFunctionGraph {
			fmt.Fprintf(w, "# trampemu trace: %s %s (%s) with %s, workload %s, scenario %s\n", a.Name, r.Variant, r.Role, r.Pair, r.Workload, r.Scenario)
			if err := glog.Render(w); err != nil {
				return err
			}
			if !r.OK {
				return errFindings
			}
			return nil
		}
		notes, frames := obs.match(rec)
		markUnrecoverable(rec, notes, u.UnrecoverablePCs)
		opt := trace.RenderOptions{Image: im, Frames: frames, Notes: notes, Names: names}
		if *asJSON {
			err = report.WriteJSON(w, traceJSON{Result: r, Steps: rec.JSON(opt), Dropped: rec.Dropped})
		} else {
			err = renderTrace(w, a.Name, r, rec, opt, *all)
		}
		if err != nil {
			return err
		}
		if !r.OK {
			return errFindings
		}
		return nil
	}
}

// opsLiteralNames names the CALL_OPS literal of each traced function, where
// the arch has one (ftrace.ArchOps.CallOpsLiteral, arm64 v6.3+), by its
// offset from the function: "add-0x10 (ops literal)".
func opsLiteralNames(h *harness.Harness) map[uint64]string {
	lit := ftrace.MustOps(h.Arch).CallOpsLiteral
	if lit == nil {
		return nil
	}
	out := map[uint64]string{}
	for _, s := range h.Sites {
		addr := lit(s.Addr)
		if fn, ok := h.Image.Symbol(s.Func); ok && fn >= addr {
			out[addr] = fmt.Sprintf("%s-%#x (ops literal)", s.Func, fn-addr)
		}
	}
	return out
}

// markUnrecoverable notes, under every traced instruction at which the
// interrupt model found the traced function's caller unrecoverable, that
// an unwinder interrupted there loses it.
func markUnrecoverable(rec *trace.Recorder, notes map[int][]string, pcs []uint64) {
	lost := map[uint64]bool{}
	for _, pc := range pcs {
		lost[pc] = true
	}
	for i, s := range rec.Steps {
		if s.Host == "" && lost[s.PC] {
			notes[i] = append(notes[i], "UNWIND LOST: an interrupt before this instruction leaves the unwinder without the traced function's caller")
		}
	}
}

// traceJSON is what trampemu trace --json prints: the check result of the
// traced call (as trampemu check --json prints it) with the steps.
type traceJSON struct {
	check.Result
	Steps   []trace.JSONStep `json:"steps"`
	Dropped int              `json:"dropped,omitempty"`
}

// renderTrace prints the trace as text: the trampolines' steps (all units
// with all), then the findings.
func renderTrace(w io.Writer, arch string, r check.Result, rec *trace.Recorder, opt trace.RenderOptions, all bool) error {
	fmt.Fprintf(w, "trace: %s %s (%s) with %s, workload %s, scenario %s\n", arch, r.Variant, r.Role, r.Pair, r.Workload, r.Scenario)
	if !all {
		opt.Show = map[string]bool{string(trampolines.Entry): true, string(trampolines.Exit): true}
	}
	if err := rec.Render(w, opt); err != nil {
		return err
	}
	if m := r.Metrics; m.Boundaries > 0 {
		fmt.Fprintf(w, "unwind: the caller is unrecoverable at %d of %d instruction boundaries (marked UNWIND LOST)\n", m.UnrecoverableInsns, m.Boundaries)
	}
	if len(r.Findings) == 0 {
		fmt.Fprintln(w, "findings: none")
		return nil
	}
	fmt.Fprintln(w, "findings:")
	for _, f := range r.Findings {
		fmt.Fprintf(w, "  %s\n", f)
	}
	return nil
}

// observed keeps, from the checked call, what the trace shows next to the
// host calls: the frames handed to C and what the Go kernel did in each call.
type observed struct {
	calls []hostSeen
}

// hostSeen is one host call of an invocation: its register file (to find
// it in the trace) and the lines to print under it.
type hostSeen struct {
	name  string
	regs  regs.RegFile
	frame trace.Frame
	lines []string
}

func (o *observed) add(c *harness.Call) {
	for _, inv := range c.Invocations {
		for k := range inv.Calls {
			hc := &inv.Calls[k]
			hs := hostSeen{name: hc.Name, regs: hc.Regs}
			if hc.Layout != nil {
				hs.frame = trace.Frame{Base: hc.Base, Layout: hc.Layout}
				var written, unwritten []string
				for _, st := range hc.Slots() {
					if st.Written {
						written = append(written, hc.Layout.Slots[st.Index].Name)
					} else {
						unwritten = append(unwritten, hc.Layout.Slots[st.Index].Name)
					}
				}
				hs.lines = append(hs.lines, fmt.Sprintf("%s at %#x: written %s; never written %s",
					hc.Layout.Name, hc.Base, list(written), list(unwritten)))
			}
			for _, rd := range inv.Reads {
				if rd.Call != k {
					continue
				}
				what := rd.Slot
				if what == "" {
					what = fmt.Sprintf("stack word %#x", rd.Addr)
				}
				line := fmt.Sprintf("%s reads %s through %s = %#x", rd.Caller, what, rd.Accessor, rd.Value)
				if rd.Stale {
					line += "  STALE: the trampoline never wrote it"
				}
				hs.lines = append(hs.lines, line)
			}
			for _, cw := range inv.CWrites {
				if cw.Call == k {
					hs.lines = append(hs.lines, fmt.Sprintf("%s writes %s = %#x", cw.Caller, cw.Slot, cw.Value))
				}
			}
			for _, gw := range inv.GoWrites {
				if gw.Call == k {
					hs.lines = append(hs.lines, fmt.Sprintf("kernel writes %d bytes at %#x", gw.Size, gw.Addr))
				}
			}
			o.calls = append(o.calls, hs)
		}
	}
}

func list(s []string) string {
	if len(s) == 0 {
		return "-"
	}
	return strings.Join(s, " ")
}

// match attaches each observed host call's lines and frame to the trace
// step of the same call: same function, same register file.
func (o *observed) match(rec *trace.Recorder) (map[int][]string, map[int]trace.Frame) {
	notes, frames := map[int][]string{}, map[int]trace.Frame{}
	used := make([]bool, len(o.calls))
	for i, s := range rec.Steps {
		if s.Host == "" {
			continue
		}
		for j, hc := range o.calls {
			if !used[j] && hc.name == s.Host && reflect.DeepEqual(hc.regs, s.Regs) {
				used[j] = true
				notes[i] = hc.lines
				if hc.frame.Layout != nil {
					frames[i] = hc.frame
				}
				break
			}
		}
	}
	return notes, frames
}
