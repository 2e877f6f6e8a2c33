package asm_test

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"trampemu/asm"
	"trampemu/ftrace"
	"trampemu/regs"
)

// The golden facts file, in the style of golang.org/x/arch's decode.txt:
// one line per instruction,
//
//	bytes|arch|text|facts
//
// bytes in hex, arch as regs.Arch.Name, text as our decoder prints it
// (decoded at address 0 without symbols) and facts the memory-access and
// control-flow facts of the decoder's facts table:
//
//	loads=N/B stores=N/B [L8[rsp-0x8] S8[...] LS4[r2+r3*1+0x8] ...] flow=K [target=0x..]
//
// (N accesses of B bytes in all; each access with its direction, size and
// address expression; an absolute address as [0x..]) or "mem=unknown
// flow=K" for an instruction without memory facts. Lines starting with #
// are comments. go test ./asm -run TestFacts -update rewrites the file from
// testdata/facts_<arch>.S, assembled with GNU as.
const factsFile = "testdata/facts.txt"

// factsArches are the architectures of the facts file: asmTestArches.
func factsArches() []*regs.Arch { return asmTestArches() }

// asmTestArches are the architectures package asm's tests cover: every
// one of regs.Arches. An arch added to the list before its trampolines,
// runtime and workloads exist gets asm's own test files compared only
// (objdumpInputs says so); switchedOn tells the two apart.
func asmTestArches() []*regs.Arch { return regs.Arches }

// switchedOn reports whether a is in regs.Arches (its trampolines,
// runtime and workloads must exist).
func switchedOn(a *regs.Arch) bool {
	for _, x := range regs.Arches {
		if x == a {
			return true
		}
	}
	return false
}

func factsText(a *regs.Arch, in asm.Inst) string {
	var f []string
	if in.MemKnown {
		f = append(f, fmt.Sprintf("loads=%d/%d", in.Loads, in.LoadBytes), fmt.Sprintf("stores=%d/%d", in.Stores, in.StoreBytes))
		for _, r := range in.Mem {
			f = append(f, memRefText(a, r))
		}
	} else {
		f = append(f, "mem=unknown")
	}
	f = append(f, "flow="+in.Flow.String())
	if in.Target != 0 {
		f = append(f, fmt.Sprintf("target=%#x", in.Target))
	}
	return strings.Join(f, " ")
}

func memRefText(a *regs.Arch, r asm.MemRef) string {
	dir := ""
	if r.Load {
		dir += "L"
	}
	if r.Store {
		dir += "S"
	}
	if dir == "" {
		dir = "-"
	}
	reg := func(i int) string {
		if i >= 0 && i < len(a.Regs) {
			return a.Regs[i].Name
		}
		return fmt.Sprintf("reg%d", i)
	}
	var e []string
	if r.Base >= 0 {
		e = append(e, reg(r.Base))
	}
	if r.Index >= 0 {
		e = append(e, fmt.Sprintf("%s*%d", reg(r.Index), r.Scale))
	}
	addr := strings.Join(e, "+")
	switch {
	case len(e) == 0:
		addr = fmt.Sprintf("%#x", uint64(r.Disp))
	case r.Disp > 0:
		addr += fmt.Sprintf("+%#x", r.Disp)
	case r.Disp < 0:
		addr += fmt.Sprintf("-%#x", -r.Disp)
	}
	return fmt.Sprintf("%s%d[%s]", dir, r.Size, addr)
}

// factsLine is one line of the facts file.
type factsLine struct {
	n                      int // line number
	bytes, arch, text, fct string
}

func (l factsLine) String() string { return l.bytes + "|" + l.arch + "|" + l.text + "|" + l.fct }

func readFacts(t *testing.T) []factsLine {
	t.Helper()
	f, err := os.Open(factsFile)
	if err != nil {
		t.Fatalf("%v (run go test ./asm -run TestFacts -update to create it)", err)
	}
	defer f.Close()
	var out []factsLine
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		p := strings.SplitN(l, "|", 4)
		if len(p) != 4 {
			t.Fatalf("%s:%d: %q is not bytes|arch|text|facts", factsFile, n, l)
		}
		out = append(out, factsLine{n, p[0], p[1], p[2], p[3]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// decodeFactsLine decodes the line's bytes as the file says: at address 0,
// without symbols, all bytes one instruction.
func decodeFactsLine(l factsLine) (asm.Inst, *regs.Arch, error) {
	var a *regs.Arch
	for _, x := range factsArches() {
		if x.Name == l.arch {
			a = x
		}
	}
	if a == nil {
		return asm.Inst{}, nil, fmt.Errorf("unknown architecture %q", l.arch)
	}
	code, err := hex.DecodeString(l.bytes)
	if err != nil {
		return asm.Inst{}, a, err
	}
	in, err := asm.NewDisassembler(a, nil).Decode(code, 0)
	if err != nil {
		return in, a, err
	}
	if in.Len != len(code) {
		return in, a, fmt.Errorf("decoded %d of the %d bytes", in.Len, len(code))
	}
	return in, a, nil
}

// factsMismatches decodes every line and returns what differs.
func factsMismatches(lines []factsLine) []string {
	var out []string
	for _, l := range lines {
		in, a, err := decodeFactsLine(l)
		if err != nil {
			out = append(out, fmt.Sprintf("%s:%d: %s: %v", factsFile, l.n, l, err))
			continue
		}
		got := factsLine{bytes: l.bytes, arch: l.arch, text: in.Text, fct: factsText(a, in)}
		if got.text != l.text || got.fct != l.fct {
			out = append(out, fmt.Sprintf("%s:%d:\n  want %s\n  got  %s", factsFile, l.n, l, got))
		}
	}
	return out
}

// generateFacts assembles testdata/facts_<arch>.S and returns its lines.
func generateFacts(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("# Decoded instructions with their facts (see asm/facts_test.go for the format).\n")
	b.WriteString("# Generated by go test ./asm -run TestFacts -update from testdata/facts_<arch>.S; do not edit.\n")
	for _, a := range factsArches() {
		name := filepath.Join("testdata", "facts_"+a.Name+".S")
		text, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		im, err := asm.Build(asm.Options{Arch: a, HostFuncs: []string{ftrace.SymFtraceStub}}, asm.Source{Name: name, Text: text})
		if err != nil {
			t.Fatal(err)
		}
		u := im.Units[0]
		ins, err := asm.Listing(im, asm.NewDisassembler(a, nil), u.Start, u.End)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, x := range ins {
			in, err := asm.NewDisassembler(a, nil).Decode(x.Bytes, 0)
			if err != nil {
				t.Fatalf("%s %#x: %v", a.Name, x.Addr, err)
			}
			l := factsLine{bytes: hex.EncodeToString(x.Bytes), arch: a.Name, text: in.Text, fct: factsText(a, in)}
			if !seen[l.bytes] {
				seen[l.bytes] = true
				fmt.Fprintln(&b, l)
			}
		}
	}
	return b.String()
}

// TestFacts decodes every line of the facts file and compares the text and
// the facts; with -update it rewrites the file.
func TestFacts(t *testing.T) {
	if *update {
		if err := os.WriteFile(factsFile, []byte(generateFacts(t)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lines := readFacts(t)
	perArch := map[string]int{}
	for _, l := range lines {
		perArch[l.arch]++
	}
	for _, a := range factsArches() {
		if perArch[a.Name] == 0 {
			t.Errorf("%s has no %s lines (run with -update)", factsFile, a.Name)
		}
	}
	for _, m := range factsMismatches(lines) {
		t.Error(m)
	}
	t.Logf("%d lines compared: %v", len(lines), perArch)
}

// TestFactsPinEveryEntry: a wrong facts-table entry fails TestFacts. Each
// entry in turn is corrupted; some line of the facts file must then
// mismatch (an entry no line depends on is not tested).
func TestFactsPinEveryEntry(t *testing.T) {
	lines := readFacts(t)
	if m := factsMismatches(lines); len(m) > 0 {
		t.Fatalf("the facts file does not match before any corruption (TestFacts says where): %s", m[0])
	}
	for _, a := range factsArches() {
		ops := asm.FactsMnemonics(a)
		if len(ops) < 10 {
			t.Fatalf("%s: %d facts-table entries", a.Name, len(ops))
		}
		for _, op := range ops {
			undo := asm.CorruptFact(a, op)
			m := factsMismatches(lines)
			undo()
			if len(m) == 0 {
				t.Errorf("%s: a wrong facts-table entry for %q goes unnoticed: no line of %s decodes with it (add one to testdata/facts_%s.S and run with -update)", a.Name, op, factsFile, a.Name)
			}
		}
		t.Logf("%s: %d entries, each caught when wrong", a.Name, len(ops))
	}
}

// TestFactsCoverTrampolines: every mnemonic the project's .S files use
// (trampolines, runtime, workloads, emu test program) has a facts-table
// entry, so that no instruction of theirs falls back to the table's
// default.
func TestFactsCoverTrampolines(t *testing.T) {
	for _, a := range factsArches() {
		t.Run(a.Name, func(t *testing.T) {
			missing := map[string][]string{}
			n := 0
			for _, in := range objdumpInputs(t, a) {
				if strings.HasPrefix(in.name, "asm/testdata/facts_") {
					continue // the facts file's own input has its unknown cases
				}
				opt := asm.Options{Arch: a, Defines: in.defines, HostFuncs: objdumpHostFuncs, Headers: in.headers}
				srcs := append([]asm.Source{{Name: in.name, Text: in.text}, {Name: "objdump_data.S", Text: []byte(objdumpData)}}, in.with...)
				im, err := asm.Build(opt, srcs...)
				if err != nil {
					t.Fatalf("%s: %v", in.label(), err)
				}
				for _, u := range im.Units {
					ins, err := asm.Listing(im, asm.ForImage(im), u.Start, u.End)
					if err != nil {
						t.Fatalf("%s: %v", in.label(), err)
					}
					for _, x := range ins {
						n++
						if op, ok := asm.FactsKey(a, x.Bytes); !ok {
							missing[op] = append(missing[op], in.name+": "+x.Text)
						}
					}
				}
			}
			if n == 0 {
				t.Fatal("no instruction decoded")
			}
			ops := make([]string, 0, len(missing))
			for op := range missing {
				ops = append(ops, op)
			}
			sort.Strings(ops)
			for _, op := range ops {
				t.Errorf("%s: no facts-table entry for %q, used by %d instructions, e.g. %s", a.Name, op, len(missing[op]), missing[op][0])
			}
			t.Logf("%s: %d instructions of the project's files, all with a facts-table entry", a.Name, n)
		})
	}
}
