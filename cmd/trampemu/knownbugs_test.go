package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"trampemu/check"
	"trampemu/regs"
)

// edited writes a copy of a test file with each (old, new) replaced once
// into dir and returns its path; an edit that changes nothing fails.
func edited(t *testing.T, dir, name, src string, edits ...[2]string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, e := range edits {
		if !strings.Contains(text, e[0]) {
			t.Fatalf("%s has no %q", src, e[0])
		}
		text = strings.Replace(text, e[0], e[1], 1)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestKnownBugsCLI: per arch, a file with a known kernel bug of its model
// (kernel.KnownBug) exits 0 and shows it, in the text ("known kernel bug
// (CITATION): ...", the cause, RESULT "known (...)") and in the JSON
// (severity "known", the bug with its cause and fix); the same file with
// one more defect exits 1 with that defect an error beside the known bug;
// a file of another model (or without the bug's construct) with the same
// symptom exits 1 with it an error. x86-64 and arm64 list no known bugs:
// their kernel bugs (v6.19's RSP) stay errors.
func TestKnownBugsCLI(t *testing.T) {
	dir := t.TempDir()
	broken := "../../tests/testdata/broken/"
	rv := broken + "riscv64/"
	feiFix, recUnfixed := "fixed by 7495e179b478 in v6.14", "unfixed as of linux-riscv/linux@826da2eea23b"
	a1Fix, spFix := "fixed by v6.3 at the latest, commit not identified", "fixed by 7caa9765465f in v6.11"
	e1Fix := "fixed by 6724a76cff85 in v6.3"
	cases := []struct {
		name, arch, file string
		args             []string
		code             int
		known            string     // the citation of the known finding ("" none)
		err              check.Kind // an error finding it must have ("" none)
	}{
		{"x86_64 v6.19 RSP", "x86_64", kdata + "x86_64_v6.19.S", []string{"--role", "return_to_handler", "--workload", "add"}, 1, "", check.WrongValue},
		{"arm64 x0 lost", "arm64", broken + "arm64_rth_loses_x0.S", []string{"--role", "exit", "--workload", "add"}, 1, "", check.Clobber},
		{"s390x fei leak", "s390x", kdata + "s390x_v6.5.S", []string{"--role", "ftrace_regs_caller", "--workload", "fei_target"}, 0, feiFix, ""},
		{"s390x fei leak and r2", "s390x", edited(t, dir, "s390x_v6.5_r2.S", kdata+"s390x_v6.5.S",
			[2]string{"lmg\t%r2,%r15,(STACK_FREGS_PTREGS_GPRS+2*8)(%r15)", "lmg\t%r3,%r15,(STACK_FREGS_PTREGS_GPRS+3*8)(%r15)"}),
			[]string{"--role", "ftrace_regs_caller", "--workload", "fei_target"}, 1, feiFix, check.Clobber},
		{"riscv64 no record", "riscv64", rv + "riscv64_rth_fregs_fix.S", []string{"--workload", "add"}, 0, recUnfixed, ""},
		// v5.11-v6.2: ftrace_caller's sp off alignment on the parent word
		{"riscv64 v5.11-v6.2 sp", "riscv64", kdata + "riscv64_v6.2.S", []string{"--role", "ftrace_caller", "--workload", "add"}, 0, e1Fix, ""},
		{"riscv64 v5.11-v6.2 sp and op", "riscv64", edited(t, dir, "v6.2_op.S", kdata+"riscv64_v6.2.S",
			[2]string{"REG_L\ta2, 0(a1)\t\t\t/* op */", "REG_L\ta2, 8(a1)\t\t\t/* op */"}),
			[]string{"--role", "ftrace_caller", "--workload", "add"}, 1, e1Fix, check.WrongValue},
		{"riscv64 no record and a1", "riscv64", edited(t, dir, "rth_fregs_fix_a1.S", rv+"riscv64_rth_fregs_fix.S", [2]string{"\tREG_L\ta1, FREGS_A1(sp)\n", ""}),
			[]string{"--workload", "add"}, 1, recUnfixed, check.Clobber},
		{"riscv64 v6.5-v6.13 no record", "riscv64", edited(t, dir, "rth_ok_no_ra.S", broken+"riscv64_rth_ok.S", [2]string{"\tREG_S\tra, 3*SZREG(sp)\n", ""}),
			[]string{"--workload", "add"}, 1, "", check.Backchain},
		{"riscv64 a1 lost", "riscv64", kdata + "riscv64_v6.1_mcount.S", []string{"--workload", "ret128"}, 0, a1Fix, ""},
		{"riscv64 a1 lost and s0", "riscv64", edited(t, dir, "v6.1_mcount_s0.S", kdata+"riscv64_v6.1_mcount.S", [2]string{"\tld\ts0, 16(sp)\n", ""}),
			[]string{"--workload", "ret128"}, 1, a1Fix, check.Clobber},
		{"riscv64 v6.5-v6.13 a1 lost", "riscv64", edited(t, dir, "rth_ok_a1.S", broken+"riscv64_rth_ok.S",
			[2]string{"\tREG_S\ta1, 0*SZREG(sp)\n", ""}, [2]string{"\tREG_L\ta1, 0*SZREG(sp)\n", ""},
			[2]string{"mv\tt1, a0", "mv\ta1, a0"}, [2]string{"jr\tt1", "jalr\ta1"}),
			[]string{"--workload", "add"}, 1, "", check.Clobber},
		{"riscv64 regs->sp", "riscv64", rv + "riscv64_entry_regs_lowered_sp.S", []string{"--workload", "add"}, 0, spFix, ""},
		{"riscv64 regs->sp and a0", "riscv64", edited(t, dir, "regs_sp_a0.S", rv+"riscv64_entry_regs_lowered_sp.S", [2]string{"\tREG_L\ta0, PT_A0(sp)\n", ""}),
			[]string{"--workload", "add"}, 1, spFix, check.Clobber},
		{"riscv64 v6.14 ftrace_caller's sp", "riscv64", edited(t, dir, "v6.14_sp.S", kdata+"riscv64_v6.14.S", [2]string{"REG_S\tt4, FREGS_SP(sp)", "REG_S\tsp, FREGS_SP(sp)"}),
			[]string{"--role", "entry", "--workload", "add"}, 1, "", check.WrongValue},
	}
	seen := map[string]bool{}
	for _, c := range cases {
		seen[c.arch] = true
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"check", "--arch", c.arch, "--file", c.file, "--calls", "2"}, c.args...)
			var out, errb bytes.Buffer
			if code := run(args, &out, &errb); code != c.code {
				t.Fatalf("exit %d, want %d: %s%s", code, c.code, out.String(), errb.String())
			}
			text := out.String()
			if c.known != "" {
				result := "  known (" // the RESULT cell
				if c.code != 0 {
					result = ", 1 known)"
				}
				for _, w := range []string{"\n  known kernel bug (" + c.known + "): ", "\n    cause: arch/", result} {
					if !strings.Contains(text, w) {
						t.Errorf("the text lacks %q:\n%s", w, text)
					}
				}
			} else if strings.Contains(text, "known kernel bug") || strings.Contains(text, " known") {
				t.Errorf("a known finding:\n%s", text)
			}
			if c.err != "" && !strings.Contains(text, "\n  error "+string(c.err)) {
				t.Errorf("no %s error:\n%s", c.err, text)
			}
			out.Reset()
			if code := run(append(args, "--json"), &out, &errb); code != c.code {
				t.Fatalf("--json: exit %d, want %d", code, c.code)
			}
			var got checkOutput
			if err := json.Unmarshal(out.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			known, errs := 0, map[check.Kind]bool{}
			for _, r := range got.Results {
				for _, f := range r.Findings {
					switch f.Severity {
					case check.Known:
						known++
						if f.Known == nil || f.Citation != c.known || f.Known.Cause == "" {
							t.Errorf("known finding %+v, want the citation %q and a cause", f, c.known)
						}
					case check.Error:
						errs[f.Kind] = true
						if f.Known != nil {
							t.Errorf("error finding with a known bug: %+v", f)
						}
					}
				}
				if r.OK != (c.code == 0) {
					t.Errorf("%s / %s: ok %v, exit %d", r.Variant, r.Workload, r.OK, c.code)
				}
			}
			if (known > 0) != (c.known != "") {
				t.Errorf("%d known findings, want the citation %q", known, c.known)
			}
			if c.err != "" && !errs[c.err] || c.err == "" && len(errs) > 0 {
				t.Errorf("error kinds %v, want %q", errs, c.err)
			}
		})
	}
	for _, a := range regs.Arches {
		if !seen[a.Name] {
			t.Errorf("%s: no case", a.Name)
		}
	}
}

// TestKnownBugsTree: check --tree of a tree shaped like Debian's 6.1 (the
// v6.5-v6.12 s390x entry, a t0-site riscv64 entry beside a v5.x
// mcount.S) passes with the three known kernel bugs shown; with one more
// defect in one file it fails.
func TestKnownBugsTree(t *testing.T) {
	files := map[string]string{"arch/x86/kernel/ftrace_64.S": "x86_64_v6.1.S", "arch/arm64/kernel/entry-ftrace.S": "arm64_v6.1.S",
		"arch/s390/kernel/mcount.S": "s390x_v6.5.S", "arch/riscv/kernel/mcount-dyn.S": "riscv64_v6.7.S", "arch/riscv/kernel/mcount.S": "riscv64_v6.1_mcount.S"}
	tree := writeTree(t, [2]int{6, 1}, files, "")
	args := []string{"check", "--tree", tree, "--workload", "add", "--workload", "fei_target", "--calls", "2"}
	var out, errb bytes.Buffer
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d, want 0: %s%s", code, out.String(), errb.String())
	}
	for _, w := range []string{
		"arch/s390/kernel/mcount.S:ftrace_regs_caller / fei_target:\n  known kernel bug (fixed by 7495e179b478 in v6.14): control",
		"arch/riscv/kernel/mcount-dyn.S:ftrace_regs_caller / add:\n  known kernel bug (fixed by 7caa9765465f in v6.11): wrong-value sp",
		"arch/riscv/kernel/mcount.S:return_to_handler / add:\n  known kernel bug (fixed by v6.3 at the latest, commit not identified): clobber %a1",
	} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("no %q in\n%s", w, out.String())
		}
	}
	edited(t, filepath.Join(tree, "arch/s390/kernel"), "mcount.S", kdata+"s390x_v6.5.S",
		[2]string{"lmg\t%r2,%r15,(STACK_FREGS_PTREGS_GPRS+2*8)(%r15)", "lmg\t%r3,%r15,(STACK_FREGS_PTREGS_GPRS+3*8)(%r15)"})
	out.Reset()
	if code := run(args, &out, &errb); code != 1 || !strings.Contains(out.String(), "error clobber %r2") {
		t.Errorf("with one more defect: exit %d, want 1 and the clobber:\n%s", code, out.String())
	}
}

// TestKnownBugsListed: list --config names each model's known kernel
// bugs with their citation; an arch without any names none.
func TestKnownBugsListed(t *testing.T) {
	runCases(t, []cliCase{
		{[]string{"list", "--config", "--arch", "s390x"}, 0,
			"               known kernel bug: ftrace_regs_caller (fixed by 7495e179b478 in v6.14): control: arch/s390/kernel/mcount.S", ""},
		{[]string{"list", "--config", "--arch", "riscv64"}, 0,
			"               known kernel bug: return_to_handler (unfixed as of linux-riscv/linux@826da2eea23b): backchain: arch/riscv/kernel/mcount.S", ""},
	})
	for _, a := range []string{"x86_64", "arm64"} {
		var out, errb bytes.Buffer
		if code := run([]string{"list", "--config", "--arch", a}, &out, &errb); code != 0 || strings.Contains(out.String(), "known kernel bug") {
			t.Errorf("%s: exit %d, %s", a, code, out.String())
		}
	}
}
