package check

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// runnerFiles drive a harness (and so the emulator): they make the
// observations and the counters the analysis takes. Every other file of
// the package, the per-arch conventions included, is analysis.
var runnerFiles = map[string]bool{
	"check.go": true, "all.go": true, "cost.go": true, "exact.go": true, "emulation.go": true, "speed.go": true, "limit.go": true,
}

// harnessTypes are the type names package harness declares: an analysis
// file may use them (and convert to them), not call harness functions,
// which would make check depend on harness's facts instead of the
// observations.
func harnessTypes(t *testing.T) map[string]bool {
	t.Helper()
	files, err := filepath.Glob("../harness/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no harness files (%v)", err)
	}
	out := map[string]bool{}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
				for _, sp := range g.Specs {
					out[sp.(*ast.TypeSpec).Name.Name] = true
				}
			}
		}
	}
	if !out["Invocation"] {
		t.Fatal("harness declares no Invocation type: the type scan is broken")
	}
	return out
}

// pureViolations lists what makes f, an analysis file, impure: an import
// of package emu, a use of the running harness (*harness.Harness), or a
// call of a harness function (types, the names in types, excepted).
func pureViolations(fset *token.FileSet, f *ast.File, types map[string]bool) []string {
	var out []string
	for _, im := range f.Imports {
		if p, _ := strconv.Unquote(im.Path.Value); p == "trampemu/emu" {
			out = append(out, fset.Position(im.Pos()).String()+": imports trampemu/emu")
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "harness" && !types[sel.Sel.Name] {
					out = append(out, fset.Position(sel.Pos()).String()+": calls harness."+sel.Sel.Name)
				}
			}
		}
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == "harness" && sel.Sel.Name == "Harness" {
				out = append(out, fset.Position(sel.Pos()).String()+": uses harness.Harness")
			}
		}
		return true
	})
	return out
}

func TestPureViolationsCatches(t *testing.T) {
	types := harnessTypes(t)
	for _, c := range []struct {
		src  string
		want int
	}{
		{"package check\nimport \"trampemu/emu\"\nvar _ = emu.Poison", 1},
		{"package check\nimport \"trampemu/harness\"\nfunc f(h *harness.Harness) {}", 1},
		{"package check\nimport \"trampemu/harness\"\nfunc f(b *harness.Batch) {}", 0},
		{"package check\nimport \"trampemu/harness\"\nvar _ = harness.ARM64DriverRecord(0)", 1},
		{"package check\nimport \"trampemu/harness\"\nvar _ = harness.Access{}\nvar _ = harness.IPMod(harness.IPMod{})", 0},
	} {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "x.go", c.src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(pureViolations(fset, f, types)); got != c.want {
			t.Errorf("%q: %d violations, want %d", c.src, got, c.want)
		}
	}
}

// TestAnalysisIsPure: the analysis files read only observation data; the
// emulator and the running harness stay in the runner files.
func TestAnalysisIsPure(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	types := harnessTypes(t)
	analysis := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || runnerFiles[name] {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		analysis++
		for _, v := range pureViolations(fset, f, types) {
			t.Errorf("%s (analysis must take observations, not the machine; move it to a runner file or into harness)", v)
		}
	}
	if analysis < 5 {
		t.Fatalf("only %d analysis files found in %v", analysis, files)
	}
}
