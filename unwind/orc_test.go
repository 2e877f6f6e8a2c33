package unwind_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"trampemu/asm"
	"trampemu/regs"
	"trampemu/unwind"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares got with testdata/name (rewritten with -update).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if string(want) != string(got) {
		t.Errorf("%s differs (run with -update to accept):\n--- got\n%s--- want\n%s", name, got, want)
	}
}

// Table builds text with the prelude and the kernel's objtool and returns
// its ORC table.
func Table(t *testing.T, name string, text []byte) (*asm.Image, *unwind.Table) {
	t.Helper()
	im, err := asm.Build(asm.Options{Arch: regs.X86_64}, asm.Source{Name: name, Text: text})
	if err != nil {
		t.Fatal(err)
	}
	tab, err := tableOf(im)
	if err != nil {
		t.Fatalf("%v; objtool: %v", err, im.ObjtoolWarnings)
	}
	return im, tab
}

func tableOf(im *asm.Image) (*unwind.Table, error) {
	return unwind.ImageORC(im.Objtool.Format, sectionOf(im, ".orc_unwind_ip"), sectionOf(im, ".orc_unwind"))
}

func sectionOf(im *asm.Image, name string) unwind.Section {
	s, _ := im.SectionNamed(name)
	return unwind.Section{Addr: s.Addr, Data: s.Data}
}

// TestHintGolden pins what one hint of each kind becomes in the ORC table
// of the objtool that runs (the two objtool versions number the hint types
// differently and neither warns when fed the other's numbering, so the
// table itself is what must not change): per code block, the entries
// from its start, as symbol+offset.
func TestHintGolden(t *testing.T) {
	text, err := os.ReadFile("testdata/hints.S")
	if err != nil {
		t.Fatal(err)
	}
	im, tab := Table(t, "hints.S", text)
	if len(im.ObjtoolWarnings) > 0 {
		t.Errorf("objtool warnings on the hint file: %v", im.ObjtoolWarnings)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# objtool hint format v%d.%d\n", im.Objtool.Format/10, im.Objtool.Format%10)
	for _, e := range tab.Entries {
		where := im.Describe(e.IP)
		if !strings.HasPrefix(where, "h_") {
			continue
		}
		e.IP = 0
		fmt.Fprintf(&b, "%-22s %s\n", where, strings.TrimPrefix(e.String(), "0x0: "))
	}
	golden(t, fmt.Sprintf("hints-v%d.orc", im.Objtool.Format), []byte(b.String()))
}
