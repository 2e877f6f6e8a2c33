package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/schollz/progressbar/v3"

	"trampemu/asm"
	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
)

// checkFile rejects a --file that cannot be a .S source before anything
// is built: missing, a directory, not a regular file (a FIFO or /dev/zero
// would block or never end), too big, empty, or binary.
func checkFile(file string) error { return checkText("--file "+file, file) }

// maxSource bounds a .S file read (a kernel's largest .S is under 1 MiB).
const maxSource = 16 << 20

// checkText is checkFile for an input the messages call label.
func checkText(label, file string) error {
	st, err := os.Stat(file)
	switch {
	case err != nil:
		return usagef("%s: %v", label, errors.Unwrap(err))
	case st.IsDir():
		return usagef("%s is a directory: give a kernel-style .S file", label)
	case !st.Mode().IsRegular():
		return usagef("%s is not a regular file (%v): give a kernel-style .S file", label, st.Mode().Type())
	case st.Size() > maxSource:
		return usagef("%s is %d bytes, more than the %d MiB a .S source may have", label, st.Size(), maxSource>>20)
	}
	text, err := os.ReadFile(file)
	if err != nil {
		return usagef("%s: %v", label, err)
	}
	if len(bytes.TrimSpace(text)) == 0 {
		return usagef("%s is empty: it must define ftrace_caller (--role entry) or return_to_handler (--role exit)", label)
	}
	if i := bytes.IndexByte(text, 0); i >= 0 {
		return usagef("%s is not text (a NUL byte at offset %d): give a kernel-style .S assembly source", label, i)
	}
	if !utf8.Valid(text) {
		return usagef("%s is not text (not valid UTF-8): give a kernel-style .S assembly source", label)
	}
	return nil
}

// roleSymbols are the symbols that tell a file's role.
var roleSymbols = map[trampolines.Role][]string{
	trampolines.Entry: {"ftrace_caller", "ftrace_regs_caller"},
	trampolines.Exit:  {"return_to_handler"},
}

// explainFile turns a failed build of a user's file into a usage error
// that says what is wrong in the user's terms when it can: the file holds
// another arch's instructions, or its symbols are those of the other role.
// Otherwise the error stays as it is (assembler messages with file:line,
// the undefined symbols).
func explainFile(a *regs.Arch, t harness.Tramp, err error) error {
	msg := err.Error()
	if ae := (*asm.Error)(nil); errors.As(err, &ae) && (ae.Refused || ae.WrongArch != "") {
		// unsafe input or a limit, or another arch's file said in one
		// line: nothing to explain, nothing to rebuild
		return usageError{ae.Error()}
	}
	alone := func(b *regs.Arch) (*asm.Image, error) {
		hosts := harness.StandaloneHostFuncs
		return asm.Build(asm.Options{Arch: b, HostFuncs: hosts, Headers: t.Headers, IncludeDirs: t.IncludeDirs},
			t.Source, asm.Source{Name: "provided data", Unit: "provided", Text: []byte(harness.ProvidedData())})
	}
	im, own := alone(a)
	if own != nil {
		var ae *asm.Error
		if errors.As(own, &ae) && strings.HasPrefix(ae.Stage, "assemble") {
			// Every other arch whose assembler takes the file: short
			// texts (a "b label") can assemble for more than one.
			var fits, flags []string
			for _, b := range regs.Arches {
				if b == a {
					continue
				}
				if _, e := alone(b); e == nil {
					fits, flags = append(fits, b.Name), append(flags, "--arch "+b.Name)
				}
			}
			if len(fits) > 0 {
				return usagef("%s holds %s instructions, not %s: use %s (%s)", t.Source.Name, strings.Join(fits, " or "), a.Name, strings.Join(flags, " or "), firstLine(msg))
			}
		}
		return usageError{msg}
	}
	if t.Role == "" {
		return usageError{msg}
	}
	defines := func(r trampolines.Role) string {
		for _, s := range roleSymbols[r] {
			if _, ok := im.Symbol(s); ok {
				return s
			}
		}
		return ""
	}
	other := trampolines.Exit
	if t.Role == trampolines.Exit {
		other = trampolines.Entry
	}
	if defines(t.Role) == "" {
		if s := defines(other); s != "" {
			return usagef("%s defines %s, the symbol of an %s trampoline, not %s: use --role %s", t.Source.Name, s, other, strings.Join(roleSymbols[t.Role], " or "), other)
		}
		return usagef("%s defines none of %s (the symbols of --role %s): %s", t.Source.Name, strings.Join(roleSymbols[t.Role], ", "), t.Role, firstLine(msg))
	}
	return usageError{msg}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// userFileError is err from checking a user's file, explained.
func userFileError(a *regs.Arch, tramps []harness.Tramp, err error) error {
	for _, t := range tramps {
		if t.Variant == nil {
			return explainFile(a, t, err)
		}
	}
	return err
}

// longCheck is the number of checked calls from which check shows its
// progress on a terminal (about a second of work).
const longCheck = 10_000

// checkProgress returns a check.Config.Started hook that advances a
// progress bar on stderr, one step per (variant, workload), when stderr is
// a terminal and the run makes at least longCheck calls; nil otherwise.
func checkProgress(a *regs.Arch, tramps []harness.Tramp, workloads, calls int) func(*harness.Harness) error {
	if workloads == 0 {
		workloads = len(harness.WorkloadNames(a))
	}
	steps := len(tramps) * workloads
	if steps*calls < longCheck || !isTerminal(os.Stderr) {
		return nil
	}
	bar := progressbar.NewOptions(steps, progressbar.OptionSetWriter(os.Stderr),
		progressbar.OptionSetDescription(fmt.Sprintf("checking %d calls per workload", calls)),
		progressbar.OptionShowCount(), progressbar.OptionClearOnFinish())
	return func(*harness.Harness) error { return bar.Add(1) }
}

// fileTramp is a kernel file as one trampoline of role, for explainFile.
func fileTramp(file string, role trampolines.Role, o harness.FileOptions) harness.Tramp {
	text, _ := os.ReadFile(file)
	return harness.Tramp{Name: filepath.Base(file), Role: role,
		Source:      asm.Source{Name: file, Text: text, Unit: string(role), Dir: filepath.Dir(file)},
		IncludeDirs: append([]string{filepath.Dir(file)}, o.IncludeDirs...)}
}

// wrongRole explains a file that defines no trampoline of --role: when it
// defines the other role's, it says so and names the --role to use.
func wrongRole(f *harness.File, file string, role trampolines.Role, err error) error {
	other := trampolines.Exit
	if role == trampolines.Exit {
		other = trampolines.Entry
	}
	text, _ := os.ReadFile(file)
	names := false
	for _, sym := range roleSymbols[role] {
		names = names || bytes.Contains(text, []byte(sym))
	}
	// A file that names the role's trampolines had them compiled out by
	// the options: err says which; otherwise it may be the other role's.
	if role != "" && !names {
		if ts, e := f.Role(other); e == nil && len(ts) > 0 {
			return usagef("%s defines %s, the symbol of an %s trampoline, not %s: use --role %s",
				file, ts[0].Trampoline(), other, strings.Join(roleSymbols[role], " or "), other)
		}
	}
	return usageError{err.Error()}
}
