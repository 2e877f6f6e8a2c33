package kernel

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const goodPatch = `From 1234 Mon Sep 17 00:00:00 2001
Subject: [PATCH] x86/ftrace: a change

--- v2: reworded
---
 arch/x86/kernel/ftrace_64.S | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/arch/x86/kernel/ftrace_64.S b/arch/x86/kernel/ftrace_64.S
index 1111111..2222222 100644
--- a/arch/x86/kernel/ftrace_64.S
+++ b/arch/x86/kernel/ftrace_64.S
@@ -1,3 +1,3 @@
 a
--- a/../../removed line that looks like a header
+++ b/../../added line that looks like a header
 c
\ No newline at end of file
diff --git a/old.S b/new.S
similarity index 90%
rename from old.S
rename to new.S
diff --git "a/sp ace.S" "b/sp ace.S"
new file mode 100644
--- /dev/null
+++ "b/sp ace.S"	2024-01-01 00:00:00
@@ -0,0 +1 @@
+x
-- 
2.39.5
`

func TestPatchPathsGood(t *testing.T) {
	paths, err := PatchPaths("good.patch", strings.NewReader(goodPatch))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range paths {
		got = append(got, p.Header+" "+p.Path)
	}
	want := []string{
		"diff --git arch/x86/kernel/ftrace_64.S", "diff --git arch/x86/kernel/ftrace_64.S",
		"--- arch/x86/kernel/ftrace_64.S", "+++ arch/x86/kernel/ftrace_64.S",
		"diff --git old.S", "diff --git new.S", "rename from old.S", "rename to new.S",
		"diff --git sp ace.S", "diff --git sp ace.S", "+++ sp ace.S",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("paths:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// badPatches: each refused with its line and the reason.
var badPatches = []struct {
	name, patch string
	line        int
	says        string
}{
	{"a/.. in ---", "--- a/../../../../tmp/x\n+++ b/../../../../tmp/x\n@@ -1 +1 @@\n-a\n+b\n", 1, "climbs out with .."},
	{"b/.. in +++", "--- a/x.S\n+++ b/arch/../../x.S\n@@ -1 +1 @@\n-a\n+b\n", 2, "climbs out with .."},
	{"absolute", "--- /etc/passwd\n+++ /etc/passwd\n", 1, "an absolute path"},
	{"diff --git ..", "diff --git a/x b/../x\n", 1, "climbs out"},
	{"quoted ..", "diff --git \"a/x\" \"b/\\056\\056/x\"\n", 1, "climbs out"},
	{"rename onto ../", "diff --git a/x.S b/y.S\nsimilarity index 100%\nrename from x.S\nrename to ../y.S\n", 4, "rename to \"../y.S\": it climbs out"},
	{"copy from /", "diff --git a/x.S b/y.S\ncopy from /etc/shadow\ncopy to y.S\n", 2, "an absolute path"},
	{"Index:", "Index: ../x\n", 1, "climbs out"},
	{"context header", "*** a/../x\n", 1, "climbs out"},
	{"double slash", "--- a//etc/passwd\n+++ b//etc/passwd\n", 1, "empty or . component"},
	{".git", "--- a/.git/config\n+++ b/.git/config\n", 1, ".git component"},
	{"symlink", "diff --git a/l b/l\nnew file mode 120000\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+/etc\n", 2, "makes a symbolic link"},
	{"submodule", "diff --git a/m b/m\nnew file mode 160000\n", 2, "a submodule"},
	{"NUL", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\x00\n+b\n", 4, "a NUL byte at column 3"},
	{"NUL first", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n\x00a\n", 4, "a NUL byte at column 1"},
	// a hunk ends when its counts do, after a context line too: what
	// follows is a header again, even one starting with "+"
	{"header after context", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n a\n+++ b/../y\n", 5, "climbs out"},
	{"unterminated quote", "diff --git \"a/x b/x\n", 1, "unterminated"},
	{"control character", "--- a/x\x1b[2J\n+++ b/x\n", 1, "control character"},
	{"a header right after a hunk", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n--- a/../y\n+++ b/../y\n", 6, "climbs out"},
	{"a header right after a hunk's context line", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n a\n--- a/../y\n", 5, "climbs out"},
	{"a header right after an added line", "--- a/x\n+++ b/x\n@@ -0,0 +1 @@\n+a\n+++ b/../y\n", 5, "climbs out"},
	{"a header right after a removed line", "--- a/x\n+++ b/x\n@@ -1 +0,0 @@\n-a\n--- a/../y\n", 5, "climbs out"},
	{"a word of a name with spaces", "--- a/x.S ..\n", 1, "climbs out"},
	{"a hunk line that does not fit the counts", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n-b\n+++ b/../y\n", 6, "climbs out"},
}

// TestPatchPathsEdges: a line of exactly MaxPatchLine bytes is read, one
// byte more is refused; a hunk count of exactly MaxPatchSize lines still
// counts (its body is skipped); names with spaces are kept whole, once.
func TestPatchPathsEdges(t *testing.T) {
	long := strings.Repeat("x", MaxPatchLine)
	if _, err := PatchPaths("p.patch", strings.NewReader("--- a/x\n"+long+"\n")); err != nil {
		t.Errorf("a line of %d bytes: %v", MaxPatchLine, err)
	}
	if _, err := PatchPaths("p.patch", strings.NewReader("--- a/x\n"+long+"x\n")); err == nil || !strings.Contains(err.Error(), "line 2: longer than") {
		t.Errorf("a line of %d bytes: %v, want it refused", MaxPatchLine+1, err)
	}
	big := fmt.Sprintf("--- a/x\n+++ b/x\n@@ -1,%d +0,0 @@\n--- a/../inside the hunk\n", MaxPatchSize)
	if _, err := PatchPaths("p.patch", strings.NewReader(big)); err != nil {
		t.Errorf("a hunk of %d lines: %v", MaxPatchSize, err)
	}
	paths, err := PatchPaths("p.patch", strings.NewReader("Index: arch/x 86.S\n--- a/arch/x 86.S\t2024-01-01\n+++ b/arch/x 86.S\n"))
	var got []string
	for _, p := range paths {
		got = append(got, p.Header+" "+p.Path)
	}
	if want := "Index: arch/x 86.S,--- arch/x 86.S,+++ arch/x 86.S"; err != nil || strings.Join(got, ",") != want {
		t.Errorf("names with spaces: %q, %v; want %q", got, err, want)
	}
}

// TestPatchPathsHunkBodies: inside a hunk that only removes or only adds
// lines, a body line that looks like a header is body while the hunk's
// counts last.
func TestPatchPathsHunkBodies(t *testing.T) {
	for _, p := range []string{
		"--- a/x\n+++ b/x\n@@ -1,2 +0,0 @@\n-a\n--- a/../removed line\n",
		"--- a/x\n+++ b/x\n@@ -0,0 +1,2 @@\n+a\n+++ b/../added line\n",
	} {
		paths, err := PatchPaths("p.patch", strings.NewReader(p))
		if err != nil || len(paths) != 2 {
			t.Errorf("%q: %v, %v; want the two headers' x", p, paths, err)
		}
	}
}

func TestPatchPathsBad(t *testing.T) {
	for _, c := range badPatches {
		_, err := PatchPaths("p.patch", strings.NewReader(c.patch))
		var pe *PathError
		if !errors.As(err, &pe) || pe.Line != c.line || !strings.Contains(err.Error(), c.says) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want line %d saying %q on one line", c.name, err, c.line, c.says)
		}
	}
}

// endless is a reader of one line that never ends, counting what is read.
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	e.n += int64(len(p))
	if e.n > 1<<30 {
		return 0, io.EOF
	}
	return len(p), nil
}

// TestPatchPathsLongLine: a 1 GiB line is refused after reading little
// more than MaxPatchLine of it.
func TestPatchPathsLongLine(t *testing.T) {
	r := &endless{}
	_, err := PatchPaths("huge.patch", io.MultiReader(strings.NewReader("--- a/x\n"), r))
	if err == nil || !strings.Contains(err.Error(), "line 2: longer than 1 MiB") {
		t.Fatalf("err %v", err)
	}
	if r.n > 2*MaxPatchLine {
		t.Errorf("read %d bytes of the long line", r.n)
	}
}

func TestOpenPatchRefusesNonFiles(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"/dev/zero", dir} {
		if _, err := OpenPatch(p); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("%s: %v", p, err)
		}
	}
}

func TestConfine(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "arch/x86"), 0o755))
	must(os.Symlink(outside, filepath.Join(root, "arch/out")))
	must(os.Symlink("x86", filepath.Join(root, "arch/in")))
	must(os.Symlink("/nonexistent/x", filepath.Join(root, "dangling")))
	for _, c := range []struct {
		rel  string
		ok   bool
		says string // the refusal names the link on the way, or the path itself
	}{
		{"arch/x86/ftrace_64.S", true, ""}, {"new/dir/file", true, ""}, {"arch/in/ftrace_64.S", true, ""},
		{"arch/out/x", false, "arch/out/x goes through arch/out, a symbolic link out of the tree"},
		{"arch/out", false, "arch/out is a symbolic link out of the tree"},
		{"dangling", false, "dangling is a symbolic link that does not resolve"},
	} {
		err := Confine(root, c.rel)
		if (err == nil) != c.ok || err != nil && !strings.Contains(err.Error(), c.says) {
			t.Errorf("Confine(%s) = %v, want ok %v (saying %q)", c.rel, err, c.ok, c.says)
		}
	}
}

// FuzzPatchPaths: whatever the patch, PatchPaths does not panic, and every
// path it returns is local to the tree (no absolute path, no .., clean);
// a patch with a NUL byte is refused.
func FuzzPatchPaths(f *testing.F) {
	f.Add(goodPatch)
	for _, c := range badPatches {
		f.Add(c.patch)
	}
	f.Fuzz(func(t *testing.T, patch string) {
		paths, err := PatchPaths("f.patch", strings.NewReader(patch))
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("a multi-line error: %q", err)
			}
			return
		}
		if strings.IndexByte(patch, 0) >= 0 {
			t.Fatalf("a NUL byte accepted")
		}
		for _, p := range paths {
			if !filepath.IsLocal(p.Path) || filepath.Clean(p.Path) != p.Path || bytes.Contains([]byte("/"+p.Path+"/"), []byte("/../")) {
				t.Fatalf("%q (line %d) is not local to the tree", p.Path, p.Line)
			}
		}
	})
}
