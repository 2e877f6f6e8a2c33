package main

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// repoRoot is the repository's top folder, seen from this package.
const repoRoot = "../../"

// docFiles are the Markdown files whose code blocks' command lines
// TestDocCommands runs: the README and the reference pages of docs/
// (docs/cli is generated from the commands' help, whose examples
// TestHelpExitsZero and TestDocsUpToDate keep right).
func docFiles(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(repoRoot + "docs/*.md")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no docs/*.md pages (%v)", err)
	}
	return append([]string{repoRoot + "README.md"}, pages...)
}

// docCommand is one trampemu command line of a code block: where it is,
// its arguments, and, for a "$ trampemu ..." line, the output shown
// under it (each line must be printed, in that order; "..." stands for
// lines left out).
type docCommand struct {
	where    string
	line     string
	args     []string
	want     []string
	redirect bool // its stdout goes to a file (> F)
}

// docCommands reads every trampemu command line of the code blocks of
// file: a line that starts with "trampemu " or "$ trampemu ", up to a
// comment (" #") or a redirection (" > F"); the lines after a "$" line,
// up to the next "$" line or the block's end, are its output.
func docCommands(t *testing.T, file string) []docCommand {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []docCommand
	var cur *docCommand // the "$ " command whose output follows
	inBlock := false
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "```") {
			inBlock, cur = !inBlock, nil
			continue
		}
		if !inBlock {
			continue
		}
		shown := strings.HasPrefix(line, "$ trampemu ")
		if cur != nil && !shown {
			// The output of the "$" line above, up to the next one.
			if strings.TrimSpace(line) != "" {
				cur.want = append(cur.want, strings.TrimRight(line, " "))
			}
			continue
		}
		if !shown && !strings.HasPrefix(line, "trampemu ") {
			continue
		}
		cmd, _, _ := strings.Cut(strings.TrimPrefix(line, "$ "), " #")
		cmd, redirect, hasRedirect := strings.Cut(cmd, " > ")
		if hasRedirect && strings.TrimSpace(redirect) == "" {
			t.Errorf("%s:%d: %q redirects to nothing", file, n, line)
		}
		out = append(out, docCommand{where: file + ":" + strconv.Itoa(n), line: strings.TrimSpace(cmd), args: strings.Fields(cmd)[1:], redirect: hasRedirect})
		cur = nil
		if shown {
			cur = &out[len(out)-1]
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// docBudget bounds the commands that take minutes in full (a report
// with native timing, every mutant of a variant, a native run until its
// target): these flags are appended to a doc command of that name unless
// it sets them itself.
var docBudget = map[string][][2]string{
	"report": {{"--arch", "s390x"}, {"--native", "0"}, {"--emu-calls", "0"}, {"--exact", "false"}, {"--calls", "1"}},
	"mutate": {{"--calls", "1"}},
	"native": {{"--calls", "300"}, {"--warmup", "50"}, {"--rounds", "1"}, {"--min-generations", "2"}, {"--max-generations", "2"}},
}

// docPlaceholders returns, for the doc examples' stand-ins for the
// user's own files, the files of this repository that stand for them:
// ~/linux is a generated tree (a v6.14 Makefile and the x86-64, s390x
// and arm64 test files at their kernel paths), 0001-my-fix.patch the
// full-save-set test patch against that tree, my_mcount.S and
// my_ftrace_64.S test files.
func docPlaceholders(t *testing.T) map[string]string {
	t.Helper()
	tree := writeTree(t, [2]int{6, 14}, map[string]string{
		"arch/x86/kernel/ftrace_64.S":      "x86_64_v6.14.S",
		"arch/s390/kernel/mcount.S":        "s390x_v6.14.S",
		"arch/arm64/kernel/entry-ftrace.S": "arm64_v6.14.S",
	}, "")
	text, err := os.ReadFile(kdata + "x86_64_full_save_set.patch")
	if err != nil {
		t.Fatal(err)
	}
	patch := filepath.Join(t.TempDir(), "0001-my-fix.patch")
	if err := os.WriteFile(patch, []byte(strings.ReplaceAll(string(text), "/x86_64_v6.14.S", "/arch/x86/kernel/ftrace_64.S")), 0o644); err != nil {
		t.Fatal(err)
	}
	return map[string]string{
		"~/linux":                     tree,
		"0001-my-fix.patch":           patch,
		"arch/x86/kernel/ftrace_64.S": filepath.Join(tree, "arch/x86/kernel/ftrace_64.S"),
		"mcount.S":                    filepath.Join(tree, "arch/s390/kernel/mcount.S"),
		"my_mcount.S":                 repoRoot + "tests/testdata/broken/s390x_rth_ok.S",
		"my_ftrace_64.S":              kdata + "x86_64_v6.14.S",
	}
}

// docArgs makes a doc command's arguments runnable here: placeholders
// replaced, paths of the repository made relative to this package,
// --out into a temporary folder, and the budget flags of its command.
func docArgs(t *testing.T, args []string, placeholders map[string]string) []string {
	t.Helper()
	out := make([]string, len(args))
	for i, a := range args {
		switch p, ok := placeholders[a]; {
		case ok:
			out[i] = p
		case i > 0 && args[i-1] == "--out":
			out[i] = t.TempDir()
		case !strings.HasPrefix(a, "-") && strings.Contains(a, "/"):
			if _, err := os.Stat(repoRoot + a); err == nil {
				a = repoRoot + a
			}
			out[i] = a
		default:
			out[i] = a
		}
	}
	if len(args) == 0 {
		return out
	}
	set := map[string]bool{}
	for _, a := range args {
		name, _, _ := strings.Cut(a, "=")
		set[name] = true
	}
	for _, f := range docBudget[args[0]] {
		if !set[f[0]] {
			out = append(out, f[0]+"="+f[1])
		}
	}
	return out
}

// TestDocCommands runs every trampemu command line in the code blocks of
// the README and docs/*.md, so that none goes stale: each must parse and
// run (exit 0, or 1 with findings: never 2, bad usage), and the output a
// page shows under a "$ trampemu ..." line must be what the command
// prints now. Placeholders for the user's files run on the repository's
// test files (docPlaceholders); the long commands run with the budget
// flags of docBudget.
func TestDocCommands(t *testing.T) {
	placeholders := docPlaceholders(t)
	// A line on several pages runs once.
	type result struct {
		code     int
		out, err bytes.Buffer
	}
	ran := map[string]*result{}
	total, shown := 0, 0
	for _, file := range docFiles(t) {
		cmds := docCommands(t, file)
		total += len(cmds)
		for _, c := range cmds {
			args := docArgs(t, c.args, placeholders)
			if docSkipRun(args) {
				var errb bytes.Buffer
				afterParse = func(*cobra.Command) error { return errParsedOnly }
				code := run(args, &bytes.Buffer{}, &errb)
				afterParse = nil
				if !strings.Contains(errb.String(), errParsedOnly.Error()) {
					t.Errorf("%s: %s: exit %d before its flags parsed: %s", c.where, c.line, code, errb.String())
				}
				continue
			}
			key := strings.Join(c.args, "\x00")
			r, ok := ran[key]
			if !ok {
				r = &result{}
				r.code = run(args, &r.out, &r.err)
				ran[key] = r
			}
			code, out, errb := r.code, r.out, r.err
			if code != 0 && code != 1 {
				t.Errorf("%s: %s: exit %d, want 0 or 1 (run as %q): %s", c.where, c.line, code, args, errb.String())
				continue
			}
			if out.Len() == 0 {
				t.Errorf("%s: %s printed nothing", c.where, c.line)
			}
			if c.want != nil {
				shown++
				if missing := missingLines(out.String(), c.want); missing != "" {
					t.Errorf("%s: %s: the page shows\n%s\nwhich it no longer prints (in this order); it prints:\n%s", c.where, c.line, missing, out.String())
				}
			}
		}
	}
	if shown < 5 {
		t.Errorf("%d command lines show their output, want 5 at least (is the parser broken?)", shown)
	}
	if total < 30 {
		t.Errorf("%d trampemu command lines in the README and docs/*.md, want 30 at least (is the parser broken?)", total)
	}
}

// missingLines returns the first of want (and the rest) that out does
// not print as a line after the previous ones, "" when all are there;
// "..." matches any lines.
func missingLines(out string, want []string) string {
	lines := strings.Split(out, "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	at := 0
	for k, w := range want {
		if w == "..." {
			continue
		}
		found := false
		for ; at < len(lines); at++ {
			if lines[at] == w {
				found, at = true, at+1
				break
			}
		}
		if !found {
			return strings.Join(want[k:], "\n")
		}
	}
	return ""
}

// TestDocCommandsParser: the parser finds the command lines of code
// blocks only, with what a "$" line shows, cuts comments and
// redirections; missingLines finds a shown line that is not printed, and
// one out of order.
func TestDocCommandsParser(t *testing.T) {
	page := filepath.Join(t.TempDir(), "page.md")
	text := "trampemu list  # prose, not a block\n```sh\nmake report   # not trampemu\ntrampemu list --arch s390x   # a comment\n" +
		"trampemu native --format bench > new.txt\n```\n\n```\n$ trampemu version\ntrampemu 1\n\n...\nline 3\n```\nafter\n"
	if err := os.WriteFile(page, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got := docCommands(t, page)
	if len(got) != 3 {
		t.Fatalf("%d commands, want 3: %+v", len(got), got)
	}
	if a := strings.Join(got[0].args, " "); a != "list --arch s390x" || got[0].want != nil {
		t.Errorf("first: %q want %q", a, got[0].want)
	}
	if a := strings.Join(got[1].args, " "); a != "native --format bench" || !got[1].redirect {
		t.Errorf("second: %q redirect %v", a, got[1].redirect)
	}
	if a := strings.Join(got[2].args, " "); a != "version" || strings.Join(got[2].want, "|") != "trampemu 1|...|line 3" {
		t.Errorf("third: %q shows %q", a, got[2].want)
	}
	for _, c := range []struct {
		out     string
		want    []string
		missing string
	}{
		{"a\nb  \nc\n", []string{"a", "...", "c"}, ""},
		{"a\nb\nc\n", []string{"a", "b", "c"}, ""},
		{"a\nb\nc\n", []string{"c", "a"}, "a"},
		{"a\nb\n", []string{"a", "x", "b"}, "x\nb"},
	} {
		if m := missingLines(c.out, c.want); m != c.missing {
			t.Errorf("missingLines(%q, %q) = %q, want %q", c.out, c.want, m, c.missing)
		}
	}
	args := docArgs(t, []string{"mutate", "--arch", "x86_64", "--calls", "3", "--out", "out", "tests/testdata/kernel/x86_64_v6.14.S", "nope/x.S"}, nil)
	if strings.Join(args, " ") != "mutate --arch x86_64 --calls 3 --out "+args[6]+" ../../tests/testdata/kernel/x86_64_v6.14.S nope/x.S" || args[6] == "out" {
		t.Errorf("docArgs: %q: want --out in a temporary folder, the repository file found from here, --calls kept", args)
	}
}
