package tests

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// archComparison matches generic code asking which arch it runs on: an
// arch-name comparison (the issue 11 grep, plus != and arm64) or a
// comparison with one of package regs' arch values.
var archComparison = regexp.MustCompile(`Name [!=]= "(x86_64|s390x|arm64)"|case "(x86_64|s390x|arm64)"|[!=]= regs\.(X86_64|S390X|ARM64)\b|case regs\.(X86_64|S390X|ARM64)\b`)

// perArchFiles are the files named for an arch, where per-arch facts live
// (ARCHITECTURE.md "Architectures are per-arch files").
var perArchFiles = map[string]bool{"x86_64.go": true, "s390x.go": true, "arm64.go": true}

// allowedArchComparisons are the places still allowed to compare arch
// names, by module-relative path or folder prefix, with the reason. None
// is left: every per-arch fact lives in a per-arch file (issue 11).
var allowedArchComparisons = []struct {
	prefix, reason string
}{}

// allowance returns the reason file may compare arch names, or "".
func allowance(file string) string {
	for _, a := range allowedArchComparisons {
		if file == a.prefix || (strings.HasSuffix(a.prefix, "/") && strings.HasPrefix(file, a.prefix)) {
			return a.reason
		}
	}
	return ""
}

// archComparisonLines returns the lines of src that compare arch names.
func archComparisonLines(src string) []string {
	var out []string
	for _, l := range strings.Split(src, "\n") {
		if archComparison.MatchString(l) {
			out = append(out, strings.TrimSpace(l))
		}
	}
	return out
}

func TestArchComparisonPattern(t *testing.T) {
	for _, c := range []struct {
		line string
		want bool
	}{
		{`	if a.Name == "x86_64" {`, true},
		{`	if h.Arch.Name != "s390x" {`, true},
		{`	case "s390x", "s390":`, true},
		{`	case "arm64":`, true},
		{`	if a == regs.S390X {`, true},
		{`	case regs.X86_64:`, true},
		{`	if w.Arch == "" || w.Arch == a.Name {`, false},
		{`	harnessArches[regs.X86_64.Name] = &harnessArch{`, false},
		{`	if !ftrace.MustOps(a).SiteAt(pg, off) {`, false},
		{`	Name: "x86_64",`, false},
	} {
		if got := len(archComparisonLines(c.line)) == 1; got != c.want {
			t.Errorf("%q: matched %v, want %v", c.line, got, c.want)
		}
	}
}

// TestNoArchNameComparisons: generic code (every non-test file not named
// for an arch) never asks which arch it runs on, except for the listed
// allowances of the next step.
func TestNoArchNameComparisons(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root %s: %v", root, err)
	}
	found := map[string][]string{}
	scanned, perArch := 0, 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		name := d.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		if perArchFiles[name] {
			perArch++
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		scanned++
		rel, _ := filepath.Rel(root, path)
		if lines := archComparisonLines(string(b)); len(lines) > 0 {
			found[filepath.ToSlash(rel)] = lines
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Not vacuous: the generic files and the per-arch ones were seen.
	if scanned < 50 || perArch < 8 {
		t.Fatalf("scanned %d generic and %d per-arch files under %s: the walk missed the module", scanned, perArch, root)
	}
	var files []string
	for f := range found {
		files = append(files, f)
	}
	sort.Strings(files)
	left := 0
	for _, f := range files {
		if reason := allowance(f); reason != "" {
			left += len(found[f])
			t.Logf("allowed for now (%s): %s:\n\t%s", reason, f, strings.Join(found[f], "\n\t"))
			continue
		}
		t.Errorf("%s compares arch names; move the fact into a per-arch file (x86_64.go, s390x.go) behind the package's hooks struct:\n\t%s", f, strings.Join(found[f], "\n\t"))
	}
	t.Logf("%d arch-name comparisons left in allowed files (%d generic files scanned, %d per-arch files skipped)", left, scanned, perArch)
}

// TestEveryPackageHasDoc: every package of the module keeps its package
// comment in a doc.go (the house rule "small packages, each with a doc.go").
func TestEveryPackageHasDoc(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	pkgs, missing := 0, []string{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
			return filepath.SkipDir
		}
		gos, _ := filepath.Glob(filepath.Join(path, "*.go"))
		if len(gos) == 0 {
			return nil
		}
		pkgs++
		b, err := os.ReadFile(filepath.Join(path, "doc.go"))
		rel, _ := filepath.Rel(root, path)
		if err != nil || !regexp.MustCompile(`(?m)^// (Package|Command) \S+`).Match(b) {
			missing = append(missing, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if pkgs < 10 {
		t.Fatalf("found %d packages under %s: the walk missed the module", pkgs, root)
	}
	for _, m := range missing {
		t.Errorf("package %s has no doc.go with a package comment (\"// Package name ...\")", m)
	}
}
