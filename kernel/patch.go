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
// temporary copy of the tree's files the patch touches, its trampoline
// files, Makefile and .config, and opens the copy. done removes it.
func PatchedTree(t *Tree, patch string) (after *Tree, done func(), err error) {
	prog, err := patchProgram()
	if err != nil {
		return nil, nil, err
	}
	if _, err := os.Stat(patch); err != nil {
		return nil, nil, fmt.Errorf("--patch: %w", err)
	}
	abs, err := filepath.Abs(patch)
	if err != nil {
		return nil, nil, err
	}
	out, err := exec.Command(prog, "-p1", "--dry-run", "--batch", "--forward", "--fuzz=0", "-d", t.Dir, "-i", abs).CombinedOutput()
	if err != nil {
		return nil, nil, patchError(patch, t.Dir, out)
	}
	dir, err := os.MkdirTemp("", "trampemu-patch-")
	if err != nil {
		return nil, nil, err
	}
	done = func() { os.RemoveAll(dir) }
	files := []string{"Makefile", ".config"}
	for _, rel := range t.Files {
		// The trampoline file's folder comes along: a file there may
		// include its neighbours.
		ents, err := os.ReadDir(filepath.Join(t.Dir, filepath.Dir(rel)))
		if err != nil {
			done()
			return nil, nil, err
		}
		for _, e := range ents {
			if e.Type().IsRegular() {
				files = append(files, filepath.Join(filepath.Dir(rel), e.Name()))
			}
		}
	}
	for _, m := range checkingFile.FindAllStringSubmatch(string(out), -1) {
		files = append(files, m[1])
	}
	for _, rel := range files {
		if err := copyFile(filepath.Join(t.Dir, rel), filepath.Join(dir, rel)); err != nil && !errors.Is(err, os.ErrNotExist) {
			done()
			return nil, nil, err
		}
	}
	if out, err := exec.Command(prog, "-p1", "--batch", "--forward", "--fuzz=0", "--reject-file=-", "--no-backup-if-mismatch", "-d", dir, "-i", abs).CombinedOutput(); err != nil {
		done()
		return nil, nil, patchError(patch, t.Dir, out)
	}
	after, err = OpenTree(dir)
	if err != nil {
		done()
		return nil, nil, err
	}
	return after, done, nil
}

// PatchedFile applies the part of a patch that changes file to a copy of
// it and returns the copy's path; done removes it. git apply does it
// (--include: a mail that also changes Kconfig or headers applies to the
// one file): the patch's paths come from git apply --numstat, and the one
// with file's base name is taken when there are several.
func PatchedFile(file, patch string) (string, func(), error) {
	git, err := exec.LookPath("git")
	if err != nil {
		return "", nil, errors.New("git not found in PATH: install the Debian package git (make deps does it)")
	}
	abs, err := filepath.Abs(patch)
	if err != nil {
		return "", nil, err
	}
	if _, err := os.Stat(abs); err != nil {
		return "", nil, fmt.Errorf("--patch: %w", err)
	}
	dir, err := os.MkdirTemp("", "trampemu-patch-")
	if err != nil {
		return "", nil, err
	}
	done := func() { os.RemoveAll(dir) }
	fail := func(err error) (string, func(), error) { done(); return "", nil, err }
	apply := func(args ...string) ([]byte, error) {
		cmd := exec.Command(git, append([]string{"apply"}, args...)...)
		cmd.Dir = dir
		return cmd.CombinedOutput()
	}
	out, err := apply("--numstat", abs)
	if err != nil {
		return fail(fmt.Errorf("--patch %s: not a patch git apply can read: %s", patch, strings.TrimSpace(string(out))))
	}
	var paths []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if f := strings.Fields(l); len(f) == 3 {
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
	copyPath := filepath.Join(dir, filepath.FromSlash(target))
	if err := copyFile(file, copyPath); err != nil {
		return fail(err)
	}
	if out, err := apply("--include="+target, abs); err != nil {
		msg := strings.TrimSpace(strings.ReplaceAll(string(out), "error: ", ""))
		msg = strings.ReplaceAll(msg, "\n", "; ")
		return fail(fmt.Errorf("--patch %s does not apply to %s (as %s): %s", patch, file, target, msg))
	}
	return copyPath, done, nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
