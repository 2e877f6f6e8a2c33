// Package native times x86-64 trampolines on the host CPU: the pairing is
// linked with the workloads and a native runtime (trampolines/native) at
// low user-space addresses, mapped into a child process, patched as the
// kernel patches it, and called in a loop with tracing off, with a function
// tracer only, and with a graph user. The kernel functions are minimal
// stand-ins in assembly (see trampolines/native/x86_64.S), the same for
// every variant, so the differences between variants are the trampolines'
// own. The child process keeps a trampoline that faults from taking the
// caller down.
package native

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"time"

	"trampemu/asm"
	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
)

// Arch is x86-64 linked for the host: the emulated arch's registers and
// layouts with a memory map in the low 2 GiB of user space (kernel code may
// use sign-extended 32-bit absolute addresses, which reach only the top
// and the bottom 2 GiB of the address space).
var Arch = func() *regs.Arch {
	a := *regs.X86_64
	a.Memory = regs.MemoryMap{
		Text:  regs.Region{Name: "text", Base: 0x60000000, Size: 1 << 20, Perm: regs.PermRead | regs.PermWrite | regs.PermExec},
		Stubs: regs.Region{Name: "stubs", Base: 0x60f00000, Size: 64 << 10, Perm: regs.PermRead | regs.PermWrite | regs.PermExec},
		Data:  regs.Region{Name: "data", Base: 0x61000000, Size: 64 << 10, Perm: regs.PermRead | regs.PermWrite},
		Stack: regs.Region{Name: "stack", Base: 0x61100000, Size: 256 << 10, Perm: regs.PermRead | regs.PermWrite},
		Heap:  regs.Region{Name: "heap", Base: 0x61200000, Size: 1 << 20, Perm: regs.PermRead | regs.PermWrite},
	}
	return &a
}()

// Spec names a trampoline so that the child process can rebuild it: a
// registry variant, or a user's file with its role.
type Spec struct {
	Variant string           `json:"variant,omitempty"`
	File    string           `json:"file,omitempty"`
	Role    trampolines.Role `json:"role,omitempty"`
	// Flags are the file's kernel model and CONFIG choices.
	Flags harness.FileFlags `json:"flags,omitempty"`
}

// Job is one native measurement.
type Job struct {
	// Arch must be x86_64 ("" means it): only x86-64 code runs on the host.
	Arch        string
	Entry, Exit Spec
	// Calls per timed loop (0: 200,000); each mode takes the fastest of
	// Repeats loops (0: 5).
	Calls, Repeats int
}

// Result is the host CPU's time per call of the add workload, in
// nanoseconds: with its call site a NOP (Off), calling the entry
// trampoline with a function tracer (Function), and with a graph user too,
// so that the exit trampoline runs on return (Graph). FunctionCost and
// GraphCost are the differences to Off: what tracing adds per call.
type Result struct {
	Entry, Exit  string
	Off          float64 `json:"off_ns"`
	Function     float64 `json:"function_ns"`
	Graph        float64 `json:"graph_ns"`
	FunctionCost float64 `json:"function_cost_ns"`
	GraphCost    float64 `json:"graph_cost_ns"`
	Calls        int     `json:"calls"`
}

// Tramp resolves a spec to a trampoline of the native arch.
func (s Spec) Tramp(role trampolines.Role) (harness.Tramp, error) {
	if s.File != "" {
		if !s.Flags.Used() {
			return harness.FromFile(Arch, s.File, s.Role)
		}
		o, err := s.Flags.Options(Arch)
		if err != nil {
			return harness.Tramp{}, err
		}
		f, err := harness.LoadFile(Arch, s.File, o)
		if err != nil {
			return harness.Tramp{}, err
		}
		ts, err := f.Role(s.Role)
		if err != nil {
			return harness.Tramp{}, err
		}
		return ts[0], nil
	}
	v, err := harness.FindVariant(Arch, role, s.Variant)
	if err != nil {
		return harness.Tramp{}, err
	}
	return harness.FromVariant(v)
}

// Build links the job's pairing for the host.
func (j Job) Build() (harness.Setup, *asm.Image, error) {
	entry, err := j.Entry.Tramp(trampolines.Entry)
	if err != nil {
		return harness.Setup{}, nil, err
	}
	exit, err := j.Exit.Tramp(trampolines.Exit)
	if err != nil {
		return harness.Setup{}, nil, err
	}
	s := harness.Setup{Arch: Arch, Entry: entry, Exit: exit}
	rt, err := fs.ReadFile(trampolines.Files, "native/x86_64.S")
	if err != nil {
		return s, nil, err
	}
	im, err := s.BuildWith(asm.Source{Name: "trampolines/native/x86_64.S", Text: rt})
	return s, im, err
}

// childEnv carries the job to the child process.
const childEnv = "TRAMPEMU_NATIVE_JOB"

// Measure runs the job in a child process (this executable, which must
// call RunChildIfAsked first thing in main or TestMain) and returns its
// result; a trampoline that crashes the child is an error with the child's
// last words.
func Measure(j Job) (Result, error) {
	if j.Arch != "" && j.Arch != Arch.Name {
		return Result{}, fmt.Errorf("native timing runs x86-64 code on the host; %s is timed in the emulator only (trampemu check, BenchmarkTracedCall)", j.Arch)
	}
	if err := Supported(); err != nil {
		return Result{}, err
	}
	if os.Getenv(childEnv) != "" {
		// A child that did not run its job: the executable lacks the call
		// to RunChildIfAsked; starting another child would recurse.
		return Result{}, fmt.Errorf("native: this executable does not call native.RunChildIfAsked first thing in main (or TestMain)")
	}
	self, err := os.Executable()
	if err != nil {
		return Result{}, fmt.Errorf("native: finding this executable to run the child: %w", err)
	}
	job, err := json.Marshal(j)
	if err != nil {
		return Result{}, err
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), childEnv+"="+string(job))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	timer := time.AfterFunc(60*time.Second, func() {
		if cmd.Process != nil {
			cmd.Process.Kill()
		}
	})
	err = cmd.Run()
	timer.Stop()
	if err != nil {
		why := crashLines(errb.String())
		if !strings.HasPrefix(why, "native child:") {
			why = "the trampolines crashed the child process (a fault, or control lost); 'trampemu check' and 'trampemu trace' show where in the emulator: " + why
		}
		return Result{}, fmt.Errorf("native run of %s + %s failed (%v): %s", j.Entry.name(), j.Exit.name(), err, why)
	}
	var r Result
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		return Result{}, fmt.Errorf("native run of %s + %s printed no result (%v): %s", j.Entry.name(), j.Exit.name(), err, crashLines(out.String()+errb.String()))
	}
	return r, nil
}

func (s Spec) name() string {
	if s.File != "" {
		return s.File
	}
	return s.Variant
}

// crashLines picks what explains a failed child from its stderr: its own
// message, or the Go runtime's fatal error and signal lines (a trampoline
// that faults or returns into the weeds), not the goroutine dump.
func crashLines(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "native child:") || strings.HasPrefix(l, "fatal error:") ||
			strings.HasPrefix(l, "[signal ") || strings.HasPrefix(l, "SIG") || strings.HasPrefix(l, "unexpected fault") {
			keep = append(keep, l)
		}
	}
	if len(keep) == 0 {
		keep = strings.Split(strings.TrimSpace(s), "\n")
		keep = keep[:min(3, len(keep))]
	}
	return strings.Join(keep, " | ")
}

// RunChildIfAsked runs the native job and exits when this process is a
// child started by Measure; otherwise it returns at once.
func RunChildIfAsked() {
	spec := os.Getenv(childEnv)
	if spec == "" {
		return
	}
	var j Job
	if err := json.Unmarshal([]byte(spec), &j); err != nil {
		fmt.Fprintf(os.Stderr, "native child: bad job %q: %v\n", spec, err)
		os.Exit(3)
	}
	r, err := runHere(j)
	if err != nil {
		fmt.Fprintf(os.Stderr, "native child: %v\n", err)
		os.Exit(3)
	}
	if err := json.NewEncoder(os.Stdout).Encode(r); err != nil {
		os.Exit(3)
	}
	os.Exit(0)
}
