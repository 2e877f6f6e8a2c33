package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"trampemu/scenarios"
)

// TestReadmeExactCosts: the README's exact costs are what check measures
// now: the "Exact cost per traced call" table (instructions, stores and
// bytes stored per traced call of add, default scenario, of each x86-64
// return_to_handler) and the "exact difference" column of the headline
// table the README links to, in docs/stability.md (B minus rth-merged, or
// the X minus Y a row names).
func TestReadmeExactCosts(t *testing.T) {
	text, err := os.ReadFile(repoRoot + "README.md")
	if err != nil {
		t.Fatal(err)
	}
	headline, err := os.ReadFile(repoRoot + "docs/stability.md")
	if err != nil {
		t.Fatal(err)
	}
	type cost struct{ insns, stores, bytes int }
	measured := map[string]cost{}
	measure := func(variant string) cost {
		if c, ok := measured[variant]; ok {
			return c
		}
		var out, errb bytes.Buffer
		if code := run([]string{"check", "--arch", "x86_64", "--variant", variant, "--workload", "add", "--json"}, &out, &errb); code != 0 {
			t.Fatalf("check %s: exit %d: %s", variant, code, errb.String())
		}
		var got struct {
			Results []struct {
				Metrics struct {
					Instructions, Stores float64
					StoreBytes           float64 `json:"store_bytes"`
				}
			}
		}
		if err := json.Unmarshal(out.Bytes(), &got); err != nil || len(got.Results) != 1 {
			t.Fatalf("check %s --json: %v, %d results", variant, err, len(got.Results))
		}
		m := got.Results[0].Metrics
		c := cost{int(m.Instructions), int(m.Stores), int(m.StoreBytes)}
		measured[variant] = c
		return c
	}
	num := func(s string) int {
		n, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(s), "+"))
		if err != nil {
			t.Fatalf("%q is not a number", s)
		}
		return n
	}
	row := regexp.MustCompile(`(?m)^\| (rth-[a-z0-9.-]+) \([^|]*\) \| (\d+) \| (\d+) \| (\d+) \|$`)
	rows := row.FindAllStringSubmatch(string(text), -1)
	if len(rows) < 4 {
		t.Fatalf("%d rows of the exact-cost table found, want 4 at least", len(rows))
	}
	for _, r := range rows {
		want := cost{num(r[2]), num(r[3]), num(r[4])}
		if got := measure(r[1]); got != want {
			t.Errorf("README: %s costs %+v per traced call; check measures %+v", r[1], want, got)
		}
	}
	diff := regexp.MustCompile(`(?m)^\| (.*) \| ([+-]\d+) instructions?, ([+-]\d+) stores?, ([+-]\d+) bytes stored \|$`)
	named := regexp.MustCompile(`\((rth-[a-z0-9.-]+) minus (rth-[a-z0-9.-]+)\)`)
	diffs := diff.FindAllStringSubmatch(string(headline), -1)
	if len(diffs) < 6 {
		t.Fatalf("%d rows with an exact difference found, want 6 at least", len(diffs))
	}
	for _, d := range diffs {
		b, a := strings.Fields(d[1])[0], "rth-merged"
		if m := named.FindStringSubmatch(d[1]); m != nil {
			b, a = m[1], m[2]
		}
		cb, ca := measure(b), measure(a)
		want := fmt.Sprintf("%+d %+d %+d", num(d[2]), num(d[3]), num(d[4]))
		if got := fmt.Sprintf("%+d %+d %+d", cb.insns-ca.insns, cb.stores-ca.stores, cb.bytes-ca.bytes); got != want {
			t.Errorf("README: %s minus %s is %s (instructions, stores, bytes stored); check measures %s", b, a, want, got)
		}
	}
}

// TestReadmeFprobeClaims: the README's fprobe paragraph quotes `trampemu
// fprobe --arch x86_64` (one entry+exit probe of each design: trampoline
// instructions, hash lookups, shadow-stack words, ops visits, pool
// operations, atomics, memory; and 16 graph users under each dispatch
// mode: ops visited, hash lookups, shadow-stack words), each number what
// the command measures now.
func TestReadmeFprobeClaims(t *testing.T) {
	text, err := os.ReadFile(repoRoot + "README.md")
	if err != nil {
		t.Fatal(err)
	}
	prose := strings.Join(strings.Fields(string(text)), " ")
	var out, errb bytes.Buffer
	if code := run([]string{"fprobe", "--arch", "x86_64", "--probes", "1", "--json"}, &out, &errb); code != 0 {
		t.Fatalf("fprobe: exit %d: %s", code, errb.String())
	}
	var got scenarios.Comparison
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	cell := map[string]string{}
	for _, design := range []string{"fgraph", "rethook"} {
		d, ok := got.Cell("x86_64", design, "one", 1, true, 0)
		if !ok {
			t.Fatalf("fprobe --json has no one-probe entry+exit cell of %s", design)
		}
		mem := fmt.Sprintf("%.1f KiB", float64(d.MemoryBytes)/1024)
		if d.MemoryBytes >= 1<<20 {
			mem = fmt.Sprintf("%.1f MiB", float64(d.MemoryBytes)/(1<<20))
		}
		insns, c := d.Entry.Instructions+d.ExitCost.Instructions, d.CSide
		if design == "fgraph" {
			if c.Atomics != 0 {
				t.Errorf("the README says fgraph has no atomics; fprobe counts %g", c.Atomics)
			}
			cell["fgraph"] = fmt.Sprintf("fgraph runs %g trampoline instructions, %g hash lookups and %g shadow-stack words with no atomics;", insns, c.HashLookups, c.ShadowWords)
			cell["fgraph memory"] = fmt.Sprintf("(%s for %d tasks)", mem, got.Tasks)
			continue
		}
		cell["rethook"] = fmt.Sprintf("rethook %g instructions, %g ops visit and %g pool operations (%g atomic RMWs)", insns, c.OpsVisited, c.PoolOps, c.Atomics)
		cell["rethook memory"] = fmt.Sprintf("rethook reserves %s per probe for %d CPUs", mem, got.CPUs)
	}
	modes := map[string]string{"merged": "merged fgraph visits %g `ftrace_ops` with %g hash lookups and %g shadow-stack words", "per-ops-draft": "the per-ops draft %g ops, %g lookups, %g words", "loop": "the no-WITH_ARGS loop %g ops, %g lookups, %g words"}
	for _, m := range got.FgraphModes {
		if f, ok := modes[m.Mode]; ok && m.Users == 16 && m.Arch == "x86_64" {
			cell["16 users "+m.Mode] = fmt.Sprintf(f, m.OpsVisited, m.HashLookups, m.ShadowWords)
		}
	}
	if len(cell) != 7 {
		t.Fatalf("fprobe --json gave %d of the 7 quoted cells: %v", len(cell), cell)
	}
	for what, want := range cell {
		if !strings.Contains(prose, want) {
			t.Errorf("README: %s: fprobe measures %q, which the README does not say", what, want)
		}
	}
}
