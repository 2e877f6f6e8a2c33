package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"trampemu/regs"
)

// everyCommand is every available command of the tree, subcommands
// included, by path ("scenario run").
func everyCommand(t *testing.T) []string {
	t.Helper()
	var out []string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		for _, s := range c.Commands() {
			if s.IsAvailableCommand() {
				p := append(append([]string(nil), path...), s.Name())
				out = append(out, strings.Join(p, " "))
				walk(s, p)
			}
		}
	}
	walk(newRoot(io.Discard, io.Discard), nil)
	if len(out) < len(commands()) {
		t.Fatalf("%d commands in the tree, want at least %d", len(out), len(commands()))
	}
	return out
}

// TestHelpExitsZero: --help, -h and `help CMD` of every command print its
// help on stdout with exit 0; each of trampemu's own commands shows an
// Examples block whose lines are trampemu command lines whose flags parse.
func TestHelpExitsZero(t *testing.T) {
	for _, cmd := range append(everyCommand(t), "") {
		for _, h := range []string{"--help", "-h", "help"} {
			args := append(strings.Fields(cmd), h)
			if h == "help" {
				args = append([]string{"help"}, strings.Fields(cmd)...)
			}
			var out, errb bytes.Buffer
			if code := run(args, &out, &errb); code != 0 || !strings.Contains(out.String(), "Usage:") || errb.Len() != 0 {
				t.Errorf("%q: exit %d, stdout %.200q, stderr %q; want 0 and the help on stdout", args, code, out.String(), errb.String())
			}
		}
	}
	var examples int
	var walk func(cs []command, path string)
	walk = func(cs []command, path string) {
		for _, c := range cs {
			name := strings.TrimSpace(path + " " + strings.Fields(c.use)[0])
			var out bytes.Buffer
			run(append(strings.Fields(name), "--help"), &out, io.Discard)
			_, ex, ok := strings.Cut(out.String(), "Examples:\n")
			ex, _, _ = strings.Cut(ex, "\n\n")
			if !ok || ex == "" {
				t.Errorf("trampemu %s --help has no Examples block:\n%s", name, out.String())
			}
			for _, line := range strings.Split(ex, "\n") {
				examples++
				if !strings.HasPrefix(line, "  trampemu "+name) {
					t.Errorf("trampemu %s example %q is not a trampemu %s command line", name, line, name)
					continue
				}
				// Its flags must parse (the placeholders for the user's
				// files name none of the repository, so it stops there).
				cmd, _, _ := strings.Cut(line, " > ")
				afterParse = func(*cobra.Command) error { return errParsedOnly }
				var errb bytes.Buffer
				run(strings.Fields(cmd)[1:], io.Discard, &errb)
				afterParse = nil
				if !strings.Contains(errb.String(), errParsedOnly.Error()) {
					t.Errorf("trampemu %s example %q does not parse: %s", name, line, errb.String())
				}
			}
			walk(c.sub, name)
		}
	}
	walk(commands(), "")
	if examples < len(commands()) {
		t.Errorf("%d example lines, want one per command at least", examples)
	}
}

// TestFlagSpellings: GNU long flags, the short forms, --flag=value, and
// the flag package's single-dash long flags (-arch, -json=true) all mean
// the same; -D/--define and -U/--undef (and the flag package's --D) too.
func TestFlagSpellings(t *testing.T) {
	for _, a := range regs.Arches {
		want := ""
		for i, args := range [][]string{
			{"list", "--arch", a.Name},
			{"list", "-a", a.Name},
			{"list", "--arch=" + a.Name},
			{"list", "-arch", a.Name},
			{"list", "-arch=" + a.Name},
			{"list", "-a=" + a.Name},
		} {
			var out, errb bytes.Buffer
			if code := run(args, &out, &errb); code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, errb.String())
			}
			if i == 0 {
				want = out.String()
				if !strings.Contains(want, a.Name+" variants:") {
					t.Fatalf("%v: %q names no %s variants", args, want, a.Name)
				}
			} else if out.String() != want {
				t.Errorf("%v printed other than %v", args, []string{"list", "--arch", a.Name})
			}
		}
	}
	broken := "../../tests/testdata/broken/"
	mine := filepath.Join(t.TempDir(), "mine.S")
	if err := os.WriteFile(mine, []byte("SYM_FUNC_START(f)\n#ifdef MY_FLAG\n\tcpuid\n#endif\n\tRET\nSYM_FUNC_END(f)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var plain bytes.Buffer
	if code := run([]string{"asm", "-a", "x86_64", mine}, &plain, io.Discard); code != 0 || strings.Contains(plain.String(), "cpuid") {
		t.Fatalf("asm of %s without MY_FLAG: exit %d, listing %q: want no cpuid", mine, code, plain.String())
	}
	runCases(t, []cliCase{
		{[]string{"check", "-a", "x86_64", "-f", broken + "x86_rth_ok.S", "-r", "exit", "-w", "add", "-n", "2", "-json=true"}, 0, `"results"`, ""},
		{[]string{"check", "-arch", "s390x", "-variant", "rth-merged", "-workload", "add", "-calls", "2"}, 0, "rth-merged", ""},
		// -D NAME, -DNAME, --define NAME and the flag package's --D NAME
		// all define MY_FLAG (before or after the file).
		{[]string{"asm", "-a", "x86_64", mine, "-D", "MY_FLAG"}, 0, "cpuid", ""},
		{[]string{"asm", "-a", "x86_64", "-DMY_FLAG=1", mine}, 0, "cpuid", ""},
		{[]string{"asm", "-a", "x86_64", mine, "--define", "MY_FLAG"}, 0, "cpuid", ""},
		{[]string{"asm", "-a", "x86_64", mine, "--D=MY_FLAG"}, 0, "cpuid", ""},
		{[]string{"asm", "--arch", "x86_64", "--variant", "rth-merged", "-D", "X"}, 2, "", "go with a file"},
		{[]string{"asm", "--arch", "x86_64", "--variant", "rth-merged", "--U", "X"}, 2, "", "go with a file"},
		// After --, nothing is a flag.
		{[]string{"check", "--arch", "x86_64", "--", "-json"}, 2, "", "unexpected arguments [-json]"},
		{[]string{"check", "--arch"}, 2, "", "trampemu check: flag needs an argument: --arch"},
		{[]string{"check", "-json=maybe"}, 2, "", `invalid argument "maybe" for "--json"`},
		{[]string{"report", "--exact=maybe"}, 2, "", `invalid argument "maybe" for "--exact"`},
		{[]string{"scenario", "run", "fprobe", "--arch", "x86_64", "--bogus"}, 2, "", "trampemu scenario run: unknown flag: --bogus (see 'trampemu scenario run --help')"},
	})
}

// TestCompletion: trampemu completion bash|zsh|fish print a script for
// that shell, and the flags complete their values: every arch for --arch,
// the arch's variants for --variant.
func TestCompletion(t *testing.T) {
	for shell, marker := range map[string]string{"bash": "complete -o default -F __start_trampemu trampemu", "zsh": "#compdef trampemu", "fish": "complete -c trampemu"} {
		var out, errb bytes.Buffer
		if code := run([]string{"completion", shell}, &out, &errb); code != 0 || !strings.Contains(out.String(), marker) {
			t.Errorf("completion %s: exit %d, stderr %q, script without %q", shell, code, errb.String(), marker)
		}
	}
	complete := func(args ...string) string {
		var out, errb bytes.Buffer
		if code := run(append([]string{"__complete"}, args...), &out, &errb); code != 0 {
			t.Fatalf("__complete %v: exit %d: %s", args, code, errb.String())
		}
		return out.String()
	}
	got := complete("check", "--arch", "")
	for _, a := range regs.Arches {
		if !strings.Contains(got, a.Name+"\n") {
			t.Errorf("check --arch completes %q, without %s", got, a.Name)
		}
	}
	if strings.Contains(got, "all\n") {
		t.Errorf("check --arch completes %q: check takes one arch, not all", got)
	}
	if got := complete("mutate", "--arch", ""); !strings.Contains(got, "all\n") {
		t.Errorf("mutate --arch completes %q, without all", got)
	}
	if got := complete("check", "--arch", "s390x", "--variant", ""); !strings.Contains(got, "rth-merged\t") || strings.Contains(got, "rth-v6.19") {
		t.Errorf("check --arch s390x --variant completes %q: want s390x's variants only", got)
	}
	if got := complete("trace", "--format", ""); !strings.Contains(got, "function_graph\n") {
		t.Errorf("trace --format completes %q, without function_graph", got)
	}
	if got := complete("scenario", "run", ""); !strings.Contains(got, "fprobe\n") {
		t.Errorf("scenario run completes %q, without the scenario fprobe", got)
	}
}

// TestDocsUpToDate: docs/cli/*.md and docs/man/*.1 are what `make docs`
// writes from the command tree now; a changed flag or help text without
// `make docs` fails here, and so does a page of a command that is gone.
func TestDocsUpToDate(t *testing.T) {
	dir := t.TempDir()
	if err := genDocs(newRoot(io.Discard, io.Discard), dir); err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{cliDocs, manDocs} {
		want := readDir(t, filepath.Join(dir, sub))
		have := readDir(t, filepath.Join("../../docs", sub))
		if len(want) < len(commands()) {
			t.Fatalf("%s: %d pages generated, want one per command at least", sub, len(want))
		}
		for name, text := range want {
			if h, ok := have[name]; !ok {
				t.Errorf("docs/%s/%s is missing: run make docs", sub, name)
			} else if h != text {
				t.Errorf("docs/%s/%s is stale: run make docs", sub, name)
			}
		}
		for name := range have {
			if _, ok := want[name]; !ok {
				t.Errorf("docs/%s/%s is no command's page: run make docs", sub, name)
			}
		}
	}
}

// readDir reads every file of dir by name.
func readDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("%v: run make docs", err)
	}
	out := map[string]string{}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}
