package main

import (
	"flag"
	"fmt"
	"io"

	"trampemu/native"
	"trampemu/report"
	"trampemu/trampolines"
)

// cmdNative times x86-64 pairings on the host CPU (package native).
func cmdNative(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("native", flag.ContinueOnError)
	arch := archFlag(fs, "x86_64")
	pick := addPickFlags(fs, "variant to time in its intended pairing (repeatable; default: every x86-64 variant)", true)
	calls := fs.Int("calls", 200000, "calls per timed loop")
	repeats := fs.Int("repeats", 5, "timed loops per mode (the fastest counts)")
	asJSON := fs.Bool("json", false, "print JSON")
	a, err := parseArch(fs, args, arch)
	if err != nil {
		return err
	}
	if err := checkRange("--calls", *calls, 1, 1_000_000_000); err != nil {
		return err
	}
	if err := checkRange("--repeats", *repeats, 1, 1000); err != nil {
		return err
	}
	if a.Name != native.Arch.Name {
		return usagef("native timing runs x86-64 code on the host; %s is timed in the emulator (trampemu check, make bench)", a.Name)
	}
	if err := native.Supported(); err != nil {
		return err
	}
	tramps, err := pick.tramps(native.Arch)
	if err != nil {
		return err
	}
	var jobs []native.Job
	for _, t := range tramps {
		partner, err := pick.partner(native.Arch, t)
		if err != nil {
			return err
		}
		// The child rebuilds the pairing from names (and the file's path).
		spec := native.Spec{Variant: t.Name}
		if t.Variant == nil {
			spec = native.Spec{File: *pick.file, Role: t.Role}
		}
		j := native.Job{Arch: a.Name, Entry: spec, Exit: native.Spec{Variant: partner.Name}, Calls: *calls, Repeats: *repeats}
		if t.Role == trampolines.Exit {
			j.Entry, j.Exit = j.Exit, j.Entry
		}
		jobs = append(jobs, j)
	}
	if len(jobs) == 0 {
		jobs = native.RegistryJobs(*calls, *repeats)
	}
	var rs []native.Result
	for _, j := range jobs {
		r, err := native.Measure(j)
		if err != nil {
			// The pairing built but did not run: the trampoline's fault.
			fmt.Fprintf(w, "%v\n", err)
			return errFindings
		}
		rs = append(rs, r)
	}
	if *asJSON {
		return report.WriteJSON(w, rs)
	}
	fmt.Fprintf(w, "Host CPU time per call of add(1, 2), fastest of %d loops of %d calls; the kernel functions are minimal assembly stand-ins (trampolines/native/x86_64.S).\n\n", *repeats, *calls)
	return native.WriteTable(w, rs)
}
