package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// treeFile is each arch's trampoline file in a kernel tree (kernel's
// treeFiles).
var treeFile = map[string]string{
	"x86_64": "arch/x86/kernel/ftrace_64.S",
	"s390x":  "arch/s390/kernel/mcount.S",
	"arm64":  "arch/arm64/kernel/entry-ftrace.S",
}

// snapshot records every file under dir but skip (path -> mode, size,
// content hash or link target).
func snapshot(t *testing.T, dir, skip string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == skip {
			return filepath.SkipDir
		}
		st, err := os.Lstat(p)
		if err != nil {
			return err
		}
		v := fmt.Sprintf("%v %d %v", st.Mode(), st.Size(), st.ModTime().UnixNano())
		switch {
		case st.Mode()&os.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			v += " -> " + l
		case st.Mode().IsRegular() && st.Size() < 16<<20:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v += fmt.Sprintf(" %x", sha256.Sum256(b))
		}
		out[p] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func diffSnapshots(before, after map[string]string) []string {
	var d []string
	for p, v := range before {
		if after[p] != v {
			d = append(d, "changed or removed: "+p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			d = append(d, "new: "+p)
		}
	}
	sort.Strings(d)
	return d
}

// TestSecurity: every hostile input of issue 18 on every arch (a patch
// naming ../ paths, absolute paths, renames onto ../, paths through a
// symbolic link out of the tree, a NUL byte, an over-long line or a
// 1 GiB file; a --tree file linking out of the tree; a .S that includes
// itself, an absolute file, .incbin of a host file, cpp, .rept and .fill
// bombs; a --file or --patch that is a FIFO or /dev/zero) gives one line
// on stderr naming the input, exit 2, fast, and after each nothing in the
// test's folder changed (the canary folder, the paths the patch named),
// and the tool's temporary folders (TMPDIR points into the test's
// folder) are gone.
func TestSecurity(t *testing.T) {
	root := t.TempDir()
	// TMPDIR two levels down: a climb of three .. from the tool's copy
	// (TMPDIR/trampemu-patch-*/tree, or one level less) lands in the
	// snapshot.
	tmp := filepath.Join(root, "tmp", "t")
	canary := filepath.Join(root, "canary")
	for _, d := range []string{tmp, canary} {
		must(t, os.MkdirAll(d, 0o755))
	}
	t.Setenv("TMPDIR", tmp)
	// The bombs stop at the limits: lower ones keep the table fast
	// (the defaults are 10s, 1GiB, 64MiB; sandbox tests them).
	t.Setenv("TRAMPEMU_TIMEOUT", "3s")
	t.Setenv("TRAMPEMU_OUTPUT", "1MiB")
	secret := filepath.Join(canary, "secret.h")
	must(t, os.WriteFile(secret, []byte("#define TOPSECRET 1\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(canary, "keep.S"), []byte("\tnop\n"), 0o644))
	fifo := filepath.Join(root, "fifo")
	must(t, syscall.Mkfifo(fifo, 0o644))
	// A patch file of 1 GiB, sparse: nothing of it is read.
	huge := filepath.Join(root, "huge.patch")
	hf, err := os.Create(huge)
	must(t, err)
	hf.WriteString("--- a/x.S\n+++ b/x.S\n")
	must(t, hf.Truncate(1<<30))
	hf.Close()
	write := func(name, text string) string {
		p := filepath.Join(root, name)
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	longLine := write("long.patch", "--- a/x.S\n+++ b/x.S\n@@ -1 +1 @@\n-"+strings.Repeat("x", 3<<20)+"\n+y\n")
	bomb := "#define a0 x x x x x x x x x x\n"
	for i := 1; i <= 9; i++ {
		bomb += fmt.Sprintf("#define a%d%s\n", i, strings.Repeat(fmt.Sprintf(" a%d", i-1), 10))
	}
	bomb += "a9\n"
	for _, arch := range []string{"x86_64", "s390x", "arm64"} {
		t.Run(arch, func(t *testing.T) {
			kfile := "../../tests/testdata/kernel/" + arch + "_v6.14.S"
			text, err := os.ReadFile(kfile)
			must(t, err)
			file := write(arch+"/src/"+filepath.Base(treeFile[arch]), string(text))
			if arch == "x86_64" {
				hdr, err := os.ReadFile("../../tests/testdata/kernel/x86_64_mcount_regs.h")
				must(t, err)
				write(arch+"/src/x86_64_mcount_regs.h", string(hdr))
			}
			base := filepath.Base(file)
			victim := filepath.Join(root, "tmp", "victim")
			climb := "../../../victim/" + base
			patch := func(name, text string) string { return write(arch+"/"+name, text) }
			hunk := "@@ -1 +1 @@\n-" + strings.SplitN(string(text), "\n", 2)[0] + "\n+/* changed */\n"
			// A tree whose trampoline file links out of it, and one with a
			// folder that does.
			linked := filepath.Join(root, arch, "linked")
			write(arch+"/linked/Makefile", "VERSION = 6\nPATCHLEVEL = 14\n")
			must(t, os.MkdirAll(filepath.Dir(filepath.Join(linked, treeFile[arch])), 0o755))
			must(t, os.Symlink(secret, filepath.Join(linked, treeFile[arch])))
			tree := filepath.Join(root, arch, "tree")
			write(arch+"/tree/Makefile", "VERSION = 6\nPATCHLEVEL = 14\n")
			write(arch+"/tree/"+treeFile[arch], string(text))
			if arch == "x86_64" {
				hdr, _ := os.ReadFile("../../tests/testdata/kernel/x86_64_mcount_regs.h")
				write(arch+"/tree/arch/x86/kernel/x86_64_mcount_regs.h", string(hdr))
			}
			out := filepath.Dir(treeFile[arch]) + "/out"
			must(t, os.Symlink(canary, filepath.Join(tree, out)))
			src := func(name, text string) string { return write(arch+"/src/"+name, text) }
			// hostile is the kernel file with hostile lines first: its
			// model is found, the build runs into them.
			hostile := func(name, head string) string { return src(name, head+string(text)) }
			check := func(args ...string) []string {
				return append([]string{"check", "--arch", arch, "--workload", "add", "--calls", "2"}, args...)
			}
			withFile := func(p string) []string { return check("--file", file, "--role", "exit", "--patch", p) }
			cases := []struct {
				name   string
				args   []string
				says   string
				absent string // a path the input named, that must not exist after
			}{
				{"patch header a/../", withFile(patch("climb.patch", "--- a/"+climb+"\n+++ b/"+climb+"\n"+hunk)), "line 1: --- \"a/" + climb + "\": it climbs out with ..", filepath.Join(victim, base)},
				{"patch header b/../ only", withFile(patch("climb_b.patch", "--- a/"+base+"\n+++ b/"+climb+"\n"+hunk)), "line 2: +++", filepath.Join(victim, base)},
				{"diff --git ../", withFile(patch("git_climb.patch", "diff --git a/"+climb+" b/"+climb+"\n--- a/"+climb+"\n+++ b/"+climb+"\n"+hunk)), "line 1: diff --git", filepath.Join(victim, base)},
				{"absolute header", withFile(patch("abs.patch", "--- "+filepath.Join(victim, base)+"\n+++ "+filepath.Join(victim, base)+"\n"+hunk)), "an absolute path", filepath.Join(victim, base)},
				{"rename onto ../", withFile(patch("rename.patch", "diff --git a/"+base+" b/"+climb+"\nsimilarity index 100%\nrename from "+base+"\nrename to "+climb+"\n")), "line 1: diff --git", filepath.Join(victim, base)},
				{"rename to ../ alone", withFile(patch("rename2.patch", "diff --git a/"+base+" b/y.S\nsimilarity index 100%\nrename from "+base+"\nrename to "+climb+"\n")), "line 4: rename to", filepath.Join(victim, base)},
				{"copy to ../", withFile(patch("copy.patch", "diff --git a/"+base+" b/y.S\nsimilarity index 100%\ncopy from "+base+"\ncopy to ../../../victim/copy.S\n")), "line 4: copy to", filepath.Join(victim, "copy.S")},
				{"symlink made by the patch", withFile(patch("symlink.patch", "diff --git a/l b/l\nnew file mode 120000\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+"+canary+"\n")), "line 2: \"new file mode 120000\": the patch makes a symbolic link", ""},
				{"NUL in the patch", withFile(patch("nul.patch", "--- a/"+base+"\n+++ b/"+base+"\n@@ -1 +1 @@\n-a\x00b\n+c\n")), "line 4: a NUL byte", ""},
				{"a 3 MiB line", withFile(longLine), "line 4: longer than 1 MiB", ""},
				{"a 1 GiB patch", withFile(huge), "is 1073741824 bytes, more than the 64 MiB", ""},
				{"patch is a FIFO", withFile(fifo), "is not a regular file (p", ""},
				{"patch is /dev/zero", withFile("/dev/zero"), "/dev/zero: is not a regular file", ""},
				{"tree file links out", check("--tree", linked, "--role", "exit"), treeFile[arch] + " is a symbolic link out of the tree", ""},
				{"tree patch through a link out", check("--tree", tree, "--role", "exit", "--patch", patch("through.patch", "--- /dev/null\n+++ b/"+out+"/victim.S\n@@ -0,0 +1 @@\n+x\n")), "goes through " + out + ", a symbolic link out of the tree", filepath.Join(canary, "victim.S")},
				{"tree patch a/../", check("--tree", tree, "--role", "exit", "--patch", patch("tree_climb.patch", "--- /dev/null\n+++ b/../../../victim/t.S\n@@ -0,0 +1 @@\n+x\n")), "climbs out with ..", filepath.Join(victim, "t.S")},
				{"--file a FIFO", check("--file", fifo, "--role", "exit"), "is not a regular file (p", ""},
				{"--file /dev/zero", check("--file", "/dev/zero", "--role", "exit"), "--file /dev/zero is not a regular file", ""},
				{"asm of a FIFO", []string{"asm", "--arch", arch, fifo}, "is not a regular file", ""},
				{".incbin /etc/hostname", []string{"asm", "--arch", arch, src("incbin.S", ".data\n.incbin \"/etc/hostname\"\n")}, "incbin.S:2: .incbin \"/etc/hostname\": an absolute path: refused", ""},
				{".incbin by a macro", []string{"asm", "--arch", arch, src("incbin_macro.S", ".data\n.macro m a b\n.\\a\\()\\b \"/etc/hostname\"\n.endm\nm inc,bin\n")}, "as read /etc/hostname", ""},
				{"#include \"/abs\"", check("--file", hostile("abs_inc.S", "#include \""+secret+"\"\n"), "--role", "exit"), "abs_inc.S:1: #include \"" + secret + "\": an absolute path: refused", ""},
				{"#include climbing", []string{"asm", "--arch", arch, src("climb_inc.S", "#include \"../../canary/secret.h\"\n")}, "climb_inc.S:1: #include \"../../canary/secret.h\": it climbs out with ..", ""},
				{"includes itself", check("--file", hostile("self.S", "#include \"self.S\"\n"), "--role", "exit"), "self.S:1: #include \"self.S\" includes itself", ""},
				{".fill 2000000000", check("--file", hostile("fill.S", ".fill 2000000000, 1, 0x90\n"), "--role", "exit"), "fill.S:1: .fill 2000000000, 1, 0x90 makes 2000000000 bytes", ""},
				{".rept bomb", check("--file", hostile("rept.S", ".rept 100000\n.rept 100000\nnop\n.endr\n.endr\n"), "--role", "exit"), "rept.S:2: .rept 100000 repeats its body 10000000000 times", ""},
				{".rept bomb, computed", []string{"asm", "--arch", arch, src("rept2.S", ".rept 1<<12\n.rept 1<<12\n.rept 1<<12\nnop\n.endr\n.endr\n.endr\n")}, "limit (an input that makes it", ""},
				{"cpp bomb", check("--file", hostile("bomb.S", bomb), "--role", "exit"), "cpp wrote more than its 1MiB output limit", ""},
			}
			for _, c := range cases {
				before := snapshot(t, root, tmp)
				start := time.Now()
				var stdout, stderr bytes.Buffer
				code := run(c.args, &stdout, &stderr)
				took := time.Since(start)
				lines := strings.Split(strings.TrimRight(stderr.String(), "\n"), "\n")
				switch {
				case code != 2:
					t.Errorf("%s: exit %d, want 2; stdout %.300q stderr %.300q", c.name, code, stdout.String(), stderr.String())
				case len(lines) != 1 || !strings.HasPrefix(lines[0], "trampemu ") || !strings.Contains(lines[0], c.says):
					t.Errorf("%s: stderr %.600q, want one line saying %q", c.name, stderr.String(), c.says)
				case strings.Contains(stderr.String()+stdout.String(), "TOPSECRET"):
					t.Errorf("%s: the output shows a file outside the inputs: %q", c.name, stderr.String())
				}
				if took > 5*time.Second {
					t.Errorf("%s: took %v", c.name, took)
				}
				for _, d := range diffSnapshots(before, snapshot(t, root, tmp)) {
					t.Errorf("%s: %s", c.name, d)
				}
				if c.absent != "" {
					if _, err := os.Lstat(c.absent); err == nil {
						t.Errorf("%s: %s was written", c.name, c.absent)
						os.Remove(c.absent)
					}
				}
				if left, _ := os.ReadDir(tmp); len(left) > 0 {
					t.Errorf("%s: temporary files left: %v", c.name, left)
					for _, e := range left {
						os.RemoveAll(filepath.Join(tmp, e.Name()))
					}
				}
			}
		})
	}
}
