package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"trampemu/ftrace"
	"trampemu/harness"
	"trampemu/regs"
)

var errParsedOnly = errors.New("parsed (fuzzing stops here)")

// FuzzArgs feeds command lines (arguments separated by newlines) to the
// CLI with every command stopped right after its flags parse: whatever
// the arguments, it must not panic, must exit 0 or 2, and a failure must
// start with a one-line "trampemu ..." message.
func FuzzArgs(f *testing.F) {
	for _, s := range []string{
		"check\n--arch\nx86_64\n--variant\nrth-merged", "check\n--calls\n-5", "check\n--calls\nzz",
		"mutate\n--arch\ns390x\n--json", "trace\n--arch\ns390x\n--all", "report\n--out", "native\n--repeats\n0",
		"asm\n--arch\nx86_64\n-D\nA=1\nf.S", "scenario\nrun\nheader-s390x\n--header\nv17", "scenario", "list\n-h",
		"frobnicate", "check\n--\n-x", "check\n-arch=s390x\n-json=maybe", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		afterParse = func(*cobra.Command) error { return errParsedOnly }
		defer func() { afterParse = nil }()
		var args []string
		if line != "" {
			args = strings.Split(line, "\n")
		}
		if len(args) > 0 && args[0] == "version" {
			return // no flags; prints the Unicorn version
		}
		var out, errb bytes.Buffer
		code := run(args, &out, &errb)
		if code != 0 && code != 2 {
			t.Fatalf("%q: exit %d, want 0 or 2", args, code)
		}
		first, _, _ := strings.Cut(errb.String(), "\n")
		if code == 2 && len(args) > 0 && !strings.HasPrefix(first, "trampemu") && !strings.HasPrefix(first, "usage:") {
			t.Fatalf("%q: stderr starts %q, want a one-line trampemu message", args, first)
		}
	})
}

// FuzzNames feeds names to the resolvers behind --arch, --variant,
// --workload, --scenario, --header and the numeric ranges: each either
// finds exactly that name or returns an error that lists the valid ones.
func FuzzNames(f *testing.F) {
	for _, s := range []string{"x86_64", "s390x", "rth-merged", "ftrace_caller", "add", "ret16", "default", "merged", "v17", "", "X86_64", "rth-merged\x00", "all"} {
		f.Add(s, int64(8))
	}
	f.Add("nope", int64(-5))
	f.Add("nope", int64(1)<<40)
	f.Fuzz(func(t *testing.T, name string, n int64) {
		valid := func(what string, err error, got string) {
			if err == nil && got != name {
				t.Fatalf("%s %q resolved to %q", what, name, got)
			}
			if err != nil && !strings.Contains(err.Error(), "valid are") {
				t.Fatalf("%s %q: %v does not list the valid names", what, name, err)
			}
		}
		// Arch names have aliases (amd64, s390, any case): what one finds
		// must find itself by its own name.
		if a, err := regs.ArchByName(name); err == nil {
			if b, err := regs.ArchByName(a.Name); err != nil || b != a {
				t.Fatalf("arch %q resolved to %s, which does not resolve to itself", name, a.Name)
			}
		} else {
			valid("arch", err, "")
		}
		for _, a := range regs.Arches {
			v, err := harness.FindVariant(a, "", name)
			if err == nil {
				valid("variant", err, v.Name)
			} else {
				valid("variant", err, "")
			}
			w, err := harness.FindWorkload(a, name)
			valid("workload", err, w.Name)
		}
		s, err := harness.FindUserSet(name)
		valid("scenario", err, s.Name)
		if e, err := ftrace.ParseHeaderEncoding(name); err == nil {
			valid("header", err, e.String())
		} else {
			valid("header", err, "")
		}
		err = checkCalls(int(n))
		if ok := n >= 1 && n <= maxCalls; ok != (err == nil) {
			t.Fatalf("--calls %d: %v", n, err)
		}
		if err != nil && !strings.Contains(err.Error(), "give 1 to") {
			t.Fatalf("--calls %d: %v does not state the range", n, err)
		}
	})
}
