package kernel

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"trampemu/regs"
)

// treeFiles holds each arch's trampoline file in a kernel tree
// (x86_64.go, s390x.go).
var treeFiles = map[string]string{}

// treeCompanions hold the files of an arch's trampolines beside its
// treeFiles one, checked with it (riscv64: return_to_handler is in
// arch/riscv/kernel/mcount.S, the entries in mcount-dyn.S).
var treeCompanions = map[string][]string{}

// otherTreeFiles are ftrace trampoline files of arches the tool has no
// kernel models for: a tree that has one gets a note, not silence (none
// left since riscv64 has its models).
var otherTreeFiles = map[string]string{}

// configArch holds the option that marks an arch's .config.
var configArch = map[string]string{}

// Tree is a kernel source tree: its version (top Makefile), its .config
// when there is one, and the trampoline file of each supported arch it has.
type Tree struct {
	Dir     string
	Version Version
	// Config is the tree's .config, nil without one; ConfigArch is the
	// arch it was made for ("" when it names none the tool knows).
	Config     Config
	ConfigArch string
	// Files maps an arch to its trampoline file's path relative to Dir.
	Files map[string]string
	// Companions maps an arch to the other trampoline files of its
	// (treeCompanions) that the tree has, relative to Dir.
	Companions map[string][]string
	// Unmodelled maps an arch the tool does not model (or does not run)
	// to its trampoline file in the tree.
	Unmodelled map[string]string
}

var makeVar = regexp.MustCompile(`(?m)^(VERSION|PATCHLEVEL)\s*=\s*(\d+)\s*$`)

// OpenTree reads a kernel tree.
func OpenTree(dir string) (*Tree, error) {
	// A file of the tree that is a symbolic link out of it is refused:
	// the tree may come with the patch, from a stranger.
	for _, rel := range []string{"Makefile", ".config"} {
		if err := treeFile(dir, rel); err != nil {
			return nil, err
		}
	}
	mk, err := os.ReadFile(filepath.Join(dir, "Makefile"))
	if err != nil {
		return nil, fmt.Errorf("--tree %s: no top Makefile (%v): give the kernel source tree's top directory", dir, err)
	}
	t := &Tree{Dir: dir, Files: map[string]string{}, Companions: map[string][]string{}, Unmodelled: map[string]string{}}
	if t.Version, err = MakefileVersion(mk); err != nil {
		return nil, fmt.Errorf("--tree %s: %w", dir, err)
	}
	if data, err := os.ReadFile(filepath.Join(dir, ".config")); err == nil {
		if t.Config, err = ParseConfig(filepath.Join(dir, ".config"), data); err != nil {
			return nil, err
		}
		for arch, opt := range configArch {
			if t.Config[opt] == "y" {
				t.ConfigArch = arch
			}
		}
	}
	for arch, rel := range treeFiles {
		if err := treeFile(dir, rel); err != nil {
			return nil, err
		}
		if _, err := os.Stat(filepath.Join(dir, rel)); err != nil {
			continue
		}
		for _, c := range treeCompanions[arch] {
			if err := treeFile(dir, c); err != nil {
				return nil, err
			}
			if _, err := os.Stat(filepath.Join(dir, c)); err == nil {
				t.Companions[arch] = append(t.Companions[arch], c)
			}
		}
		if _, err := regs.ArchByName(arch); err != nil {
			t.Unmodelled[arch] = rel // an arch the tool has models for but does not run yet
			continue
		}
		t.Files[arch] = rel
	}
	for arch, rel := range otherTreeFiles {
		if _, modelled := treeFiles[arch]; modelled {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, rel)); err == nil {
			t.Unmodelled[arch] = rel
		}
	}
	if len(t.Files) == 0 {
		var want []string
		for _, rel := range treeFiles {
			want = append(want, rel)
		}
		sort.Strings(want)
		return nil, fmt.Errorf("--tree %s: none of %v in the tree", dir, want)
	}
	return t, nil
}

// MakefileVersion reads VERSION and PATCHLEVEL from a kernel's top
// Makefile (the first assignment of each).
func MakefileVersion(mk []byte) (Version, error) {
	got := map[string]int{}
	for _, m := range makeVar.FindAllSubmatch(mk, -1) {
		n, err := strconv.Atoi(string(m[2]))
		if err != nil || n > 1000 {
			return Version{}, fmt.Errorf("the top Makefile's %s = %s is not a version number", m[1], m[2])
		}
		if _, seen := got[string(m[1])]; !seen {
			got[string(m[1])] = n
		}
	}
	maj, ok1 := got["VERSION"]
	min, ok2 := got["PATCHLEVEL"]
	if !ok1 || !ok2 {
		return Version{}, fmt.Errorf("the top Makefile has no VERSION = / PATCHLEVEL = lines")
	}
	return Version{maj, min}, nil
}

// Arches lists the arches the tree has a trampoline file for, sorted.
func (t *Tree) Arches() []string {
	var out []string
	for a := range t.Files {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

// Notes say which trampoline files of the tree are not checked: those of
// arches the tool does not model, sorted.
func (t *Tree) Notes() []string {
	var names []string
	for _, a := range regs.Arches {
		names = append(names, a.Name)
	}
	var out []string
	for arch, rel := range t.Unmodelled {
		out = append(out, fmt.Sprintf("%s: not checked: the tool has no %s kernel models (it models %s)", rel, arch, strings.Join(names, ", ")))
	}
	sort.Strings(out)
	return out
}

// ConfigFor returns the tree's .config when it was made for arch, else nil
// (the model's distribution defaults apply).
func (t *Tree) ConfigFor(arch string) Config {
	if t.ConfigArch == arch {
		return t.Config
	}
	return nil
}

// treeFile refuses a file of the tree that resolves out of it or is not a
// regular file (a FIFO or device would block or never end); a missing one
// is left to the caller.
func treeFile(dir, rel string) error {
	if _, err := os.Lstat(filepath.Join(dir, rel)); err != nil {
		return nil
	}
	if err := Confine(dir, rel); err != nil {
		return fmt.Errorf("--tree %s: %v", dir, err)
	}
	st, err := os.Stat(filepath.Join(dir, rel))
	if err == nil && !st.Mode().IsRegular() {
		return fmt.Errorf("--tree %s: %s is not a regular file (%v): refused", dir, rel, st.Mode().Type())
	}
	return nil
}
