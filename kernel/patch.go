package kernel

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"trampemu/sandbox"
)

// Patching is done by GNU patch (Debian package "patch", installed by
// make deps); the tool has no patch applier of its own. Patches apply with
// no fuzz, as git am applies a mail: a hunk whose context is not there is
// an error, not a guess.

var (
	checkingFile = regexp.MustCompile(`(?m)^(?:checking|patching) file (.+?)(?: \(read from .*\))?$`)
	hunkFailed   = regexp.MustCompile(`(?m)^Hunk #\d+ FAILED at \d+.*$`)
)

func patchProgram() (string, error) {
	p, err := exec.LookPath("patch")
	if err != nil {
		return "", errors.New("patch not found in PATH: install the Debian package patch (make deps does it)")
	}
	return p, nil
}

// patchError turns GNU patch's output into an error naming the patch, the
// file and each hunk that failed.
func patchError(patch, target string, out []byte) error {
	var lines []string
	file := ""
	for _, l := range strings.Split(string(out), "\n") {
		if m := checkingFile.FindStringSubmatch(l); m != nil {
			file = "in " + m[1]
			continue
		}
		if hunkFailed.MatchString(l) {
			lines = append(lines, fmt.Sprintf("%s %s", strings.TrimSpace(l), file))
		}
	}
	if len(lines) == 0 {
		msg := strings.TrimSpace(string(out))
		if msg == "" {
			msg = "(no message)"
		}
		lines = []string{msg}
	}
	return fmt.Errorf("--patch %s does not apply to %s (no fuzz, as git am): %s", patch, target, strings.Join(lines, "; "))
}

// PatchedTree applies a -p1 patch (as git format-patch writes them) to a
// temporary copy of the tree's files the patch names, its trampoline
// files' folders, Makefile and .config, and opens the copy. done removes
// it. Every path the patch names is checked first (PatchPaths, Confine in
// the tree and in the copy); GNU patch runs on the copy only, under the
// sandbox's limits, forced to read the patch as a unified diff.
func PatchedTree(t *Tree, patch string) (after *Tree, done func(), err error) {
	prog, err := patchProgram()
	if err != nil {
		return nil, nil, err
	}
	paths, abs, err := readPatchPaths(patch)
	if err != nil {
		return nil, nil, err
	}
	dir, tmp, done, err := patchDirs()
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) (*Tree, func(), error) { done(); return nil, nil, err }
	files := []string{"Makefile", ".config"}
	for _, rel := range t.Files {
		// The trampoline file's folder comes along: a file there may
		// include its neighbours.
		ents, err := os.ReadDir(filepath.Join(t.Dir, filepath.Dir(rel)))
		if err != nil {
			return fail(err)
		}
		for _, e := range ents {
			if e.Type().IsRegular() {
				files = append(files, filepath.Join(filepath.Dir(rel), e.Name()))
			}
		}
	}
	for _, p := range paths {
		if err := Confine(t.Dir, p.Path); err != nil {
			return fail(&PathError{Patch: patch, Line: p.Line, Msg: fmt.Sprintf("%s: --tree %s: %v", p.Header, t.Dir, err)})
		}
		files = append(files, filepath.FromSlash(p.Path))
	}
	seen := map[string]bool{}
	for _, rel := range files {
		if seen[filepath.Clean(rel)] {
			continue
		}
		seen[filepath.Clean(rel)] = true
		if err := copyTreeFile(t.Dir, rel, dir); err != nil {
			return fail(err)
		}
	}
	for _, p := range paths {
		if err := Confine(dir, p.Path); err != nil {
			return fail(&PathError{Patch: patch, Line: p.Line, Msg: fmt.Sprintf("%s: %v", p.Header, err)})
		}
	}
	out, err := sandbox.Run(sandbox.Cmd{Path: prog, Dir: dir, Tmp: tmp,
		Args: []string{"-p1", "-u", "--batch", "--forward", "--fuzz=0", "--reject-file=-", "--no-backup-if-mismatch", "-i", abs}})
	if err != nil {
		return fail(toolFailure(err, func() error { return patchError(patch, t.Dir, out) }))
	}
	after, err = OpenTree(dir)
	if err != nil {
		return fail(err)
	}
	return after, done, nil
}

// patchDirs makes the private folder a patch applies in: tree (the copy)
// and tmp (the TMPDIR and HOME of GNU patch and git); done removes it.
func patchDirs() (tree, tmp string, done func(), err error) {
	root, done, err := sandbox.TempDir("trampemu-patch-")
	if err != nil {
		return "", "", nil, err
	}
	tree, tmp = filepath.Join(root, "tree"), filepath.Join(root, "tmp")
	for _, d := range []string{tree, tmp} {
		if err := os.Mkdir(d, 0o700); err != nil {
			done()
			return "", "", nil, err
		}
	}
	return tree, tmp, done, nil
}

// readPatchPaths checks a patch file and every path it names.
func readPatchPaths(patch string) ([]PatchPath, string, error) {
	f, err := OpenPatch(patch)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	paths, err := PatchPaths(patch, f)
	if err != nil {
		return nil, "", err
	}
	if len(paths) == 0 {
		return nil, "", &PathError{Patch: patch, Msg: "names no file (no diff --git, ---/+++ headers): give a patch made by git format-patch or diff -u"}
	}
	abs, err := filepath.Abs(patch)
	if err != nil {
		return nil, "", err
	}
	return paths, abs, nil
}

// toolFailure is a limit's error as it is, or the tool's own failure
// explained by explain.
func toolFailure(err error, explain func() error) error {
	var le *sandbox.LimitError
	var te *sandbox.ToolError
	if errors.As(err, &le) || errors.As(err, &te) {
		return err
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return explain()
	}
	return err
}

// copyTreeFile copies tree/rel into dir/rel when it is a regular file
// inside the tree (symbolic links followed, none out of the tree); a file
// the tree does not have is skipped (a patch may create it).
func copyTreeFile(tree, rel, dir string) error {
	if err := Confine(tree, rel); err != nil {
		return fmt.Errorf("--tree %s: %w", tree, err)
	}
	st, err := os.Stat(filepath.Join(tree, rel))
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return err
	case !st.Mode().IsRegular():
		return nil // a folder the patch names is made by the files in it
	}
	return copyFile(filepath.Join(tree, rel), filepath.Join(dir, rel))
}

// PatchedFile applies the part of a patch that changes file to a copy of
// it and returns the copy's path; done removes it. git apply does it
// (--include: a mail that also changes Kconfig or headers applies to the
// one file), under the sandbox's limits, after every path the patch names
// passed PatchPaths: the patch's paths come from git apply --numstat
// (each checked again), and the one with file's base name is taken when
// there are several.
func PatchedFile(file, patch string) (string, func(), error) {
	git, err := exec.LookPath("git")
	if err != nil {
		return "", nil, errors.New("git not found in PATH: install the Debian package git (make deps does it)")
	}
	if st, err := os.Stat(file); err != nil || !st.Mode().IsRegular() {
		return "", nil, fmt.Errorf("--file %s: not a regular file: give a kernel-style .S file", file)
	}
	checked, abs, err := readPatchPaths(patch)
	if err != nil {
		return "", nil, err
	}
	dir, tmp, done, err := patchDirs()
	if err != nil {
		return "", nil, err
	}
	fail := func(err error) (string, func(), error) { done(); return "", nil, err }
	apply := func(args ...string) ([]byte, error) {
		return sandbox.Run(sandbox.Cmd{Path: git, Dir: dir, Tmp: tmp, Args: append([]string{"apply"}, args...)})
	}
	out, err := apply("--numstat", abs)
	if err != nil {
		return fail(toolFailure(err, func() error {
			return fmt.Errorf("--patch %s: not a patch git apply can read: %s", patch, strings.TrimSpace(string(out)))
		}))
	}
	known := map[string]bool{}
	for _, p := range checked {
		known[p.Path] = true
	}
	var paths []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if f := strings.Fields(l); len(f) == 3 {
			if !known[f[2]] {
				return fail(&PathError{Patch: patch, Msg: fmt.Sprintf("git apply reads a path %q the tool's own reading did not find: refused", f[2])})
			}
			paths = append(paths, f[2])
		}
	}
	target := ""
	if len(paths) == 1 {
		target = paths[0]
	}
	for _, p := range paths {
		if len(paths) > 1 && filepath.Base(p) == filepath.Base(file) {
			target = p
		}
	}
	if target == "" {
		return fail(fmt.Errorf("--patch %s changes %v, none of them %s: give the file it changes, or use --tree", patch, paths, filepath.Base(file)))
	}
	if err := Confine(dir, target); err != nil {
		return fail(&PathError{Patch: patch, Msg: err.Error()})
	}
	copyPath := filepath.Join(dir, filepath.FromSlash(target))
	if err := copyFile(file, copyPath); err != nil {
		return fail(err)
	}
	if out, err := apply("--include="+target, abs); err != nil {
		return fail(toolFailure(err, func() error {
			msg := strings.TrimSpace(strings.ReplaceAll(string(out), "error: ", ""))
			msg = strings.ReplaceAll(msg, "\n", "; ")
			return fmt.Errorf("--patch %s does not apply to %s (as %s): %s", patch, file, target, msg)
		}))
	}
	return copyPath, done, nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
