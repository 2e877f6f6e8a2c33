package native_test

import (
	"bytes"
	"math"
	"os"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"

	"trampemu/native"
	"trampemu/trampolines"
)

func TestMain(m *testing.M) {
	native.RunChildIfAsked()
	os.Exit(m.Run())
}

// quick is a short run: a few interleaved rounds.
func quick(jobs []native.Job, compare ...[2]string) native.Config {
	return native.Config{Jobs: jobs, Compare: compare, Calls: 500, Warmup: 100, Rounds: 5, MinGenerations: 6, MaxGenerations: 6, CPU: -1}
}

// Every x86-64 registry pairing runs natively in one interleaved run:
// add(1, 2) still returns 3, the exit trampoline runs once per call and
// the shadow stack balances (the child checks all three after every
// sample), tracing costs time, and every row has its interval. s390x and
// arm64 are refused with the reason.
func TestRunKernelPairings(t *testing.T) {
	for _, arch := range []string{"x86_64", "s390x", "arm64"} {
		t.Run(arch, func(t *testing.T) {
			if arch != "x86_64" {
				_, err := native.Run(quick([]native.Job{{Arch: arch, Entry: native.Spec{Variant: "ftrace_caller"}, Exit: native.Spec{Variant: "rth-merged"}}}))
				if err == nil || !strings.Contains(err.Error(), "emulator only") {
					t.Fatalf("%s: got %v, want a refusal naming the emulator", arch, err)
				}
				return
			}
			jobs := native.RegistryJobs()
			if len(jobs) < 10 {
				t.Fatalf("%d registry pairings, want every x86-64 variant's", len(jobs))
			}
			st, err := native.Run(quick(jobs))
			if err != nil {
				t.Fatal(err)
			}
			if len(st.Rows) != 3*len(jobs) || st.Info.Generations != 6 {
				t.Fatalf("%d rows in %d generations, want %d in 6", len(st.Rows), st.Info.Generations, 3*len(jobs))
			}
			for i := 0; i < len(st.Rows); i += 3 {
				off, fn, graph := st.Rows[i], st.Rows[i+1], st.Rows[i+2]
				for _, r := range []native.Row{off, fn, graph} {
					if r.Samples != 30 || r.Processes != 6 || !(r.CI95[0] <= r.MedianNs && r.MedianNs <= r.CI95[1]) || r.CI95[0] <= 0 {
						t.Errorf("%s+%s %s: median %v, interval %v, %d samples", r.Entry, r.Exit, r.Mode, r.MedianNs, r.CI95, r.Samples)
					}
				}
				if !(off.MedianNs < fn.MedianNs && off.MedianNs < graph.MedianNs) {
					t.Errorf("%s+%s: off %.2f, function %.2f, graph %.2f ns: tracing must cost time", off.Entry, off.Exit, off.MedianNs, fn.MedianNs, graph.MedianNs)
				}
				if want := off.Exit == "rth-merged-jmp" || off.Exit == "rth-full-fregs-jmp"; off.Experiment != want {
					t.Errorf("%s: experiment = %v", off.Exit, off.Experiment)
				}
			}
		})
	}
}

// The A/A control and a comparison: the control pairing runs in a second
// child and must show no significant difference in any mode; the
// deliberately mispredicted return of rth-merged costs time against the
// same code ending in jmp *%rdi (the experiment), and tracing off runs the
// same code at the same addresses in both. The bench lines carry one
// value per block (here a generation each).
func TestCompare(t *testing.T) {
	base, jmp := native.BasePairing, "ftrace_caller+rth-merged-jmp"
	var jobs []native.Job
	for _, n := range []string{base, jmp} {
		j, err := native.ParsePairing(n)
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, j)
	}
	cfg := quick(jobs, [2]string{jmp, base})
	cfg.Rounds = 10
	st, err := native.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Compare) != 6 {
		t.Fatalf("%d comparisons, want the A/A control and the pair in 3 modes: %+v", len(st.Compare), st.Compare)
	}
	for _, m := range native.Modes {
		c, ok := st.Comparison(jmp, jmp, m)
		if !ok {
			t.Fatalf("no A/A control of %s in mode %s", jmp, m)
		}
		if !(c.CI95[0] <= c.DiffNs && c.DiffNs <= c.CI95[1]) || c.P <= 0 || c.P > 1 {
			t.Errorf("A/A %s: %+v", m, c)
		}
	}
	g, _ := st.Comparison(jmp, base, native.Graph)
	if !g.Significant || g.CI95[0] <= 0 || g.Test != native.SignedRankTest || g.N != 6 || g.MinP != 1.0/32 {
		t.Errorf("the v6.5+ return sequence shows no cost against jmp *%%rdi: %+v", g)
	}
	// 6 generations over 4 layouts: 2, 2, 1, 1; the graph difference at
	// every layout is the return sequence's cost too.
	if ls := st.Info.LayoutShifts; len(ls) != 4 || ls[0].Generations != 2 || ls[3].Generations != 1 || st.Info.FunctionAlign != 16 {
		t.Errorf("layout shifts %+v", ls)
	}
	if !(g.ShiftRange[0] > 0 && g.ShiftRange[0] <= g.DiffNs+1 && g.ShiftRange[1] >= g.DiffNs-1) {
		t.Errorf("per-layout range %v of %+.2f", g.ShiftRange, g.DiffNs)
	}
	var b bytes.Buffer
	if err := native.WriteBench(&b, st); err != nil {
		t.Fatal(err)
	}
	// benchstat's reader (golang.org/x/perf/benchfmt) takes every line.
	rd := benchfmt.NewReader(strings.NewReader(b.String()), "bench.txt")
	results := 0
	var baseGraph []float64
	for rd.Scan() {
		switch r := rd.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Errorf("benchfmt: %v", r)
		case *benchfmt.Result:
			v, ok := r.Value("sec/op")
			if !ok || v <= 0 || r.Iters != 500 || !strings.HasPrefix(string(r.Name), "Native/entry=ftrace_caller/exit=rth-merged") {
				t.Errorf("benchfmt result %s: %d iterations, %v s/op", r.Name, r.Iters, v)
			}
			if string(r.Name) == "Native/entry=ftrace_caller/exit=rth-merged/mode=graph" {
				baseGraph = append(baseGraph, v*1e9)
			}
			results++
		}
	}
	// benchstat's summary of those lines (benchmath's median interval)
	// is the run's own row, to the bench lines' three decimals.
	row, _ := st.Row(base, native.Graph)
	sum := benchmath.AssumeNothing.Summary(benchmath.NewSample(baseGraph, &benchmath.DefaultThresholds), 0.95)
	if math.Abs(sum.Center-row.MedianNs) > 0.001 || math.Abs(sum.Lo-row.CI95[0]) > 0.001 || math.Abs(sum.Hi-row.CI95[1]) > 0.001 {
		t.Errorf("benchstat's view %.3f [%.3f, %.3f], the run's %.3f %v", sum.Center, sum.Lo, sum.Hi, row.MedianNs, row.CI95)
	}
	if results != 2*3*6 {
		t.Errorf("benchfmt read %d results, want %d", results, 2*3*6)
	}
	if n := strings.Count(b.String(), "BenchmarkNative/entry=ftrace_caller/exit=rth-merged/mode=graph \t500\t"); n != 6 {
		t.Errorf("%d bench lines of the base pairing in graph mode, want 6 (6 generations, one block each):\n%s", n, b.String()[:min(b.Len(), 400)])
	}
}

// A comparison naming a pairing that is not timed, or a pairing listed
// twice, is an error.
func TestRunBadConfig(t *testing.T) {
	j, _ := native.ParsePairing("rth-merged")
	for _, cfg := range []native.Config{
		quick([]native.Job{j}, [2]string{"ftrace_caller+rth-merged", "ftrace_caller+rth-fixed"}),
		quick([]native.Job{j, j}),
		quick(nil),
	} {
		if _, err := native.Run(cfg); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
	}
	if _, err := native.ParsePairing("ftrace_caller+nope"); err == nil || !strings.Contains(err.Error(), "valid are") {
		t.Errorf("bad pairing: %v", err)
	}
}

// A broken trampoline is an error naming what went wrong, never a crash of
// the caller: a wrong result is caught by the child's check, a trampoline
// that jumps into the weeds kills only the child.
func TestRunBrokenFiles(t *testing.T) {
	broken := "../tests/testdata/broken/"
	for _, c := range []struct {
		file string
		role trampolines.Role
		want string
	}{
		{"x86_rth_ok.S", trampolines.Exit, ""},
		{"x86_entry_ok.S", trampolines.Entry, ""},
		{"x86_rth_loses_rax.S", trampolines.Exit, "add(1, 2) returned"},
		{"x86_rth_plain_ret.S", trampolines.Exit, "native run of"},
		{"x86_rth_unbalanced.S", trampolines.Exit, "native run of"},
		{"x86_entry_skips_callback.S", trampolines.Entry, "return_to_handler ran 0 times"},
	} {
		t.Run(c.file, func(t *testing.T) {
			j := native.Job{Entry: native.Spec{Variant: "ftrace_caller"}, Exit: native.Spec{Variant: "rth-fixed"}}
			spec := native.Spec{File: broken + c.file, Role: c.role}
			if c.role == trampolines.Entry {
				j.Entry = spec
			} else {
				j.Exit = spec
			}
			cfg := quick([]native.Job{j})
			cfg.MinGenerations, cfg.MaxGenerations = 1, 1
			_, err := native.Run(cfg)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("a correct file fails: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("got %v, want an error with %q", err, c.want)
			}
		})
	}
}

// BenchmarkNative/x86_64/<entry>+<exit>: host CPU ns per call of add with
// tracing off, a function tracer, and a graph user (medians of b.N
// rounds of 2,000 calls in each of 6 child processes).
func BenchmarkNative(b *testing.B) {
	for _, j := range native.RegistryJobs() {
		b.Run(j.Arch+"/"+j.Name(), func(b *testing.B) {
			st, err := native.Run(native.Config{Jobs: []native.Job{j}, Rounds: b.N, MinGenerations: 6, MaxGenerations: 6, CPU: -1})
			if err != nil {
				b.Fatal(err)
			}
			for _, r := range st.Rows {
				b.ReportMetric(r.MedianNs, "ns/call-"+string(r.Mode))
			}
		})
	}
}

// Two A/A controls each get their own second process of their own
// pairing: rth-merged-jmp is 6 ns faster than rth-merged in graph mode, so
// a control that compared with the other pairing's process would show it.
func TestTwoControls(t *testing.T) {
	var jobs []native.Job
	for _, n := range []string{native.BasePairing, "ftrace_caller+rth-merged-jmp"} {
		j, err := native.ParsePairing(n)
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, j)
	}
	cfg := quick(jobs, [2]string{jobs[0].Name(), jobs[0].Name()}, [2]string{jobs[1].Name(), jobs[1].Name()})
	cfg.Rounds = 20
	st, err := native.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Compare) != 6 {
		t.Fatalf("%d comparisons, want 2 controls in 3 modes", len(st.Compare))
	}
	for _, c := range st.Compare {
		if c.A != c.B || c.DiffNs < -1 || c.DiffNs > 1 {
			t.Errorf("control %s/%s %s: %+.2f ns", c.A, c.B, c.Mode, c.DiffNs)
		}
	}
}

// Every registry pairing links at every layout shift: the entry and the
// exit start at their offsets within a 64-byte line, the workloads and the
// runtime on a line start, and every function is aligned to 16 bytes as
// the kernel aligns it; a run visits every layout and reports each.
func TestLayoutShifts(t *testing.T) {
	for _, j := range native.RegistryJobs() {
		for k := range native.Shifts {
			l := native.LayoutOf(k, native.Shifts)
			_, im, err := j.BuildAt(l)
			if err != nil {
				t.Fatalf("%s at %+v: %v", j.Name(), l, err)
			}
			for _, u := range im.Units {
				want := uint64(0)
				switch u.Name {
				case "entry":
					want = uint64(l.Entry)
				case "exit":
					want = uint64(l.Exit)
				}
				if u.Start%64 != want {
					t.Errorf("%s at %+v: unit %s at %#x", j.Name(), l, u.Name, u.Start)
				}
			}
			for _, name := range []string{"add", "ftrace_stub", "native_loop"} {
				if a, ok := im.Symbol(name); !ok || a%native.FunctionAlign != 0 {
					t.Errorf("%s at %+v: %s at %#x, not %d-byte aligned", j.Name(), l, name, a, native.FunctionAlign)
				}
			}
		}
	}
	seen := map[native.Layout]bool{}
	for g := range 8 {
		seen[native.LayoutOf(g, native.Shifts)] = true
	}
	if len(seen) != len(native.Shifts) {
		t.Errorf("8 generations visit %d layouts, want %d", len(seen), len(native.Shifts))
	}
}

// The rethook return path runs natively: arch_rethook_trampoline with the
// runtime's arch_rethook_trampoline_callback stand-in returns add's result
// to its caller once per call with the shadow array balanced (the child's
// checks), and its per-return cost and return_to_handler's under the same
// entry have intervals around their medians.
func TestRethookReturnCost(t *testing.T) {
	var jobs []native.Job
	for _, n := range []string{native.RethookBase, native.RethookPairing} {
		j, err := native.ParsePairing(n)
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, j)
	}
	st, err := native.Run(quick(jobs, [2]string{native.RethookBase, native.RethookPairing}))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{native.RethookBase, native.RethookPairing} {
		rc, ok := st.ReturnCost(n)
		if !ok || rc.Blocks != 6 || !(rc.CI95[0] <= rc.Ns && rc.Ns <= rc.CI95[1]) || rc.Ns <= 0 {
			t.Errorf("%s: return cost %+v", n, rc)
		}
	}
	if _, ok := st.Comparison(native.RethookBase, native.RethookPairing, native.Graph); !ok {
		t.Error("no graph-mode comparison of the two return paths")
	}
	if _, ok := st.ReturnCost("ftrace_caller+nothing"); ok {
		t.Error("a return cost for a pairing never timed")
	}
}
