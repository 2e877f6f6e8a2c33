package main

import (
	"flag"
	"fmt"
	"io"

	"trampemu/harness"
	"trampemu/native"
	"trampemu/report"
	"trampemu/trampolines"
)

// cmdNative times x86-64 pairings on the host CPU (package native).
func cmdNative(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("native", flag.ContinueOnError)
	arch := archFlag(fs, "x86_64")
	var variants multi
	fs.Var(&variants, "variant", "variant to time in its intended pairing (repeatable; default: every x86-64 variant)")
	file := fs.String("file", "", "your kernel-style .S instead of a variant")
	role := fs.String("role", "", "with --file: entry or exit")
	pair := fs.String("pair", "", "the variant for the other role of --file or a single --variant (default: the intended pair, for a file the kernel's current one)")
	calls := fs.Int("calls", 200000, "calls per timed loop")
	repeats := fs.Int("repeats", 5, "timed loops per mode (the fastest counts)")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected arguments %v (a file goes with --file)", fs.Args())
	}
	a, err := archOf(*arch)
	if err != nil {
		return err
	}
	if a.Name != native.Arch.Name {
		return usagef("native timing runs x86-64 code on the host; %s is timed in the emulator (trampemu check, make bench)", a.Name)
	}
	if err := native.Supported(); err != nil {
		return err
	}
	var jobs []native.Job
	addJob := func(t trampolines.Role, spec native.Spec, partner string) error {
		j := native.Job{Arch: a.Name, Calls: *calls, Repeats: *repeats}
		tr, err := spec.Tramp(t)
		if err != nil {
			return usageError{err.Error()}
		}
		other := trampolines.Exit
		if t == trampolines.Exit {
			other = trampolines.Entry
		}
		if partner == "" {
			p, err := harness.Pair(native.Arch, tr)
			if err != nil {
				return err
			}
			partner = p.Name
		} else if _, err := (native.Spec{Variant: partner}).Tramp(other); err != nil {
			return usageError{err.Error()}
		}
		j.Entry, j.Exit = spec, native.Spec{Variant: partner}
		if t == trampolines.Exit {
			j.Entry, j.Exit = native.Spec{Variant: partner}, spec
		}
		jobs = append(jobs, j)
		return nil
	}
	if *file != "" {
		r := trampolines.Role(*role)
		if err := addJob(r, native.Spec{File: *file, Role: r}, *pair); err != nil {
			return err
		}
	} else if *role != "" {
		return usagef("--role goes with --file")
	}
	if *pair != "" && *file == "" && len(variants) != 1 {
		return usagef("--pair goes with --file or a single --variant")
	}
	for _, name := range variants {
		t, err := tramp(a, "", name)
		if err != nil {
			return err
		}
		if err := addJob(t.Role, native.Spec{Variant: name}, *pair); err != nil {
			return err
		}
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
