package asm_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"trampemu/asm"
	"trampemu/ftrace"
	"trampemu/internal/golden"
	"trampemu/regs"
)

var update = flag.Bool("update", false, "rewrite golden files")

// checkGolden compares got with testdata/name, or rewrites the file with
// -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./asm -run %s -update to create it)", err, t.Name())
	}
	for _, d := range golden.Diff(string(want), got, 1) {
		t.Fatalf("%s differs from the listing at line %d (run with -update to accept):\n  want: %q\n  got:  %q", path, d.N, d.Want, d.Got)
	}
}

func TestListingGolden(t *testing.T) {
	cases := []struct {
		arch *regs.Arch
		// want are lines the listing must contain whatever the golden file
		// says: the host call and the data load name their symbols.
		want []string
	}{
		{regs.X86_64, []string{
			"endbr64",
			"call ffffffff81f00000 <ftrace_stub>",
			"(%rip),%rdx # ffffffff82000000 <listing_op>",
			"<listing_call>:",
			"push 0x80(%rsp)",
			"ret",
		}},
		{regs.S390X, []string{
			"brasl %r14,f00000 <ftrace_stub>",
			"lgrl %r4,1000000 <listing_op>",
			"<listing_call>:",
			"stg %r1,152(%r15)",
			"jgnop",
			"nop 0",
			"br %r1",
		}},
		{regs.ARM64, []string{
			"bti c",
			"bl ffff800080f00000 <ftrace_stub>",
			"adrp x2, ffff800082000000 <listing_op>",
			"<listing_call>:",
			"stp x29, x30, [sp, #-16]!",
			"ret x9",
		}},
		{regs.RISCV64, []string{
			"auipc ra,0xf00",
			"jalr -52(ra)",
			"<listing_call>:",
			"sd t0,0(sp)",
			"jr t0",
		}},
	}
	for _, c := range cases {
		t.Run(c.arch.Name, func(t *testing.T) {
			name := "testdata/listing_" + c.arch.Name + ".S"
			text, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			im, err := asm.Build(asm.Options{Arch: c.arch, HostFuncs: []string{ftrace.SymFtraceStub}},
				asm.Source{Name: name, Text: text})
			if err != nil {
				t.Fatal(err)
			}
			got := asm.FormatListing(im)
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("listing lacks %q", w)
				}
			}
			checkGolden(t, "listing_"+c.arch.Name+".golden", got)
		})
	}
}
