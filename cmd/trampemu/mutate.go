package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"trampemu/check"
	"trampemu/mutate"
	"trampemu/regs"
	"trampemu/report"
)

func cmdMutate(c *cobra.Command) runFunc {
	fs := c.Flags()
	arch := fs.StringP("arch", "a", "", "architecture: "+archNames(", ")+" or all (every variant of every arch)")
	pick := addPickFlags(fs, "variant `NAME` to mutate (repeatable; default: every variant of the arch)", false)
	calls := fs.IntP("calls", "n", 8, "calls per workload of each mutant's check (1 to 100000)")
	asJSON := fs.Bool("json", false, "print JSON")
	return func(args []string, w io.Writer) error {
		if len(args) > 0 {
			return usagef("unexpected arguments %v (a file goes with --file)", args)
		}
		if err := checkCalls(*calls); err != nil {
			return err
		}
		if *arch == "all" && (len(pick.variants) > 0 || *pick.file != "") {
			return usagef("--arch all mutates every variant of every arch: --variant and --file need one --arch")
		}
		as, err := arches(*arch)
		if *arch == "" {
			as, err = nil, usagef("give --arch %s or all", archNames(", "))
		}
		if err != nil {
			return err
		}
		var sums []mutate.Summary
		for _, a := range as {
			tramps, err := pick.tramps(a)
			if err != nil {
				return err
			}
			if len(tramps) == 0 {
				if tramps, err = check.Variants(a, ""); err != nil {
					return err
				}
			}
			cfg := mutate.Config{Arch: a, Tramps: tramps, Calls: *calls, Progress: mutateProgress(a)}
			s, err := mutate.Run(cfg)
			if err != nil {
				return userFileError(a, tramps, err)
			}
			sums = append(sums, s...)
		}
		if *asJSON {
			if err := report.WriteJSON(w, sums); err != nil {
				return err
			}
		} else if err := mutateTable(w, sums); err != nil {
			return err
		}
		for _, s := range sums {
			if s.Gap() {
				return errFindings
			}
		}
		return nil
	}
}

// mutateTable prints one row per variant, then every survivor.
func mutateTable(w io.Writer, sums []mutate.Summary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "arch\tvariant\trole\tmutants\tkilled\tstillborn\tequivalent\tsurvived\tunexplained")
	for _, s := range sums {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\n", s.Arch, s.Variant, s.Role, s.Mutants, s.Killed,
			s.Stillborn, s.Equivalent, len(s.Survived), s.Unexplained())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, s := range sums {
		for _, v := range s.Survived {
			fmt.Fprintf(w, "\n%s %s: %s: %s\n", s.Arch, s.Variant, v.Line, v.Mutation)
			switch {
			case v.Finding != "":
				fmt.Fprintf(w, "  %s: %s\n", v.Reason, v.Finding)
			case v.Reason != "":
				fmt.Fprintf(w, "  %s\n", v.Reason)
			default:
				fmt.Fprintf(w, "  unexplained: a gap in the checks\n")
			}
			for _, d := range v.Differs {
				fmt.Fprintf(w, "  differs: %s\n", d)
			}
		}
	}
	return nil
}

// mutateProgress is a progress bar on stderr when it is a terminal (nil
// otherwise: quiet).
func mutateProgress(a *regs.Arch) func(done, total int) {
	if !isTerminal(os.Stderr) {
		return nil
	}
	var bar *progressbar.ProgressBar
	return func(done, total int) {
		if bar == nil {
			bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(os.Stderr),
				progressbar.OptionSetDescription("checking mutants of "+a.Name), progressbar.OptionShowCount(),
				progressbar.OptionClearOnFinish())
		}
		bar.Set(done)
	}
}

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// readMutation reads the summary `make mutate` wrote (trampemu mutate
// --arch all --json); a missing file is no error: the note says how to
// make one.
func readMutation(path string) ([]mutate.Summary, string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, "not run: `make mutate` writes " + path + " (a few minutes on 2 cores); the next report includes it", nil
	}
	if err != nil {
		return nil, "", err
	}
	var sums []mutate.Summary
	if err := json.Unmarshal(b, &sums); err != nil {
		return nil, "", usagef("%s: not the JSON of trampemu mutate (%v): run `make mutate` again or remove it", path, err)
	}
	st, _ := os.Stat(path)
	return sums, fmt.Sprintf("from %s, written %s by `make mutate` (trampemu mutate --arch all --json)", path, st.ModTime().UTC().Format("2006-01-02 15:04 UTC")), nil
}

// writeMutationSection renders the report's mutation-testing section.
func writeMutationSection(w io.Writer, rep fullReport) error {
	fmt.Fprintln(w, "## Mutation testing of the checks")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Mutants of each variant's `.S` (an instruction deleted, a register, displacement or immediate changed, two instructions swapped, a branch inverted), each checked in full; %s.\n\n", rep.MutationNote)
	if len(rep.Mutation) == 0 {
		return nil
	}
	fmt.Fprintln(w, "```")
	if err := mutateTable(w, rep.Mutation); err != nil {
		return err
	}
	fmt.Fprintln(w, "```")
	fmt.Fprintln(w)
	return nil
}
