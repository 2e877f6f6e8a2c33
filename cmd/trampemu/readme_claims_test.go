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
)

// TestReadmeExactCosts: the README's exact costs are what check measures
// now: the "Exact cost per traced call" table (instructions, stores and
// bytes stored per traced call of add, default scenario, of each x86-64
// return_to_handler) and the "exact difference" column of the headline
// tables (B minus rth-merged, or the X minus Y a row names).
func TestReadmeExactCosts(t *testing.T) {
	text, err := os.ReadFile(repoRoot + "README.md")
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
	diffs := diff.FindAllStringSubmatch(string(text), -1)
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
