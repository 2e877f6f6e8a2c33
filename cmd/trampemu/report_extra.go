package main

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"trampemu/check"
	"trampemu/harness"
	"trampemu/native"
	"trampemu/regs"
	"trampemu/report"
)

// valgrindCalls is how many traced calls each x86-64 pairing makes under
// callgrind for the exactness table's valgrind column.
const valgrindCalls = 1000

// valgrindInstructions returns valgrind's instruction, data read and
// data write counts per traced call of every x86-64 variant run natively
// in its intended pairing (native.ValgrindCounts), or nil when the host cannot run x86-64 code
// natively (the column then reads "-", JSON null).
func valgrindInstructions() (map[string]check.ValgrindCosts, error) {
	if native.Supported() != nil {
		return nil, nil
	}
	vg, err := native.ValgrindCounts(valgrindCalls)
	out := map[string]check.ValgrindCosts{}
	for name, c := range vg {
		out[name] = check.ValgrindCosts{Instructions: c.Instructions, Loads: c.Loads, Stores: c.Stores}
	}
	return out, err
}

// exactnessRows proves every variant's cost (check.Exact) and fills the
// valgrind column where it can.
func exactnessRows(as []*regs.Arch, p *progress) ([]check.Exactness, error) {
	return exactnessRowsOf(as, nil, p)
}

// exactnessRowsOf is exactnessRows for the variants named in only (nil:
// every variant).
func exactnessRowsOf(as []*regs.Arch, only []string, p *progress) ([]check.Exactness, error) {
	var rows []check.Exactness
	for _, a := range as {
		var vg map[string]check.ValgrindCosts
		if native.Covers(a) {
			var err error
			if vg, err = valgrindInstructions(); err != nil {
				return rows, fmt.Errorf("valgrind counts of the x86-64 pairings: %w", err)
			}
		}
		for _, v := range harness.VariantsOf(a, "") {
			if only != nil && !slices.Contains(only, v.Name) {
				continue
			}
			if v.NoReturn {
				p.step("exactness " + a.Name + " " + v.Name + ": never returns, no cost to prove")
				continue
			}
			e, err := check.Exact(a, v)
			if err != nil {
				return rows, fmt.Errorf("exactness of %s %s: %w", a.Name, v.Name, err)
			}
			if c, ok := vg[v.Name]; ok {
				e.Valgrind = &c
			}
			rows = append(rows, e)
			p.step("exactness " + a.Name + " " + v.Name)
		}
	}
	return rows, nil
}

// emulationRows measures each arch's emulator speed against raw Unicorn.
func emulationRows(as []*regs.Arch, calls uint64, repeats int, p *progress) (map[string]check.Emulation, []check.Emulation, error) {
	if calls == 0 || repeats <= 0 {
		return nil, nil, nil
	}
	m := map[string]check.Emulation{}
	var list []check.Emulation
	for _, a := range as {
		e, err := check.MeasureEmulation(a, calls, repeats)
		if err != nil {
			return nil, nil, fmt.Errorf("emulation speed on %s: %w", a.Name, err)
		}
		m[a.Name] = e
		list = append(list, e)
		p.step("emulation speed " + a.Name)
	}
	return m, list, nil
}

// reportCharts writes the charts into dir/ (nothing without --out), the
// native chart included when the native section ran, and lists them.
func reportCharts(dir string, rep *fullReport) error {
	if dir == "" {
		return nil
	}
	cs, err := report.WriteCharts(dir, rep.Variants, rep.ShadowStack)
	if err != nil {
		return err
	}
	if rep.Fprobe != nil {
		fcs, err := report.FprobeCharts(dir, *rep.Fprobe)
		if err != nil {
			return err
		}
		cs = append(cs, fcs...)
	}
	if len(rep.Native) > 0 {
		files, err := report.NativeChart(rep.Native, dir)
		if err != nil {
			return err
		}
		cs = append(cs, report.Chart{Name: report.NativeChartName, Title: "x86-64 on the host CPU: ns per call of each pairing and mode, median and 95% interval", Files: files})
	}
	for i := range cs {
		for j, f := range cs[i].Files {
			cs[i].Files[j] = filepath.Base(f) // relative to report.md
		}
	}
	rep.Charts = cs
	return nil
}

// markdownExtra renders the exactness proof, the emulator speed and the
// chart list.
func markdownExtra(w io.Writer, rep fullReport) error {
	if len(rep.Exactness) > 0 {
		fmt.Fprintln(w, "## Exact counts, proven")
		fmt.Fprintln(w)
		fmt.Fprintf(w, "Per traced call of `add` (%d checked calls, default scenario): the block counters (C block counts times the disassembler's facts: what the tables above show) against emu's per-instruction counting mode on the same run (a C hook on every instruction and on every memory access: Unicorn's own view; an access split by QEMU into pieces of one contiguous field counts once), and valgrind's counts of the same code run natively (x86-64: callgrind's instructions, data reads and data writes, the loads and stores; `-` where none was made). One figure means the counters agree; \"equal\" counts valgrind's figures too, and a row that is not equal makes the report exit 1.\n\n", check.ExactCalls)
		if err := report.ExactnessTable(w, rep.Exactness); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	if len(rep.emulationList) > 0 {
		fmt.Fprintln(w, "## Emulator speed against raw Unicorn")
		fmt.Fprintln(w)
		e := rep.emulationList[0]
		fmt.Fprintf(w, "Each arch's current pairing with checks off, `add` through the fast driver, %d calls per run, median [min-max] of %d interleaved rounds after a warm-up, in CPU time of the emulating thread (other load on the machine does not count); calls/s comes from the fastest round (the least disturbed by other load); the overhead is the median [min-max] over the rounds of each round's function tracer / raw ratio (the two runs of a round are back to back, under the same load). Raw Unicorn is a second machine with the same image and a function tracer enabled from which every trampemu hook was removed (no block counter, no host-function hook: the host stubs are plain returns and Go never runs); its instruction stream equals the function-tracer call's (checked per call with the per-instruction counter: instructions, loads, stores). The overhead is function tracer / raw; \"block hook only\" is the same stream with trampemu's block counter on and no host functions (no Go), which splits the overhead into the block hook and the host calls (a plain function tracer's dispatch runs in C, without Go: harness armFast). A graph return has no raw twin (without Go nobody swaps the return address). \"Checks on\" is the graph call through the checked driver with the observations trampemu check makes (harness.Options.Checks, the interrupt model off: canaries in every register, the trampolines' enter and leave events with their registers and stack, the host calls' registers and frames, the kernel model's slot reads), timed in the same rounds; checks on / off is the median [range] over the rounds of each round's checks-on / graph ratio.\n\n", e.Calls, e.Repeats)
		if err := report.EmulationTable(w, rep.emulationList); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	if len(rep.Charts) > 0 {
		fmt.Fprintln(w, "## Charts")
		fmt.Fprintln(w)
		for _, c := range rep.Charts {
			fmt.Fprintf(w, "- %s: %s\n", c.Title, joinLinks(c.Files))
		}
		fmt.Fprintln(w)
	}
	return nil
}

func joinLinks(files []string) string {
	s := ""
	for i, f := range files {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("[%s](%s)", filepath.Ext(f)[1:], f)
	}
	return s
}
