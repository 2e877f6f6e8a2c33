package main

import (
	"bytes"
	"strings"
	"testing"

	"trampemu/native"
	"trampemu/regs"
)

// TestNativeSectionSaysWhyX86Only: the report's native section says, run
// or not, that native timing covers only the host CPU's arch and names
// every other arch of regs.Arches as emulated only.
func TestNativeSectionSaysWhyX86Only(t *testing.T) {
	var md bytes.Buffer
	if err := writeNativeSection(&md, fullReport{NativeNote: "--native 0"}); err != nil {
		t.Fatal(err)
	}
	s := md.String()
	if !strings.Contains(s, "Native timing is "+native.Arch.Name+" only because the host CPU is "+native.Arch.Name) {
		t.Errorf("the native section does not say why it is %s only:\n%s", native.Arch.Name, s)
	}
	for _, a := range regs.Arches {
		if !native.Covers(a) && !strings.Contains(s, a.Name) {
			t.Errorf("the native section does not name %s as emulated only:\n%s", a.Name, s)
		}
	}
}
