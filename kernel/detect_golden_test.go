package kernel

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"trampemu/internal/golden"
	"trampemu/regs"
	"trampemu/trampolines"
)

var update = flag.Bool("update", false, "rewrite testdata/detect.golden")

// detectInput is one file the detectors read: the registry's trampolines
// and the test trees' files, all of our own writing.
type detectInput struct {
	arch, name string
	text       []byte
}

// detectInputs lists every .S of trampolines/<arch>/ and
// tests/testdata/kernel/<arch>_*.S, on every arch (regs.Arches).
func detectInputs(t *testing.T) []detectInput {
	t.Helper()
	var in []detectInput
	for _, a := range regs.Arches {
		n := 0
		ents, err := fs.ReadDir(trampolines.Files, a.Name)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if !strings.HasSuffix(e.Name(), ".S") {
				continue
			}
			b, err := fs.ReadFile(trampolines.Files, path.Join(a.Name, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			in, n = append(in, detectInput{a.Name, "trampolines/" + a.Name + "/" + e.Name(), b}), n+1
		}
		files, err := filepath.Glob(filepath.Join("../tests/testdata/kernel", a.Name+"_*.S"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			in, n = append(in, detectInput{a.Name, "tests/testdata/kernel/" + filepath.Base(f), b}), n+1
		}
		if n < 5 {
			t.Fatalf("%s: %d files to detect: the test reads the wrong folders", a.Name, n)
		}
	}
	return in
}

// fromFirstCode cuts text before its first line of code (not blank, a
// comment as stripComments reads one, or a preprocessor line): the file's
// first construct then sits at its first byte, where a search result of 0
// must count as found.
func fromFirstCode(text []byte) []byte {
	lines := strings.SplitAfter(string(text), "\n")
	off := 0
	for i, l := range strings.Split(stripComments(string(text)), "\n") { // the same lines, comments blanked
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
			return text[off:]
		}
		off += len(lines[i])
	}
	return nil
}

// TestDetectGolden: what the detectors read from every file of ours
// (the Evidence, every field with its citation), from the same file cut
// to start at its first line of code, and the model and properties
// Resolve composes from it alone and in trees whose Makefiles say v5.15
// and v6.14, against testdata/detect.golden (-update rewrites it). Any
// change of a detector's reading of any construct shows here.
func TestDetectGolden(t *testing.T) {
	var out strings.Builder
	for _, in := range detectInputs(t) {
		fmt.Fprintf(&out, "== %s %s\n", in.arch, in.name)
		for _, v := range []struct {
			what string
			text []byte
		}{{"whole", in.text}, {"from its first code line", fromFirstCode(in.text)}} {
			_, ev, err := read(in.arch, in.name, v.text)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&out, "evidence (%s): %+v\n", v.what, ev)
		}
		for _, mk := range []Version{{}, {5, 15}, {6, 14}} {
			c, err := Resolve(in.arch, in.name, in.text, mk)
			if err != nil {
				fmt.Fprintf(&out, "makefile %v: error: %v\n", mk, err)
				continue
			}
			fmt.Fprintf(&out, "makefile %v: model %s; %s; note %q; site %v\n", mk, c.Model.Name, c.Reason, c.Note, c.Site)
			for _, p := range c.Properties {
				fmt.Fprintf(&out, "  %s = %s (%s): %s\n", p.Name, p.Value, p.From, p.Evidence)
			}
		}
	}
	goldenPath := filepath.Join("testdata", "detect.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(goldenPath, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(goldenPath)
	if err != nil {
		t.Fatalf("%v (go test ./kernel -run TestDetectGolden -update writes it)", err)
	}
	for _, d := range golden.Diff(string(want), out.String(), 1) {
		t.Fatalf("%s differs at line %d:\n got %s\nwant %s\n(-update rewrites it after a reviewed change)", goldenPath, d.N, d.Got, d.Want)
	}
}
