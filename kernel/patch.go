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

// PatchedFile applies a patch of one file to a copy of file (whatever path
// the patch names) and returns the copy's path. done removes it.
func PatchedFile(file, patch string) (string, func(), error) {
	prog, err := patchProgram()
	if err != nil {
		return "", nil, err
	}
	if _, err := os.Stat(patch); err != nil {
		return "", nil, fmt.Errorf("--patch: %w", err)
	}
	dir, err := os.MkdirTemp("", "trampemu-patch-")
	if err != nil {
		return "", nil, err
	}
	done := func() { os.RemoveAll(dir) }
	copyPath := filepath.Join(dir, filepath.Base(file))
	if err := copyFile(file, copyPath); err != nil {
		done()
		return "", nil, err
	}
	// The file's own folder's headers stay reachable: the copy's includes
	// are resolved by the caller with the original folder.
	out, err := exec.Command(prog, "--batch", "--forward", "--fuzz=0", "--reject-file=-", "--no-backup-if-mismatch", copyPath, "-i", patch).CombinedOutput()
	out = []byte(strings.ReplaceAll(string(out), copyPath, file))
	if err != nil {
		done()
		return "", nil, patchError(patch, file, out)
	}
	if n := len(checkingFile.FindAllString(string(out), -1)); n > 1 {
		done()
		return "", nil, fmt.Errorf("--patch %s changes %d files; with --file it must change only the one file (use --tree for a patch of several)", patch, n)
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
