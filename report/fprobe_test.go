package report

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"trampemu/ftrace"
	"trampemu/harness"

	"trampemu/regs"
	"trampemu/scenarios"
)

// TestFprobeSection runs a small comparison on every arch and checks that
// the section answers per arch from the numbers, and that each arch gets
// its chart in both formats.
func TestFprobeSection(t *testing.T) {
	c, err := scenarios.CompareFprobe(scenarios.CompareConfig{Probes: []int{1, 8}, MaxUsers: 2, Calls: 1})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := FprobeSection(&b, c); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "## "+FprobeSectionTitle) {
		t.Fatalf("no section title:\n%s", out)
	}
	for _, a := range regs.Arches {
		ans := FprobeAnswer(c, a.Name)
		rh, ok := c.Cell(a.Name, "rethook", "one", 1, true, 0)
		if !slices.Contains(harness.FprobeDesignsOf(a), ftrace.DesignRethook) {
			// no arch_rethook_trampoline in the registry (riscv64 yet):
			// nothing to compare, no answer.
			if ok || ans != "" {
				t.Errorf("%s: rethook cell %v, answer %q without a rethook trampoline", a.Name, ok, ans)
			}
			continue
		}
		if ans == "" || !strings.Contains(out, ans) || !strings.Contains(ans, num(rh.ExitCost.Instructions)+" (arch_rethook_trampoline)") {
			t.Errorf("%s: answer %q", a.Name, ans)
		}
	}
	dir := t.TempDir()
	cs, err := FprobeCharts(dir, c)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2*len(regs.Arches) {
		t.Fatalf("%d charts, want two per arch (designs, dispatch)", len(cs))
	}
	for _, a := range regs.Arches {
		d := DispatchAnswer(c, a.Name)
		if d == "" || !strings.Contains(out, d) || !strings.Contains(d, "per-ops-draft 1 ops + 0 lookups") {
			t.Errorf("%s: dispatch answer %q", a.Name, d)
		}
	}
	for _, ch := range cs {
		for _, f := range ChartFormats {
			if st, err := os.Stat(filepath.Join(dir, ch.Name+"."+f)); err != nil || st.Size() == 0 {
				t.Errorf("%s.%s: %v", ch.Name, f, err)
			}
		}
	}
}
