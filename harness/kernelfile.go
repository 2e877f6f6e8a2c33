package harness

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"trampemu/asm"
	"trampemu/ftrace"
	"trampemu/kernel"
	"trampemu/regs"
	"trampemu/trampolines"
)

// FileOptions choose how a kernel file is built and judged.
type FileOptions struct {
	// Kernel is the model (--kernel: it forces every property); nil: found
	// from the file (kernel.Resolve).
	Kernel *kernel.Choice
	// Makefile is the version of the tree's top Makefile (zero: no tree):
	// what the file does not decide comes from it.
	Makefile kernel.Version
	// Config replaces the model's distribution defaults (a .config).
	Config kernel.Config
	// Options are -D / -U on top.
	Options kernel.Options
	// Name is how rows name the file (default: its base name).
	Name string
	// IncludeDirs are searched after the file's own folder (the original
	// folder of a patched copy).
	IncludeDirs []string
}

// FileFlags are a user's choices for a kernel file as text, as flags give
// them (and a child process's job carries them): --kernel, --config, -D,
// -U.
type FileFlags struct {
	Kernel string   `json:"kernel,omitempty"`
	Config string   `json:"config,omitempty"`
	Define []string `json:"define,omitempty"`
	Undef  []string `json:"undef,omitempty"`
	// Makefile is the tree's Makefile version a file of a tree was judged
	// in (not a flag: a child process judges the file as its parent did).
	Makefile string `json:"makefile,omitempty"`
}

// Used reports whether any choice is made.
func (ff FileFlags) Used() bool {
	return ff.Kernel != "" || ff.Config != "" || len(ff.Define) > 0 || len(ff.Undef) > 0
}

// Options resolves the flags for arch a: the model of --kernel, the
// .config of --config, -D and -U.
func (ff FileFlags) Options(a *regs.Arch) (FileOptions, error) {
	o := FileOptions{Options: kernel.Options{Define: ff.Define, Undef: ff.Undef}}
	if ff.Kernel != "" {
		v, err := kernel.ParseVersion(ff.Kernel)
		if err != nil {
			return o, fmt.Errorf("--kernel: %w", err)
		}
		c, err := kernel.Choose(a.Name, v, "--kernel")
		if err != nil {
			return o, fmt.Errorf("--kernel: %w", err)
		}
		o.Kernel = &c
	}
	if ff.Makefile != "" {
		v, err := kernel.ParseVersion(ff.Makefile)
		if err != nil {
			return o, fmt.Errorf("the tree's Makefile version: %w", err)
		}
		o.Makefile = v
	}
	if ff.Config != "" {
		c, err := kernel.ReadConfig(ff.Config)
		if err != nil {
			return o, err
		}
		o.Config = c
	}
	return o, nil
}

// File is a kernel-style .S (a whole ftrace_64.S / mcount.S, or a piece of
// one) with the model and options it is built with, and the trampolines
// it defines under those options.
type File struct {
	Path, Name string
	Text       []byte
	Choice     kernel.Choice
	Config     kernel.Config
	// Tramps are the trampolines the file defines, entry ones first, each
	// paired with the file's own trampoline of the other role when it has
	// one.
	Tramps []Tramp
}

// FileConfig returns the CONFIG options a file of model m is built with:
// the model's distribution defaults, or o.Config (a .config) with the
// model's compiler flags (CC_USING_*, not in a .config), then -D / -U. A
// nil model gives only -D / -U.
func FileConfig(m *kernel.Model, o FileOptions) (kernel.Config, error) {
	base := kernel.Config{}
	if m != nil {
		base = m.Config
	}
	if o.Config != nil {
		base = kernel.Config{}
		for k, v := range o.Config {
			base[k] = v
		}
		if m != nil {
			for k, v := range m.Config {
				if !strings.HasPrefix(k, "CONFIG_") {
					base[k] = v
				}
			}
		}
	}
	return o.Options.Apply(base)
}

// fileRole is a trampoline a kernel file may define, and the option that
// usually compiles it out.
type fileRole struct {
	role   trampolines.Role
	symbol string
	option string
}

// fileRoles: arch/x86/kernel/ftrace_64.S and arch/s390/kernel/mcount.S
// define the entry trampolines under CONFIG_DYNAMIC_FTRACE (ftrace_regs_caller
// under ..._WITH_REGS) and return_to_handler under CONFIG_FUNCTION_GRAPH_TRACER.
var fileRoles = []fileRole{
	{trampolines.Entry, "ftrace_caller", "CONFIG_DYNAMIC_FTRACE"},
	{trampolines.Entry, "ftrace_regs_caller", "CONFIG_DYNAMIC_FTRACE_WITH_REGS"},
	{trampolines.Exit, symReturnToHandler, "CONFIG_FUNCTION_GRAPH_TRACER"},
	// arch/s390/kernel/mcount.S v6.2+ (CONFIG_RETHOOK).
	{trampolines.Rethook, ftrace.SymRethookTrampoline, "CONFIG_RETHOOK"},
}

// LoadFile reads a kernel file, fixes its model and options, and finds the
// trampolines it defines by building it alone.
func LoadFile(a *regs.Arch, path string, o FileOptions) (*File, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	// Another arch's file is told so in one line, before its model is
	// looked for in the wrong arch's eras.
	if err := asm.WrongArch(a, path, text); err != nil {
		return nil, err
	}
	f := &File{Path: path, Name: o.Name, Text: text}
	if f.Name == "" {
		f.Name = filepath.Base(path)
	}
	if o.Kernel != nil {
		f.Choice = *o.Kernel
		f.Choice.Properties = kernel.WithFileEvidence(a.Name, f.Name, text, f.Choice.Properties)
		f.Choice.KnownBugs = kernel.KnownBugsIn(f.Choice.Model, text)
	} else if f.Choice, err = kernel.Resolve(a.Name, f.Name, text, o.Makefile); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if f.Config, err = FileConfig(f.Choice.Model, o); err != nil {
		return nil, err
	}
	defs := f.Config.Defines()
	src := func(role trampolines.Role) asm.Source {
		s := asm.Source{Name: path, Text: text, Unit: string(role), Defines: defs, Dir: filepath.Dir(path),
			Headers: FregsHeaders(a, a.FregsLayout(f.Choice.Model.Fregs, defs))}
		// Linked once per role: the other role's symbols of this copy are
		// made local so that the two copies (and a registry partner) do
		// not clash.
		switch role {
		case trampolines.Exit:
			s.Globals, s.Locals = []string{symReturnToHandler}, []string{ftrace.SymRethookTrampoline}
		case trampolines.Rethook:
			s.Globals, s.Locals = []string{ftrace.SymRethookTrampoline}, []string{symReturnToHandler}
		default:
			s.Locals = []string{symReturnToHandler, ftrace.SymRethookTrampoline}
		}
		return s
	}
	standIns := asm.Source{Name: "kernel stand-ins", Unit: "kernel", Text: []byte(kernel.StandIns(a.Name))}
	providedData := asm.Source{Name: "provided data", Unit: "provided", Text: []byte(ProvidedData())}
	dirs := append([]string{filepath.Dir(path)}, o.IncludeDirs...)
	im, undefined, err := probe(a, src(trampolines.Entry), dirs, standIns, providedData)
	if err != nil {
		return nil, err
	}
	u, _ := im.Unit(string(trampolines.Entry))
	var entries, exits, rethooks []Tramp
	at := map[uint64]bool{}
	for _, r := range fileRoles {
		addr, ok := im.Symbol(r.symbol)
		if r.role.Returns() {
			// The probe copy localized it; look for the local symbol.
			addr, ok = localSymbol(im, r.symbol)
		}
		if !ok || !u.Contains(addr) {
			continue
		}
		if at[addr] {
			// s390x <= v5.13: ".set ftrace_regs_caller,ftrace_caller", the
			// same code; checked once.
			continue
		}
		at[addr] = true
		t := Tramp{
			Name: f.Name + ":" + r.symbol, Role: r.role, Symbol: r.symbol,
			Source: src(r.role), IncludeDirs: dirs,
			Model: &f.Choice, Support: []asm.Source{standIns, providedData},
		}
		switch r.role {
		case trampolines.Entry:
			t.Graph = f.Choice.Model.Graph
			entries = append(entries, t)
		case trampolines.Rethook:
			t.ExitABI = trampolines.ExitRethook
			rethooks = append(rethooks, t)
		default:
			t.ExitABI = f.Choice.Model.ExitABI
			exits = append(exits, t)
		}
	}
	// The old graph path (x86-64 <= v5.15): ftrace_graph_caller is a
	// function of its own, reached from ftrace_caller through the patched
	// ftrace_graph_call; it gets its own row, costed alone. (s390x's
	// ftrace_graph_caller is a label inside ftrace_common, sized 0.)
	if f.Choice.Model.Graph == trampolines.GraphViaCaller && len(entries) > 0 && entries[0].Symbol == "ftrace_caller" {
		if addr, size, ok := sizedSymbol(im, symFtraceGraphCaller); ok && size > 0 && u.Contains(addr) {
			g := entries[0]
			g.Name, g.Measure = f.Name+":"+symFtraceGraphCaller, symFtraceGraphCaller
			entries = append(entries, g)
		}
	}
	if len(entries)+len(exits)+len(rethooks) > 0 && len(undefined) > 0 {
		return nil, fmt.Errorf("%s: undefined symbols: %s (neither the file nor the tool defines them: define them in the file, or a CONFIG option the tool does not model? see 'trampemu list --config')",
			path, strings.Join(undefined, ", "))
	}
	// Each trampoline is paired with the file's own trampoline of the other
	// role when it has one.
	for i := range entries {
		if len(exits) > 0 {
			p := exits[0]
			entries[i].Partner = &p
		}
	}
	for i := range exits {
		if len(entries) > 0 {
			p := entries[0]
			exits[i].Partner = &p
		}
	}
	// arch_rethook_trampoline pairs with the entry the fprobe ops' SAVE_REGS
	// selects (ftrace_regs_caller when the file has one).
	for i := range rethooks {
		for j := range entries {
			if j == 0 || entries[j].Symbol == "ftrace_regs_caller" && entries[j].Measure == "" {
				p := entries[j]
				rethooks[i].Partner = &p
			}
		}
	}
	f.Tramps = append(append(entries, exits...), rethooks...)
	return f, nil
}

// Join adds the trampolines of g, another file of the same tree (riscv64's
// arch/riscv/kernel/mcount.S beside mcount-dyn.S, kernel.Tree.Companions),
// to f's: each trampoline of either file without a partner of the other
// role gets the other file's (an entry the first return_to_handler, a
// return_to_handler the first entry), as the two files link into one
// kernel.
func (f *File) Join(g *File) {
	link := func(x, y *File) {
		for i := range x.Tramps {
			t := &x.Tramps[i]
			if t.Partner != nil || t.Role == trampolines.Rethook {
				continue
			}
			for _, u := range y.Tramps {
				if u.Role != trampolines.Rethook && u.Role.Returns() != t.Role.Returns() && u.Measure == "" {
					p := u
					t.Partner = &p
					break
				}
			}
		}
	}
	link(f, g)
	link(g, f)
	f.Tramps = append(f.Tramps, g.Tramps...)
}

// Role returns the file's trampolines of a role ("" for all), or an error
// that says which is missing under the options.
func (f *File) Role(role trampolines.Role) ([]Tramp, error) {
	var out []Tramp
	for _, t := range f.Tramps {
		if role == "" || t.Role == role {
			out = append(out, t)
		}
	}
	if len(out) > 0 {
		return out, nil
	}
	var hints []string
	for _, r := range fileRoles {
		if role == "" || r.role == role {
			hints = append(hints, fmt.Sprintf("%s (%s unset?)", r.symbol, r.option))
		}
	}
	what := "no trampoline"
	if role != "" {
		what = "no " + string(role) + " trampoline"
	}
	return nil, fmt.Errorf("%s defines %s with these options: %s; options: -D NAME, -U NAME, --config FILE, --kernel vX.Y",
		f.Path, what, strings.Join(hints, ", "))
}

// sizedSymbol finds a symbol with its size.
func sizedSymbol(im *asm.Image, name string) (addr, size uint64, ok bool) {
	for _, s := range im.Symbols {
		if s.Name == name {
			return s.Addr, s.Size, true
		}
	}
	return 0, 0, false
}

// MeasureUnit returns the code range the cost of t counts: its Measure
// function when set, else the role's whole unit.
func (h *Harness) MeasureUnit(t Tramp) asm.Unit {
	u := h.entryUnit
	if t.Role.Returns() {
		u = h.exitUnit
	}
	if t.Measure == "" {
		return u
	}
	addr, ok := h.Image.Symbol(t.Measure)
	if !ok || !u.Contains(addr) {
		return asm.Unit{Name: t.Measure}
	}
	for _, s := range h.Image.Symbols {
		if s.Name == t.Measure && s.Addr == addr {
			return asm.Unit{Name: t.Measure, Start: addr, End: addr + s.Size}
		}
	}
	return asm.Unit{Name: t.Measure}
}

// localSymbol finds a symbol by name, local ones included.
func localSymbol(im *asm.Image, name string) (uint64, bool) {
	for _, s := range im.Symbols {
		if s.Name == name {
			return s.Addr, true
		}
	}
	return 0, false
}

// probe builds the file alone with the tool's kernel symbols; symbols it
// uses that nobody defines are given stand-ins once and returned, so that
// what the file defines is known even then.
func probe(a *regs.Arch, file asm.Source, dirs []string, support ...asm.Source) (*asm.Image, []string, error) {
	hosts := append(append([]string{}, Provided(a)...), HostFuncs...)
	opt := asm.Options{Arch: a, HostFuncs: dedupe(hosts), IncludeDirs: dirs}
	im, err := asm.Build(opt, append([]asm.Source{file}, support...)...)
	var ae *asm.Error
	if err == nil || !errors.As(err, &ae) || len(ae.Undefined) == 0 {
		return im, nil, err
	}
	undefined := ae.Undefined
	var b strings.Builder
	for _, s := range undefined {
		fmt.Fprintf(&b, "\t.weak %s\n%s:\n", s, s)
	}
	missing := asm.Source{Name: "undefined symbols", Unit: "undefined", Text: []byte("\t.text\n" + b.String())}
	im, err = asm.Build(opt, append(append([]asm.Source{file}, support...), missing)...)
	sort.Strings(undefined)
	return im, undefined, err
}

// ProvidedData defines the kernel data symbols a trampoline may use, as
// weak zero words, so a file links on its own.
func ProvidedData() string {
	var b strings.Builder
	b.WriteString("\t.data\n")
	for _, s := range []string{symFunctionTraceOp, symFtraceFunc, symFtraceTraceFunc} {
		fmt.Fprintf(&b, "\t.weak %s\n%s:\t.quad 0\n", s, s)
	}
	return b.String()
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
