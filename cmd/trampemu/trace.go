package main

import (
	"flag"
	"fmt"
	"io"
	"reflect"
	"strings"

	"trampemu/asm"
	"trampemu/check"
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
func cmdTrace(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("trace", flag.ContinueOnError)
	arch := archFlag(fs, "")
	pick := addPickFlags(fs, "the variant to trace (see 'trampemu list')", true)
	workload := fs.String("workload", "add", "the traced function the driver calls")
	scenario := fs.String("scenario", "default", "which kernel users are registered")
	seed := fs.Uint64("seed", 1, "random seed of the canary registers and arguments")
	all := fs.Bool("all", false, "also list the traced function's and the driver's instructions")
	asJSON := fs.Bool("json", false, "print JSON: the call's check result with every step of every unit")
	limit := fs.Uint64("limit", 1000000, "instructions before the run counts as runaway (each costs a Go call here)")
	a, sc, err := parseRun(fs, args, arch, scenario, func() []string { return []string{*workload} })
	if err != nil {
		return err
	}
	tramps, err := pick.tramps(a)
	if err != nil {
		return err
	}
	if len(tramps) != 1 {
		return usagef("which trampoline? one --variant NAME (see 'trampemu list --arch %s') or --file F.S --role entry|exit", a.Name)
	}
	t := tramps[0]
	partner, err := pick.partner(a, t)
	if err != nil {
		return err
	}
	cfg := check.Config{Arch: a, Tramp: t, Partner: &partner, Workloads: []string{*workload}, Scenario: sc, Calls: 1, Seed: *seed, Limit: *limit}
	var rec *trace.Recorder
	var im *asm.Image
	obs := &observed{}
	cfg.Started = func(h *harness.Harness) error {
		im = h.Image
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
	notes, frames := obs.match(rec)
	opt := trace.RenderOptions{Image: im, Frames: frames, Notes: notes}
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
