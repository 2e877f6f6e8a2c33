package native_test

import (
	"os"
	"strings"
	"testing"

	"trampemu/native"
	"trampemu/trampolines"
)

func TestMain(m *testing.M) {
	native.RunChildIfAsked()
	os.Exit(m.Run())
}

// Every x86-64 registry pairing runs natively: add(1, 2) still returns 3, the
// exit trampoline runs once per call and the shadow stack balances (the
// child checks all three), and tracing costs time. s390x is refused with
// the reason.
func TestMeasureKernelPairings(t *testing.T) {
	for _, arch := range []string{"x86_64", "s390x"} {
		t.Run(arch, func(t *testing.T) {
			if arch == "s390x" {
				_, err := native.Measure(native.Job{Arch: arch, Entry: native.Spec{Variant: "ftrace_caller"}, Exit: native.Spec{Variant: "rth-merged"}})
				if err == nil || !strings.Contains(err.Error(), "emulator only") {
					t.Fatalf("s390x: got %v, want a refusal naming the emulator", err)
				}
				return
			}
			jobs := native.RegistryJobs(20000, 1)
			if len(jobs) < 8 {
				t.Fatalf("%d registry pairings, want every x86-64 variant's", len(jobs))
			}
			for _, j := range jobs {
				r, err := native.Measure(j)
				if err != nil {
					t.Errorf("%s + %s: %v", j.Entry.Variant, j.Exit.Variant, err)
					continue
				}
				if r.Off <= 0 || r.Function <= 0 || r.Graph <= 0 {
					t.Errorf("%s + %s: times %+v, want all > 0", j.Entry.Variant, j.Exit.Variant, r)
				}
			}
		})
	}
}

// A broken trampoline is an error naming what went wrong, never a crash of
// the caller: a wrong result is caught by the child's check, a trampoline
// that jumps into the weeds kills only the child.
func TestMeasureBrokenFiles(t *testing.T) {
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
			j := native.Job{Entry: native.Spec{Variant: "ftrace_caller"}, Exit: native.Spec{Variant: "rth-fixed"}, Calls: 1000, Repeats: 1}
			spec := native.Spec{File: broken + c.file, Role: c.role}
			if c.role == trampolines.Entry {
				j.Entry = spec
			} else {
				j.Exit = spec
			}
			_, err := native.Measure(j)
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
// tracing off, a function tracer, and a graph user (b.N calls per loop, in
// a child process).
func BenchmarkNative(b *testing.B) {
	for _, j := range native.RegistryJobs(0, 1) {
		b.Run(j.Arch+"/"+j.Entry.Variant+"+"+j.Exit.Variant, func(b *testing.B) {
			j.Calls = max(b.N, 1000)
			r, err := native.Measure(j)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(r.Off, "ns/call-off")
			b.ReportMetric(r.Function, "ns/call-function")
			b.ReportMetric(r.Graph, "ns/call-graph")
		})
	}
}
