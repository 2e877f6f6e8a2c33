package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestModelMismatch: a kernel file checked under a model its code does
// not fit (--kernel, or a tree whose Makefile version is not the file's).
// On arm64 the model's CONFIG options build another #ifdef branch of the
// file (the -pg/_mcount code under a WITH_REGS/WITH_ARGS model of another
// era), whose ftrace_call the kernel does not patch that way: nothing can
// run, so it is bad input (exit 2) naming the file, the model and the fix
// (the model found from the file). On x86-64 and s390x the same mismatch
// builds code that runs and goes wrong: findings (exit 1).
func TestModelMismatch(t *testing.T) {
	kdir := "../../tests/testdata/kernel/"
	cases := []struct {
		arch string
		code int
		want []string // in stderr's first line (exit 2) or stdout (exit 1)
	}{
		{"x86_64", 1, []string{"x86_64_v5.10.S:", "FAIL", "error "}},
		{"s390x", 1, []string{"s390x_v5.10.S:", "FAIL", "error "}},
		{"arm64", 2, []string{"arm64_v5.10.S does not fit kernel model v6.14+ (--kernel v6.14)", "-pg/_mcount",
			"drop --kernel to use the model found from the file (v5.5-v5.19), or give --kernel v5.5", "ftrace_call"}},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		args := []string{"check", "--arch", c.arch, "--file", kdir + c.arch + "_v5.10.S", "--kernel", "v6.14", "--workload", "add", "--calls", "2"}
		code := run(args, &out, &errb)
		got := out.String()
		if c.code == 2 {
			got, _, _ = strings.Cut(errb.String(), "\n")
		}
		if code != c.code {
			t.Errorf("%s: exit %d, want %d; stdout %.300q stderr %q", c.arch, code, c.code, out.String(), errb.String())
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", c.arch, got, w)
			}
		}
	}
	// A tree whose Makefile says v6.14 around the v5.10-shaped arm64 file:
	// the file decides its model, and a note says the Makefile disagrees.
	tree := t.TempDir()
	src, err := os.ReadFile(kdir + "arm64_v5.10.S")
	must(t, err)
	must(t, os.MkdirAll(filepath.Join(tree, "arch/arm64/kernel"), 0o755))
	must(t, os.WriteFile(filepath.Join(tree, "arch/arm64/kernel/entry-ftrace.S"), src, 0o644))
	must(t, os.WriteFile(filepath.Join(tree, "Makefile"), []byte("VERSION = 6\nPATCHLEVEL = 14\nSUBLEVEL = 0\n"), 0o644))
	var out, errb bytes.Buffer
	code := run([]string{"check", "--arch", "arm64", "--tree", tree, "--workload", "add", "--calls", "2"}, &out, &errb)
	for _, w := range []string{"arch/arm64/kernel/entry-ftrace.S: kernel model v5.5-v5.19, the tree's Makefile says v6.14; the file decides",
		"note: arch/arm64/kernel/entry-ftrace.S: Makefile says v6.14; the file is v5.5-v5.19-style: older code than the Makefile's version (the file wins)"} {
		if code != 0 || !strings.Contains(out.String(), w) {
			t.Errorf("tree: exit %d, stdout %.2000q stderr %q; want 0 and %q", code, out.String(), errb.String(), w)
		}
	}
}
