package asm_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"trampemu/asm"
	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
)

// objdumpHostFuncs are the host functions every build of the comparison
// gets: the kernel functions the trampolines call, the runtime's hooks and
// the emu test program's host functions.
var objdumpHostFuncs = append(append([]string{}, harness.StandaloneHostFuncs...), "host_add", "host_count")

// objdumpData defines, weakly, the kernel data symbols the trampolines load
// (the runtime defines them strongly; a trampoline file alone needs them).
const objdumpData = `
	.data
	.balign 8
	.weak function_trace_op, ftrace_func, ftrace_trace_function
function_trace_op:
	.quad 0
ftrace_func:
	.quad 0
ftrace_trace_function:
	.quad 0
`

// objdumpInput is one .S file built for the comparison.
type objdumpInput struct {
	arch    *regs.Arch
	name    string // path shown in reports
	text    []byte
	defines map[string]string
	headers map[string][]byte
	with    []asm.Source // linked alongside (not compared)
}

// label names the file and its defines in reports.
func (in objdumpInput) label() string {
	if len(in.defines) == 0 {
		return in.name
	}
	keys := make([]string, 0, len(in.defines))
	for k := range in.defines {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return in.name + "[" + strings.Join(keys, ",") + "]"
}

// objdumpInputs lists every .S file of the project for arch: each variant
// file once per distinct define set of the registry (and once without
// defines when no variant uses it), the workloads, the runtime and
// emu/testdata.
func objdumpInputs(t *testing.T, a *regs.Arch) []objdumpInput {
	t.Helper()
	read := func(name string) []byte {
		b, err := fs.ReadFile(trampolines.Files, name)
		if err != nil {
			t.Fatalf("reading embedded %s: %v", name, err)
		}
		return b
	}
	// exists: an arch not yet in regs.Arches may lack the project's files
	// (arm64 while they are being added); then only asm's own test files
	// are compared, and the test says so.
	exists := func(name string, stat func(string) error) bool {
		if stat(name) == nil {
			return true
		}
		if switchedOn(a) {
			return true // reading it fails loudly
		}
		t.Logf("%s is not in regs.Arches yet and has no %s: not compared", a.Name, name)
		return false
	}
	embedded := func(name string) error { _, err := fs.Stat(trampolines.Files, name); return err }
	onDisk := func(name string) error { _, err := os.Stat(name); return err }
	headers := map[string][]byte{}
	hs, err := fs.Glob(trampolines.Files, a.Name+"/*.h")
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hs {
		headers[path.Base(h)] = read(h)
	}
	files, err := fs.Glob(trampolines.Files, a.Name+"/*.S")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 && switchedOn(a) {
		t.Fatalf("no %s/*.S in trampolines.Files", a.Name)
	}
	var out []objdumpInput
	for _, f := range files {
		seen := map[string]bool{}
		for _, v := range trampolines.Variants {
			if v.Arch != a.Name || v.File != f {
				continue
			}
			in := objdumpInput{arch: a, name: "trampolines/" + f, text: read(f), defines: v.Defines, headers: headers}
			if !seen[in.label()] {
				seen[in.label()] = true
				out = append(out, in)
			}
		}
		if len(seen) == 0 {
			out = append(out, objdumpInput{arch: a, name: "trampolines/" + f, text: read(f), headers: headers})
		}
	}
	// runtime/data.S holds the runtime's data and no code.
	wl, rt := "workloads/"+a.Name+".S", "runtime/"+a.Name+".S"
	if exists(wl, embedded) {
		out = append(out, objdumpInput{arch: a, name: "trampolines/" + wl, text: read(wl)})
	}
	if exists(rt, embedded) {
		defs := trampolines.RuntimeDefines(a)
		out = append(out, objdumpInput{arch: a, name: "trampolines/" + rt, text: read(rt), defines: defs,
			with: []asm.Source{{Name: "trampolines/runtime/data.S", Text: read("runtime/data.S"), Defines: defs}}})
	}
	td := filepath.Join("..", "emu", "testdata", a.Name+".S")
	if exists(td, onDisk) {
		text, err := os.ReadFile(td)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, objdumpInput{arch: a, name: "emu/testdata/" + a.Name + ".S", text: text})
	}
	own, err := filepath.Glob(filepath.Join("testdata", "*_"+a.Name+".S"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range own {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, objdumpInput{arch: a, name: "asm/" + filepath.ToSlash(f), text: text})
	}
	return out
}

// objdumpLine is one instruction line of objdump -d.
type objdumpLine struct {
	addr uint64
	text string
}

var (
	objdumpInsnRE = regexp.MustCompile(`^\s*([0-9a-f]+):\t(.*)$`)
)

// runObjdump disassembles the image's executable sections with GNU objdump
// and returns the instruction lines.
func runObjdump(t *testing.T, a *regs.Arch, im *asm.Image) []objdumpLine {
	t.Helper()
	prog := a.Triple + "-objdump"
	p, err := exec.LookPath(prog)
	if err != nil {
		t.Fatalf("%s not found in PATH: install the Debian package %s", prog, a.BinutilsPkg)
	}
	f := filepath.Join(t.TempDir(), "image.elf")
	if err := os.WriteFile(f, im.ELF, 0o644); err != nil {
		t.Fatal(err)
	}
	// -z: show runs of zero bytes instead of "...".
	out, err := exec.Command(p, "-d", "-z", "--no-show-raw-insn", f).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", prog, err, out)
	}
	var lines []objdumpLine
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		m := objdumpInsnRE.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		addr, err := strconv.ParseUint(m[1], 16, 64)
		if err != nil {
			t.Fatalf("objdump line %q: %v", sc.Text(), err)
		}
		lines = append(lines, objdumpLine{addr, m[2]})
	}
	return lines
}

// The normalisation applied before our text is compared with objdump's
// (GNU objdump 2.40, -d -z --no-show-raw-insn), in this order:
//
//  1. Whitespace: runs of blanks and tabs become one space, both sides.
//  2. Whole-instruction aliases (objdumpAliases): the same bytes spelled
//     differently; the objdump text is looked up exactly (after step 1) and
//     ours must then be the listed text.
//  3. x86-64 operand spelling (objdumpOperandRules), objdump side only:
//     objdump prints an index's scale 1 and an encoded zero displacement,
//     x86asm leaves both out ("0x0(%rax,%rax,1)" is our "(%rax,%rax)").
//  4. Symbols: "addr <sym+off>" targets (and objdump's "# addr <sym>"
//     comments, which we print in the same form) must have the same address;
//     when the names differ, both must name that address in the image (two
//     symbols at one address: objdump prefers the STT_FUNC one, we a global
//     one), and objdump's name is replaced by ours.
//  5. s390x: objdump prints bytes it does not decode as ".long 0x........"
//     (4 bytes); the CPU, and we, decode 0x0000 as a 2-byte invalid
//     instruction ".short 0x0000". Objdump's ".long 0x0000XXXX" must be our
//     ".short 0x0000" followed by a 2-byte instruction.
//  6. arm64: objdump's trailing "// ..." comment (the decimal value of an
//     immediate, "// b.any" after b.ne) is dropped.
//  7. arm64: an adrp page objdump names by the nearest symbol below it in
//     any section ("<trampemu_direct_hook+0x10fffb0>"), where we name none:
//     the name must resolve to the address, and is dropped.
//  8. riscv64: objdump's trailing "# addr <sym>" comment (the address an
//     auipc/lui pair or an addi/ld/jalr after it computes, riscv-dis.c
//     maybe_print_address) is dropped: we decode one instruction at a time.
//  9. riscv64: objdump (binutils 2.40) spells the immediate forms add,
//     addw, and, or, xor, sll, srl, sra, csrrw, csrrs and csrrc without
//     their "i" when the last operand is a number; we print the base ISA's
//     mnemonic (addi, ..., csrrci), so objdump's is given the "i".
//
// Anything else that differs is reported as a mismatch.

// objdumpAliases lists each instruction objdump and we spell differently,
// with the reason.
var objdumpAliases = []struct {
	arch, objdump, ours, why string
}{
	{"x86_64", "xchg %ax,%ax", "data16 nop",
		"66 90, GAS's 2-byte alignment nop: objdump names the xchg, x86asm the prefix"},
	{"x86_64", "cs nopw 0x0(%rax,%rax,1)", "nopw %cs:(%rax,%rax)",
		"66 2e 0f 1f 84 00.., GAS's 10-byte alignment nop: objdump prints the segment prefix as a word, x86asm as an operand override"},
	{"x86_64", "push $0xffffffff81000000", "push $-0x7f000000",
		"68 imm32 of arch_rethook_trampoline's fake return address: objdump prints the sign-extended 64-bit value, x86asm the signed immediate"},
	{"arm64", "mrs x1, spsel", "mrs x1, s3_0_c4_c2_0",
		"SPSel (arch_rethook_trampoline's saved PSTATE): arm64asm has no name for the system register and prints its encoding"},
	{"riscv64", ".2byte 0x0", "unimp",
		"the all-zero halfword (padding after the code): objdump prints it as data, we decode the defined-illegal instruction the CPU traps on"},
	{"arm64", ".word 0x00000000", "udf #0",
		"a zero word of a literal pool in .text: objdump prints data after a $d mapping symbol, the CPU (and we) decode udf #0"},
}

var (
	scaleOneRE  = regexp.MustCompile(`\((%[a-z0-9]+)?,(%[a-z0-9]+),1\)`)
	zeroDispRE  = regexp.MustCompile(`(^|[ ,*:])0x0\((%[a-z0-9]+)`)
	symTargetRE = regexp.MustCompile(`([0-9a-f]+) <([^>]+)>`)
	longRE      = regexp.MustCompile(`^\.long 0x0000[0-9a-f]{4}$`)
)

// objdumpOperandRules rewrites objdump's x86-64 operand spelling into
// x86asm's (step 3).
var objdumpOperandRules = []struct {
	name string
	fn   func(string) string
}{
	{"scale 1 of an index is implicit: (%b,%i,1) -> (%b,%i)", func(s string) string {
		return scaleOneRE.ReplaceAllString(s, "($1,$2)")
	}},
	{"an encoded zero displacement is dropped: 0x0(%reg -> (%reg (not %rip)", func(s string) string {
		return zeroDispRE.ReplaceAllStringFunc(s, func(m string) string {
			if strings.HasSuffix(m, "(%rip") {
				return m
			}
			return strings.Replace(m, "0x0(", "(", 1)
		})
	}},
}

func collapse(s string) string { return strings.TrimSpace(spaceRE.ReplaceAllString(s, " ")) }

var spaceRE = regexp.MustCompile(`\s+`)

// resolve returns the address "name" or "name+0xoff" stands for in the
// image.
func resolve(im *asm.Image, s string) (uint64, bool) {
	name, off, hasOff := strings.Cut(s, "+")
	addr, ok := im.Symbol(name)
	if !ok {
		return 0, false
	}
	if hasOff {
		o, err := strconv.ParseUint(strings.TrimPrefix(off, "0x"), 16, 64)
		if err != nil {
			return 0, false
		}
		addr += o
	}
	return addr, true
}

// riscvImmAliasRE matches objdump's riscv64 immediate forms spelled
// without "i" (step 9): the mnemonic, then operands ending in a number.
var riscvImmAliasRE = regexp.MustCompile(`^(add|addw|and|or|xor|sll|srl|sra|csrrw|csrrs|csrrc)( \S+,-?(?:0x[0-9a-f]+|[0-9]+))$`)

// normalise turns objdump's text into the text we must print (steps 2-4);
// a non-empty problem means the symbol annotations cannot agree.
func normalise(a *regs.Arch, im *asm.Image, objdump, ours string, used map[int]int) (want, problem string) {
	want = collapse(objdump)
	for i, al := range objdumpAliases {
		if al.arch == a.Name && al.objdump == want {
			used[i]++
			return al.ours, ""
		}
	}
	if a.Name == "x86_64" {
		for _, r := range objdumpOperandRules {
			want = r.fn(want)
		}
	}
	if a.Name == "arm64" {
		// Step 6: objdump's "// ..." comment (an immediate in decimal, the
		// condition's other names) is dropped.
		if i := strings.Index(want, " //"); i >= 0 {
			want = want[:i]
		}
	}
	if a.Name == "riscv64" {
		// Step 8: the "# addr <sym>" comment is dropped.
		if i := strings.Index(want, " #"); i >= 0 {
			want = want[:i]
		}
		// Step 9: the immediate forms get their "i".
		if m := riscvImmAliasRE.FindStringSubmatch(want); m != nil {
			if m[1] == "addw" {
				want = "addiw" + m[2]
			} else {
				want = m[1] + "i" + m[2]
			}
		}
	}
	ws, gs := symTargetRE.FindAllStringSubmatchIndex(want, -1), symTargetRE.FindAllStringSubmatch(ours, -1)
	if a.Name == "arm64" && len(ws) == 1 && len(gs) == 0 && strings.HasPrefix(want, "adrp ") {
		// Step 7: objdump names an adrp page that no symbol of its
		// section starts by the nearest symbol below it in any section;
		// we name none. The name must still be that address.
		m := ws[0]
		v, err := strconv.ParseUint(want[m[2]:m[3]], 16, 64)
		if im == nil {
			return want, "no image to resolve <" + want[m[4]:m[5]] + "> in"
		}
		if addr, ok := resolve(im, want[m[4]:m[5]]); !ok || err != nil || addr != v {
			return want, fmt.Sprintf("<%s> is not a name of %s", want[m[4]:m[5]], want[m[2]:m[3]])
		}
		return strings.TrimSpace(want[:m[3]] + want[m[1]:]), ""
	}
	if len(ws) != len(gs) {
		return want, fmt.Sprintf("objdump annotates %d addresses, we %d", len(ws), len(gs))
	}
	// Replace from the end so that earlier indices stay valid.
	for i := len(ws) - 1; i >= 0; i-- {
		m := ws[i]
		addr, name := want[m[2]:m[3]], want[m[4]:m[5]]
		if addr != gs[i][1] {
			return want, fmt.Sprintf("target %s, ours %s", addr, gs[i][1])
		}
		if name == gs[i][2] {
			continue
		}
		v, err := strconv.ParseUint(addr, 16, 64)
		if err != nil {
			return want, err.Error()
		}
		a1, ok1 := resolve(im, name)
		a2, ok2 := resolve(im, gs[i][2])
		if !ok1 || !ok2 || a1 != v || a2 != v {
			return want, fmt.Sprintf("<%s> and <%s> are not both names of %s", name, gs[i][2], addr)
		}
		want = want[:m[4]] + gs[i][2] + want[m[5]:]
	}
	return want, ""
}

func TestDisassemblerMatchesObjdump(t *testing.T) {
	for _, a := range asmTestArches() {
		t.Run(a.Name, func(t *testing.T) {
			used := map[int]int{}
			total := 0
			for _, in := range objdumpInputs(t, a) {
				opt := asm.Options{Arch: a, Defines: in.defines, HostFuncs: objdumpHostFuncs, Headers: in.headers}
				srcs := append([]asm.Source{{Name: in.name, Text: in.text}, {Name: "objdump_data.S", Text: []byte(objdumpData)}}, in.with...)
				im, err := asm.Build(opt, srcs...)
				var te *asm.ToolError
				if errors.As(err, &te) {
					t.Fatal(err) // names the Debian package to install
				}
				if err != nil {
					t.Errorf("%s %s does not build: %v", a.Name, in.label(), err)
					continue
				}
				lines := runObjdump(t, a, im)
				if len(lines) == 0 {
					t.Errorf("%s: objdump printed no instructions", in.label())
					continue
				}
				total += compareObjdump(t, a, im, in.label(), lines, used)
			}
			if total == 0 {
				t.Fatalf("no instruction compared")
			}
			for i, al := range objdumpAliases {
				if al.arch == a.Name && used[i] == 0 {
					t.Logf("alias %q = %q was not needed", al.objdump, al.ours)
				}
			}
			t.Logf("%s: %d instructions compared with objdump", a.Name, total)
		})
	}
}

// compareObjdump checks our decoding at every address objdump printed and
// returns how many instructions it compared.
func compareObjdump(t *testing.T, a *regs.Arch, im *asm.Image, file string, lines []objdumpLine, used map[int]int) int {
	t.Helper()
	d := asm.ForImage(im)
	n := 0
	for i, l := range lines {
		end := sectionEnd(im, l.addr)
		if i+1 < len(lines) && lines[i+1].addr > l.addr && lines[i+1].addr <= end {
			end = lines[i+1].addr
		}
		size := end - l.addr
		got, err := d.Decode(im.Bytes(l.addr, 16), l.addr)
		if err != nil {
			t.Errorf("%s %s %#x: objdump %q, we fail: %v", a.Name, file, l.addr, collapse(l.text), err)
			continue
		}
		n++
		if a.Name == "s390x" {
			if f := strings.Fields(got.Text); got.Op != f[0] {
				t.Errorf("%s %s %#x: Op %q, text %q", a.Name, file, l.addr, got.Op, got.Text)
			}
			if longRE.MatchString(collapse(l.text)) && size == 4 {
				// Step 5: objdump's data fallback over a 0x0000 halfword.
				next, err := d.Decode(im.Bytes(l.addr+2, 16), l.addr+2)
				if got.Text != ".short 0x0000" || got.Len != 2 || err != nil || next.Len != 2 {
					t.Errorf("%s %s %#x: objdump %q, we decode %q (%d bytes) then %q (%v)", a.Name, file, l.addr,
						collapse(l.text), got.Text, got.Len, next.Text, err)
				}
				continue
			}
		}
		if uint64(got.Len) != size {
			t.Errorf("%s %s %#x: length %d, objdump %d (objdump %q, ours %q)", a.Name, file, l.addr, got.Len, size, collapse(l.text), got.Text)
		}
		ours := collapse(got.Text)
		want, problem := normalise(a, im, l.text, ours, used)
		if problem != "" || want != ours {
			t.Errorf("%s %s %#x: text differs %s\n  objdump: %s\n  wanted:  %s\n  ours:    %s", a.Name, file, l.addr, problem, collapse(l.text), want, ours)
		}
	}
	return n
}

func sectionEnd(im *asm.Image, addr uint64) uint64 {
	for _, s := range im.Sections {
		if addr >= s.Addr && addr < s.Addr+uint64(len(s.Data)) {
			return s.Addr + uint64(len(s.Data))
		}
	}
	return addr
}

// The normalisation rewrites only what its rules name.
func TestObjdumpNormalisation(t *testing.T) {
	cases := []struct {
		arch          *regs.Arch
		objdump, ours string
		want          string
		problem       bool // the symbol annotations cannot agree
	}{
		{regs.X86_64, "nopl   0x0(%rax,%rax,1)", "nopl (%rax,%rax)", "nopl (%rax,%rax)", false},
		{regs.X86_64, "lea    (%rdi,%rsi,1),%rax", "lea (%rdi,%rsi),%rax", "lea (%rdi,%rsi),%rax", false},
		{regs.X86_64, "lea    (%rdi,%rsi,2),%rax", "", "lea (%rdi,%rsi,2),%rax", false},
		{regs.X86_64, "mov    0x0(%rip),%rax        # ffffffff82000000 <x>", "mov 0x0(%rip),%rax # ffffffff82000000 <x>",
			"mov 0x0(%rip),%rax # ffffffff82000000 <x>", false},
		{regs.X86_64, "mov    0x10(%rax),%rbx", "", "mov 0x10(%rax),%rbx", false},
		{regs.X86_64, "xchg   %ax,%ax", "", "data16 nop", false},
		{regs.X86_64, "xchg   %rax,%rbx", "", "xchg %rax,%rbx", false},
		{regs.X86_64, "call   ffffffff81f00000 <ftrace_stub>", "call ffffffff81f00010 <ftrace_stub>", "call ffffffff81f00000 <ftrace_stub>", true},
		{regs.S390X, "lg     %r1,0(%r2,%r3)", "", "lg %r1,0(%r2,%r3)", false},
		{regs.S390X, "xchg   %ax,%ax", "", "xchg %ax,%ax", false},
		{regs.S390X, "brasl  %r14,f00000 <ftrace_stub>", "brasl %r14,f00000 <ftrace_stub>", "brasl %r14,f00000 <ftrace_stub>", false},
		{regs.S390X, "brasl  %r14,f00000 <ftrace_stub>", "brasl %r14,f00000", "brasl %r14,f00000 <ftrace_stub>", true},
		{regs.ARM64, "mov	x0, #0x1                   	// #1", "", "mov x0, #0x1", false},
		{regs.ARM64, "b.ne	ffff80008000003c <f+0x3c>  // b.any", "b.ne ffff80008000003c <f+0x3c>", "b.ne ffff80008000003c <f+0x3c>", false},
		{regs.ARM64, ".word	0x00000000", "", "udf #0", false},
		{regs.ARM64, "ldr	x1, [sp, #16]", "", "ldr x1, [sp, #16]", false},
		{regs.ARM64, "adrp	x16, ffff800082000000 <nosuch+0x10>", "adrp x16, ffff800082000000", "adrp x16, ffff800082000000 <nosuch+0x10>", true},
	}
	for _, c := range cases {
		want, problem := normalise(c.arch, nil, c.objdump, c.ours, map[int]int{})
		if want != c.want || (problem != "") != c.problem {
			t.Errorf("%s %q vs %q: %q, problem %q; want %q, problem %v", c.arch.Name, c.objdump, c.ours, want, problem, c.want, c.problem)
		}
	}
}
