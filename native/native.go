package native

import (
	"fmt"
	"strings"

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

// Covers reports whether a is the arch native runs on the host: Arch is
// a copy of regs.X86_64 with its own memory map, so the arches are matched
// by name, not by pointer.
func Covers(a *regs.Arch) bool { return a != nil && a.Name == Arch.Name }

// Spec names a trampoline so that the child process can rebuild it: a
// registry variant, or a user's file with its role.
type Spec struct {
	Variant string           `json:"variant,omitempty"`
	File    string           `json:"file,omitempty"`
	Role    trampolines.Role `json:"role,omitempty"`
	// Flags are the file's kernel model and CONFIG choices.
	Flags harness.FileFlags `json:"flags,omitempty"`
}

// Job is one pairing to time.
type Job struct {
	// Arch must be x86_64 ("" means it): only x86-64 code runs on the host.
	Arch        string
	Entry, Exit Spec
}

// Mode is how tracing is set up while add(1, 2) is called in a loop.
type Mode string

// Modes, in the order each round samples them.
const (
	// Off: the call site is the NOP the compiler left (ftrace off).
	Off Mode = "off"
	// Function: the call site calls the entry trampoline, which calls the
	// ops callback (a function tracer).
	Function Mode = "function"
	// Graph: a graph user too, so the return address is swapped and the
	// exit trampoline runs on every return.
	Graph Mode = "graph"
)

// Modes lists the modes in sampling order.
var Modes = []Mode{Off, Function, Graph}

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
	if err != nil && role == trampolines.Exit {
		// The exit may be the rethook return path (arch_rethook_trampoline).
		if rv, rerr := harness.FindVariant(Arch, trampolines.Rethook, s.Variant); rerr == nil {
			v, err = rv, nil
		}
	}
	if err != nil {
		return harness.Tramp{}, err
	}
	return harness.FromVariant(v)
}

// FunctionAlign is x86-64's CONFIG_FUNCTION_ALIGNMENT, the alignment the
// kernel gives every function: 16 bytes (arch/x86/Kconfig, v6.2+: select
// FUNCTION_ALIGNMENT_16B if X86_64 || X86_ALIGNMENT_16; arch/Kconfig:
// FUNCTION_ALIGNMENT default 16 if FUNCTION_ALIGNMENT_16B; the top
// Makefile: -falign-functions=$(CONFIG_FUNCTION_ALIGNMENT);
// arch/x86/include/asm/linkage.h: __ALIGN .balign
// CONFIG_FUNCTION_ALIGNMENT, 0x90, and .p2align 4, 0x90 under
// CONFIG_X86_64 before v6.2).
const FunctionAlign = 16

// Shifts are the offsets within a 64-byte cache line at which the entry
// and the exit trampolines are placed, one layout per generation in turn
// (LayoutOf): a difference between two exits that is the layout's (how
// many 32-byte fetch blocks or cache lines the code spans) changes with
// the shift, the code's does not.
var Shifts = []int{0, 16, 32, 48}

// Layout is one placement of a pairing: the entry's and the exit's offset
// within their cache lines.
type Layout struct {
	Entry int `json:"entry_offset"`
	Exit  int `json:"exit_offset"`
}

// LayoutOf is the layout of generation g given shifts: the exit at
// shifts[k] and the entry at shifts[k+1] (cyclically), k = g mod
// len(shifts), so every len(shifts) consecutive generations visit every
// offset of either trampoline once.
func LayoutOf(g int, shifts []int) Layout {
	if len(shifts) == 0 {
		return Layout{}
	}
	k := g % len(shifts)
	return Layout{Entry: shifts[(k+1)%len(shifts)], Exit: shifts[k]}
}

// Build links the job's pairing for the host, laid out as the emulator
// lays it out (see BuildAt).
func (j Job) Build() (harness.Setup, *asm.Image, error) { return j.build(nil) }

// BuildAt links the job's pairing for the host with the kernel's function
// alignment, every unit on a 64-byte line but the entry and the exit,
// which start l's offsets into theirs.
func (j Job) BuildAt(l Layout) (harness.Setup, *asm.Image, error) {
	return j.build(&harness.Layout{FunctionAlign: FunctionAlign, Line: 64, Offset: map[trampolines.Role]int{trampolines.Entry: l.Entry, trampolines.Exit: l.Exit}})
}

func (j Job) build(l *harness.Layout) (harness.Setup, *asm.Image, error) {
	entry, err := j.Entry.Tramp(trampolines.Entry)
	if err != nil {
		return harness.Setup{}, nil, err
	}
	exit, err := j.Exit.Tramp(trampolines.Exit)
	if err != nil {
		return harness.Setup{}, nil, err
	}
	s := harness.Setup{Arch: Arch, Entry: entry, Exit: exit, Layout: l}
	rt, err := trampolines.Files.ReadFile("native/x86_64.S")
	if err != nil {
		return s, nil, err
	}
	im, err := s.BuildWith(asm.Source{Name: "trampolines/native/x86_64.S", Text: rt})
	return s, im, err
}

// Name is the pairing's name, "entry+exit" (a file by its path).
func (j Job) Name() string { return j.Entry.name() + "+" + j.Exit.name() }

func (s Spec) name() string {
	if s.File != "" {
		return s.File
	}
	return s.Variant
}

// Experiment reports whether either side of the pairing is a registry
// experiment (trampolines.Variant.Experiment).
func (j Job) Experiment() bool {
	for _, s := range []struct {
		spec Spec
		role trampolines.Role
	}{{j.Entry, trampolines.Entry}, {j.Exit, trampolines.Exit}} {
		if s.spec.File != "" {
			continue
		}
		if v, err := harness.FindVariant(Arch, s.role, s.spec.Variant); err == nil && v.Experiment {
			return true
		}
	}
	return false
}

// ParsePairing resolves "ENTRY+EXIT", or one variant name (its intended
// pairing), to a job.
func ParsePairing(s string) (Job, error) {
	if e, x, ok := strings.Cut(s, "+"); ok {
		j := Job{Arch: Arch.Name, Entry: Spec{Variant: e}, Exit: Spec{Variant: x}}
		if _, err := harness.FindVariant(Arch, trampolines.Entry, e); err != nil {
			return j, fmt.Errorf("pairing %q: %w", s, err)
		}
		if _, err := (Spec{Variant: x}).Tramp(trampolines.Exit); err != nil {
			return j, fmt.Errorf("pairing %q: %w", s, err)
		}
		return j, nil
	}
	v, err := harness.FindVariant(Arch, "", s)
	if err != nil {
		return Job{}, fmt.Errorf("pairing %q (a variant name, or ENTRY+EXIT): %w", s, err)
	}
	if v.Role.Returns() {
		return Job{Arch: Arch.Name, Entry: Spec{Variant: v.Pair}, Exit: Spec{Variant: v.Name}}, nil
	}
	return Job{Arch: Arch.Name, Entry: Spec{Variant: v.Name}, Exit: Spec{Variant: v.Pair}}, nil
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
