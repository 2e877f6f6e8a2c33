package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"trampemu/check"
)

// TestPatchDelta: costs of the add workload subtracted, findings matched
// by kind and slot over every workload, rows per trampoline, both arches.
func TestPatchDelta(t *testing.T) {
	written := map[float64][]string{3: {"RBP", "RAX", "RDX"}, 9: {"RCX", "RBP", "RAX", "RDX", "RSP"}, 4: {"gprs[2]"}}
	row := func(arch, name, wl string, insns, stores float64, fs ...check.Finding) check.Result {
		return check.Result{Arch: arch, Variant: name, Role: "exit", Workload: wl, Findings: fs,
			Metrics: check.Metrics{Instructions: insns, Stores: stores, StoreBytes: 8 * stores, Written: written[stores]}}
	}
	unused := func(slot string) check.Finding {
		return check.Finding{Kind: check.UnusedStore, Severity: check.Info, Slot: slot}
	}
	wrong := check.Finding{Kind: check.WrongValue, Severity: check.Error, Slot: "RSP"}
	before := []check.Result{
		row("x86_64", "f.S:return_to_handler", "add", 13, 3, wrong),
		row("x86_64", "f.S:return_to_handler", "fib", 13, 3, wrong),
		row("s390x", "m.S:return_to_handler", "add", 12, 4),
	}
	after := []check.Result{
		row("x86_64", "f.S:return_to_handler", "add", 20, 9, unused("RCX"), unused("RSI")),
		row("x86_64", "f.S:return_to_handler", "fib", 20, 9, unused("RCX")),
		row("s390x", "m.S:return_to_handler", "add", 12, 4),
	}
	ds := PatchDelta(before, after)
	if len(ds) != 2 {
		t.Fatalf("%d rows, want 2: %+v", len(ds), ds)
	}
	x := ds[0]
	if x.Instructions != 7 || x.Stores != 6 || x.StoreBytes != 48 {
		t.Errorf("x86_64 costs %+v, want +7 +6 +48", x)
	}
	if !slices.Equal(x.Added, []string{"unused-store RCX", "unused-store RSI"}) || !slices.Equal(x.FindingsAdded, []check.Kind{check.UnusedStore}) ||
		!slices.Equal(x.FindingsRemoved, []check.Kind{check.WrongValue}) {
		t.Errorf("x86_64 findings %+v", x)
	}
	if !slices.Equal(x.SlotsAdded, []string{"RCX", "RSP"}) || len(x.SlotsRemoved) != 0 {
		t.Errorf("x86_64 slots added %v, removed %v; want RCX RSP, none", x.SlotsAdded, x.SlotsRemoved)
	}
	if back := PatchDelta(after, before)[0]; !slices.Equal(back.SlotsRemoved, []string{"RCX", "RSP"}) || len(back.SlotsAdded) != 0 {
		t.Errorf("reverted: slots added %v, removed %v; want none, RCX RSP", back.SlotsAdded, back.SlotsRemoved)
	}
	s := ds[1]
	if s.Instructions != 0 || len(s.Added)+len(s.Removed) != 0 || s.FindingsAdded == nil || s.SlotsAdded == nil || len(s.SlotsAdded)+len(s.SlotsRemoved) != 0 {
		t.Errorf("s390x: %+v, want no change (and empty, not null, kind lists)", s)
	}
	var b bytes.Buffer
	if err := DeltaTable(&b, ds); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "f.S:return_to_handler  exit  +7") || !strings.Contains(b.String(), "wrong-value RSP") || !strings.Contains(b.String(), "SLOTS ADDED") || !strings.Contains(b.String(), "  RCX RSP  ") {
		t.Errorf("table:\n%s", b.String())
	}
}
