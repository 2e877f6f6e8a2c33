package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"trampemu/regs"
)

// badFiles are .S texts per arch for the bad-input table, written into a
// temporary folder: name -> text.
var badFiles = map[string]map[string]string{
	"x86_64": {
		"asm_error.S": "SYM_FUNC_START(return_to_handler)\n\tRET\n\tbogusinsn %rax\nSYM_FUNC_END(return_to_handler)\n",
		"undefined.S": "SYM_FUNC_START(return_to_handler)\n\tcall nowhere_fn\n\tcall other_missing\n\tRET\nSYM_FUNC_END(return_to_handler)\n",
		"fault.S":     "SYM_FUNC_START(return_to_handler)\n\tmovq 0x10, %rax\n\tRET\nSYM_FUNC_END(return_to_handler)\n",
		"runaway.S":   "SYM_FUNC_START(return_to_handler)\n1:\tjmp 1b\nSYM_FUNC_END(return_to_handler)\n",
		// return_to_handler entering ftrace_return_to_handler twice: the
		// second pops a frame that is not its own.
		"twice.S": "SYM_CODE_START(return_to_handler)\n\tmovq %rsp, %rdi\n\tsubq $(FRAME_SIZE), %rsp\n\tmovq %rax, RAX(%rsp)\n" +
			"\tmovq %rdx, RDX(%rsp)\n\tmovq %rbp, RBP(%rsp)\n\tmovq %rdi, RSP(%rsp)\n\tmovq %rsp, %rdi\n\tcall ftrace_return_to_handler\n" +
			"\tmovq %rsp, %rdi\n\tcall ftrace_return_to_handler\n\tmovq %rax, %rdi\n\tmovq RDX(%rsp), %rdx\n\tmovq RAX(%rsp), %rax\n" +
			"\taddq $(FRAME_SIZE), %rsp\n\tJMP_NOSPEC %rdi\nSYM_CODE_END(return_to_handler)\n",
	},
	"s390x": {
		"asm_error.S": "SYM_FUNC_START(return_to_handler)\n\tbr %r14\n\tbogusinsn %r1\nSYM_FUNC_END(return_to_handler)\n",
		"undefined.S": "SYM_FUNC_START(return_to_handler)\n\tbrasl %r14,nowhere_fn\n\tbrasl %r14,other_missing\n\tbr %r14\nSYM_FUNC_END(return_to_handler)\n",
		"fault.S":     "SYM_FUNC_START(return_to_handler)\n\tllilh %r1,0x7000\n\tlg %r1,0(%r1)\n\tbr %r14\nSYM_FUNC_END(return_to_handler)\n",
		"runaway.S":   "SYM_FUNC_START(return_to_handler)\n0:\tj 0b\nSYM_FUNC_END(return_to_handler)\n",
		"twice.S": "SYM_FUNC_START(return_to_handler)\n\tstmg %r2,%r5,32(%r15)\n\tlgr %r1,%r15\n\taghi %r15,-STACK_FRAME_SIZE_FREGS\n" +
			"\tstg %r1,__SF_BACKCHAIN(%r15)\n\tstg %r2,(STACK_FREGS_PTREGS_GPRS+2*8)(%r15)\n\tstg %r1,(STACK_FREGS_PTREGS_GPRS+15*8)(%r15)\n" +
			"\tla %r2,STACK_FRAME_OVERHEAD(%r15)\n\tbrasl %r14,ftrace_return_to_handler\n" +
			"\tla %r2,STACK_FRAME_OVERHEAD(%r15)\n\tbrasl %r14,ftrace_return_to_handler\n" +
			"\taghi %r15,STACK_FRAME_SIZE_FREGS\n\tlgr %r14,%r2\n\tlmg %r2,%r5,32(%r15)\n\tbr %r14\nSYM_FUNC_END(return_to_handler)\n",
	},
	"arm64": {
		"asm_error.S": "SYM_CODE_START(return_to_handler)\n\tret\n\tbogusinsn x1\nSYM_CODE_END(return_to_handler)\n",
		"undefined.S": "SYM_CODE_START(return_to_handler)\n\tbl nowhere_fn\n\tbl other_missing\n\tret\nSYM_CODE_END(return_to_handler)\n",
		"fault.S":     "SYM_CODE_START(return_to_handler)\n\tmov x1, #0x10\n\tldr x1, [x1]\n\tret\nSYM_CODE_END(return_to_handler)\n",
		"runaway.S":   "SYM_CODE_START(return_to_handler)\n1:\tb 1b\nSYM_CODE_END(return_to_handler)\n",
		"twice.S": "SYM_CODE_START(return_to_handler)\n\tsub sp, sp, #FREGS_SIZE\n\tstp x0, x1, [sp, #FREGS_X0]\n\tstr x29, [sp, #FREGS_FP]\n" +
			"\tmov x0, sp\n\tbl ftrace_return_to_handler\n\tmov x0, sp\n\tbl ftrace_return_to_handler\n\tmov x30, x0\n" +
			"\tldp x0, x1, [sp, #FREGS_X0]\n\tadd sp, sp, #FREGS_SIZE\n\tret\nSYM_CODE_END(return_to_handler)\n",
	},
}

// otherArch is the arch whose correct files stand for "another arch's
// instructions".
var otherArch = map[string]string{"x86_64": "s390x", "s390x": "arm64", "arm64": "x86_64"}

// brokenPrefix is the prefix of an arch's files in tests/testdata/broken.
var brokenPrefix = map[string]string{"x86_64": "x86", "s390x": "s390x", "arm64": "arm64"}

// TestBadInput: every bad input of issue 9 answered clearly on both
// arches: exit 2 with a one-line message naming the input and the fix for
// bad usage or input, exit 1 with a finding for a broken trampoline (and
// the next case still runs). The kernel-model row (--kernel) joins when
// that flag exists.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	broken := "../../tests/testdata/broken/"
	foreign := "../../asm/testdata/foreign/"
	empty := filepath.Join(dir, "empty.S")
	binary := filepath.Join(dir, "binary.S")
	notDir := filepath.Join(dir, "plain")
	must(t, os.WriteFile(empty, nil, 0o644))
	must(t, os.WriteFile(binary, []byte("\x7fELF\x02\x01\x01\x00\x00\x00binary"), 0o644))
	must(t, os.WriteFile(notDir, []byte("x"), 0o644))
	for _, arch := range []string{"x86_64", "s390x", "arm64"} {
		t.Run(arch, func(t *testing.T) {
			file := func(name string) string {
				p := filepath.Join(dir, arch+"_"+name)
				must(t, os.WriteFile(p, []byte(badFiles[arch][name]), 0o644))
				return p
			}
			other := otherArch[arch]
			own, theirs := broken+brokenPrefix[arch], broken+brokenPrefix[other]
			check := func(args ...string) []string {
				return append([]string{"check", "--arch", arch, "--workload", "add", "--calls", "2"}, args...)
			}
			cases := []struct {
				name string
				args []string
				code int
				// first is in stderr's first line (exit 2) or in stdout
				// (exit 1); also, when set, must be in stdout too.
				first, also string
			}{
				{"nonexistent file", check("--file", filepath.Join(dir, "nope.S"), "--role", "exit"), 2, "nope.S: no such file", ""},
				{"empty file", check("--file", empty, "--role", "exit"), 2, "empty.S is empty", ""},
				{"binary file", check("--file", binary, "--role", "exit"), 2, "binary.S is not text", ""},
				{"directory", check("--file", dir, "--role", "exit"), 2, "is a directory", ""},
				{"other arch's instructions", check("--file", theirs+"_rth_ok.S", "--role", "exit"), 2, "holds " + other + " instructions, not " + arch + ": use --arch " + other, ""},
				{"other arch's entry file", check("--file", "../../tests/testdata/kernel/"+other+"_v6.14.S"), 2, "holds " + other + " instructions, not " + arch + ": use --arch " + other, ""},
				{"loongarch64 file", check("--file", foreign+"loongarch64.S"), 2, "loongarch64.S holds loongarch64 instructions, an architecture trampemu does not model", ""},
				{"powerpc64 file", check("--file", foreign+"powerpc64.S"), 2, "powerpc64.S holds powerpc64 instructions, an architecture trampemu does not model", ""},
				{"mips file", check("--file", foreign+"mips.S"), 2, "mips.S holds mips instructions, an architecture trampemu does not model", ""},
				{"arm32 file", check("--file", foreign+"arm32.S"), 2, "arm32.S holds arm32 instructions, an architecture trampemu does not model", ""},
				{"riscv64 file", check("--file", foreign+"riscv64.S"), 2, "riscv64.S holds riscv64 instructions, " + riscv64Told(arch), ""},
				{"assembler error", check("--file", file("asm_error.S"), "--role", "exit"), 2, arch + "_asm_error.S:3: Error", ""},
				{"exit file as entry", check("--file", own+"_rth_ok.S", "--role", "entry"), 2, "defines return_to_handler, the symbol of an exit trampoline", ""},
				{"entry file as exit", check("--file", own+"_entry_ok.S", "--role", "exit"), 2, "the symbol of an entry trampoline, not return_to_handler: use --role entry", ""},
				{"undefined symbols", check("--file", file("undefined.S"), "--role", "exit"), 2, "undefined symbols: nowhere_fn, other_missing", ""},
				{"unknown arch", []string{"check", "--arch", "mips"}, 2, "valid are arm64, riscv64, s390x, x86_64", ""},
				{"unknown variant", check("--variant", "nope"), 2, "unknown " + arch + " variant \"nope\": valid are", ""},
				{"unknown workload", []string{"check", "--arch", arch, "--workload", "nope"}, 2, "valid are add", ""},
				{"unknown scenario", check("--scenario", "nope"), 2, "valid are bpf, bpf-prefix, bpf-ret, bpf-ret-v6.18, default", ""},
				{"unknown header encoding", []string{"scenario", "run", "header-s390x", "--arch", arch, "--header", "nope"}, 2, "valid are merged", ""},
				// kernel model: {"unknown kernel model", check("--kernel", "nope"), 2, "valid are", ""} once --kernel exists.
				{"--calls 0", check("--calls", "0"), 2, "--calls 0: give 1 to 100000", ""},
				{"--calls negative", check("--calls", "-5"), 2, "--calls -5: give 1 to 100000", ""},
				{"--calls absurd", check("--calls", "1000000000"), 2, "--calls 1000000000: give 1 to 100000", ""},
				{"mutate --calls 0", []string{"mutate", "--arch", arch, "--calls", "0"}, 2, "--calls 0: give 1", ""},
				{"unknown flag", check("--bogus"), 2, "unknown flag: --bogus (see 'trampemu check --help')", ""},
				{"guest fault", check("--file", file("fault.S"), "--role", "exit"), 1, "error fault: memory fault at return_to_handler", arch + " pc 0x"},
				{"runaway loop", check("--file", file("runaway.S"), "--role", "exit"), 1, "control: instruction limit at return_to_handler", "per call reached (64 x the"},
				{"ftrace_return_to_handler twice", check("--file", file("twice.S"), "--role", "exit", "--workload", "six"), 1, "corrupt shadow stack", "/ six:"},
				{"unwritable --out", []string{"report", "--arch", arch, "--out", filepath.Join(notDir, "sub")}, 2, "--out " + filepath.Join(notDir, "sub") + ": not a directory", ""},
			}
			for _, c := range cases {
				var out, errb bytes.Buffer
				code := run(c.args, &out, &errb)
				first, _, _ := strings.Cut(errb.String(), "\n")
				switch {
				case code != c.code:
					t.Errorf("%s: %v: exit %d, want %d; stdout %.400q stderr %.400q", c.name, c.args, code, c.code, out.String(), errb.String())
				case code == 2 && (!strings.HasPrefix(first, "trampemu ") || !strings.Contains(first, c.first)):
					t.Errorf("%s: first line of stderr %q, want it to say %q", c.name, first, c.first)
				case code == 1 && !strings.Contains(out.String(), c.first):
					t.Errorf("%s: stdout %.600q does not say %q", c.name, out.String(), c.first)
				case c.also != "" && !strings.Contains(out.String(), c.also):
					t.Errorf("%s: stdout %.600q does not say %q", c.name, out.String(), c.also)
				}
			}
		})
	}
}

// TestWriteFilesAllOrNothing: when a file of --out fails half way, no file
// of the set (and no temporary file) is left.
func TestWriteFilesAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	boom := errors.New("boom")
	err := writeFiles(dir, []outFile{
		{"a.md", func(w io.Writer) error { _, err := io.WriteString(w, "a"); return err }},
		{"b.json", func(w io.Writer) error { io.WriteString(w, "half"); return boom }},
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err %v, want boom", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
	// And the pass case: both files there, readable by others.
	if err := writeFiles(dir, []outFile{{"a.md", func(w io.Writer) error { _, err := io.WriteString(w, "a"); return err }}}); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, "a.md"))
	if err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("a.md: %v %v, want mode 0644", st, err)
	}
}

// riscv64Told is how a riscv64 file is answered under --arch arch: as
// an unmodelled arch's until branch riscv adds riscv64 to regs.Arches.
func riscv64Told(arch string) string {
	if _, err := regs.ArchByName("riscv64"); err == nil {
		return "not " + arch + ": use --arch riscv64"
	}
	return "an architecture trampemu does not model"
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
