package harness

import (
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"trampemu/asm"
	"trampemu/ftrace"
	"trampemu/kernel"
	"trampemu/regs"
	"trampemu/trampolines"
)

// Host functions: Go code behind a return stub. The first three are the
// kernel functions the trampolines call, by their kernel names; the rest are
// the drivers' hooks.
const (
	HostOpsListFunc      = ftrace.SymOpsListFunc
	HostReturnToHandler  = ftrace.SymReturnToHandler
	HostPrepareFtraceRet = ftrace.SymPrepareFtraceRet
	HostRethookCallback  = ftrace.SymRethookCallback
	HostNext             = "trampemu_next"
	HostDirectHook       = "trampemu_direct_hook"
	symChecked           = "trampemu_checked_loop"
	symFast              = "trampemu_fast_loop"
	symExit              = "trampemu_exit"
	symDirect            = "trampemu_direct"
	symTarget            = "trampemu_target"
	symArgs              = "trampemu_args"
	symCount             = "trampemu_count"
	symResult            = "trampemu_result"
	symFunctionTraceOp   = ftrace.SymFunctionTraceOp
	symFtraceFunc        = ftrace.SymFtraceFunc
	symFtraceTraceFunc   = ftrace.SymFtraceTraceFunction
	symFtraceCall        = ftrace.SymFtraceCall
	symFtraceRegsCall    = ftrace.SymFtraceRegsCall
	symFtraceGraphCaller = ftrace.SymFtraceGraphCaller
	symReturnToHandler   = "return_to_handler"
	workloadsUnit        = "workloads"
	runtimeUnit          = "runtime"
)

// HostFuncs lists every host function an image provides: the kernel's
// (ftrace.KernelFuncs) and the drivers' hooks.
var HostFuncs = append(append([]string{}, ftrace.KernelFuncs...), HostNext, HostDirectHook)

// StandaloneHostFuncs are the host functions of an image built without the
// runtime (which defines ftrace_stub): a trampoline listed or compared alone.
var StandaloneHostFuncs = append([]string{ftrace.SymFtraceStub}, HostFuncs...)

// Provided lists the symbols a user's trampoline may use without defining
// them, as in the kernel (their home is ftrace.ArchOps.Provided).
func Provided(a *regs.Arch) []string { return ftrace.MustOps(a).Provided() }

// Setup is one pairing to run: an entry and an exit trampoline of an arch.
type Setup struct {
	Arch  *regs.Arch
	Entry Tramp
	Exit  Tramp
	// Layout, when not nil, places the code for timing (package native);
	// nil: the emulator's layout.
	Layout *Layout
}

// Layout is how the native runner places the code: functions aligned as
// the kernel aligns them, and every unit at a fixed offset within its
// cache line, the trampolines' offsets chosen (the layout-shift
// experiment: a difference between two exits that changes with their
// offset is the layout's, not the code's).
type Layout struct {
	// FunctionAlign is CONFIG_FUNCTION_ALIGNMENT (the arch prelude's
	// __ALIGN uses it); 0: the prelude's default.
	FunctionAlign int
	// Line is the cache line size (0: 64); Offset the entry's and the
	// exit's offset within theirs (the other units start on a line).
	Line   int
	Offset map[trampolines.Role]int
}

// Build assembles and links the pairing with the runtime (data.S and
// <arch>.S) and the workloads.
func (s Setup) Build() (*asm.Image, error) {
	a := s.Arch
	defs := trampolines.RuntimeDefines(a)
	var rt []asm.Source
	for _, f := range []string{"runtime/data.S", "runtime/" + a.Name + ".S"} {
		text, err := fs.ReadFile(trampolines.Files, f)
		if err != nil {
			return nil, err
		}
		rt = append(rt, asm.Source{Name: "trampolines/" + f, Text: text, Defines: defs})
	}
	return s.BuildWith(rt...)
}

// BuildWith links the pairing and the workloads with the given runtime
// sources (the emulator's drivers, or the native runner's) and checks that
// the trampolines define what the harness needs.
func (s Setup) BuildWith(runtime ...asm.Source) (*asm.Image, error) {
	a := s.Arch
	if site := s.Entry.Site(); !ftrace.MustOps(a).HasForm(string(site)) {
		return nil, fmt.Errorf("%s is reached from the %q call site of its era, which the tool does not model on %s: check a file of another era, or give --kernel to judge the code as another era's", s.Entry.Name, site, a.Name)
	}
	wl, err := fs.ReadFile(trampolines.Files, "workloads/"+a.Name+".S")
	if err != nil {
		return nil, err
	}
	opt := asm.Options{Arch: a, HostFuncs: HostFuncs}
	if l := s.Layout; l != nil {
		opt.UnitLine, opt.UnitOffset = l.Line, map[string]int{}
		if opt.UnitLine <= 0 {
			opt.UnitLine = 64
		}
		for r, off := range l.Offset {
			opt.UnitOffset[string(r)] = off
		}
		if l.FunctionAlign > 0 {
			opt.Defines = map[string]string{"CONFIG_FUNCTION_ALIGNMENT": fmt.Sprint(l.FunctionAlign)}
		}
	}
	// Each trampoline is preprocessed with its own headers and folders
	// only: an entry's header never meets the exit's header of the same
	// name (a user's copy of a registry file with an edited header, paired
	// with a registry exit that has the original).
	entry, exit := s.Entry.ownSource(a), s.Exit.ownSource(a)
	entry.Unit, exit.Unit = string(trampolines.Entry), string(trampolines.Exit)
	srcs := []asm.Source{entry, exit}
	seen := map[string]bool{}
	for _, t := range []Tramp{s.Entry, s.Exit} {
		for _, sup := range t.Support {
			if !seen[sup.Name] {
				seen[sup.Name] = true
				srcs = append(srcs, sup)
			}
		}
	}
	for _, r := range runtime {
		r.Unit = runtimeUnit
		srcs = append(srcs, r)
	}
	wlDefs := map[string]string{}
	if s.Entry.Pg() {
		// the -pg call site (trampolines/workloads/arm64.S)
		wlDefs["TRAMPEMU_PG_SITE"] = "1"
	}
	if d := s.Form().Define; d != "" {
		wlDefs[d] = ""
	}
	srcs = append(srcs, asm.Source{Name: "trampolines/workloads/" + a.Name + ".S", Text: wl, Unit: workloadsUnit, Defines: wlDefs})
	im, err := asm.Build(opt, srcs...)
	if err != nil {
		return nil, err
	}
	return im, s.validate(im)
}

// objtoolNonStandardFP: the trampoline's kernel file is not given to
// objtool in a frame-pointer build (a registry variant's flag; a file's
// model ending before v5.12, arch/x86/kernel/Makefile:
// OBJECT_FILES_NON_STANDARD_ftrace_$(BITS).o under CONFIG_FRAME_POINTER).
func (t Tramp) objtoolNonStandardFP() bool {
	if t.Variant != nil {
		return t.Variant.ObjtoolNonStandardFP
	}
	if t.Model != nil && t.Model.Model != nil {
		to := t.Model.Model.To
		return to != (kernel.Version{}) && (to.Major < 5 || to.Major == 5 && to.Minor < 12)
	}
	return false
}

// ownSource is the trampoline's source with its headers and include
// folders scoped to it (asm.Source.Headers, IncludeDirs); the Tramp's win
// over those the source already names. A trampoline whose struct
// ftrace_regs is not the arch's Frame (FrameLayout) gets the
// asm-offsets.h of its form.
func (t Tramp) ownSource(a *regs.Arch) asm.Source {
	src := t.Source
	src.ObjtoolNonStandardFP = t.objtoolNonStandardFP()
	if len(t.Headers) > 0 || t.FrameLayout(a) != a.Frame {
		hdrs := make(map[string][]byte, len(src.Headers)+len(t.Headers)+1)
		for k, v := range src.Headers {
			hdrs[k] = v
		}
		for k, v := range t.Headers {
			hdrs[k] = v
		}
		for k, v := range FregsHeaders(a, t.FrameLayout(a)) {
			hdrs[k] = v
		}
		src.Headers = hdrs
	}
	if len(t.IncludeDirs) > 0 {
		src.IncludeDirs = append(append([]string{}, src.IncludeDirs...), t.IncludeDirs...)
	}
	return src
}

// FregsHeaders is the asm-offsets.h of a build whose struct ftrace_regs
// is frame, when that is not the arch's Frame (regs.AsmOffsetsHeaderFor);
// nil otherwise (the generated header of every source).
func FregsHeaders(a *regs.Arch, frame *regs.Layout) map[string][]byte {
	if frame == nil || frame == a.Frame || frame == a.PtRegs {
		return nil
	}
	return map[string][]byte{"asm/asm-offsets.h": []byte(regs.AsmOffsetsHeaderFor(a, frame))}
}

// validate checks that each trampoline defines what the harness needs,
// naming every missing symbol.
func (s Setup) validate(im *asm.Image) error {
	var missing []string
	need := func(t Tramp, sym string) {
		unit := trampolines.Entry
		if t.Role.Returns() {
			unit = trampolines.Exit // the exit slot's unit (BuildWith)
		}
		u, _ := im.Unit(string(unit))
		addr, ok := im.Symbol(sym)
		if !ok || !u.Contains(addr) {
			missing = append(missing, fmt.Sprintf("%s (in %s)", sym, t.Source.Name))
		}
	}
	need(s.Entry, s.Entry.Symbol)
	need(s.Exit, s.Exit.Symbol)
	u, _ := im.Unit(string(trampolines.Entry))
	inEntry := func(sym string) bool {
		addr, ok := im.Symbol(sym)
		return ok && u.Contains(addr)
	}
	if ptrs := ftrace.MustOps(s.Arch).FuncPointers; len(ptrs) == 0 {
		// An arch with DYNAMIC_FTRACE_WITH_CALL_OPS may call op->func
		// through the call site's ops literal instead (arm64 v6.3+): the
		// control check then sees whether the callback ran.
		if !inEntry(symFtraceCall) && !inEntry(symFtraceRegsCall) && ftrace.MustOps(s.Arch).CallOpsLiteral == nil {
			missing = append(missing, fmt.Sprintf("%s or %s: the callback call site (in %s)", symFtraceCall, symFtraceRegsCall, s.Entry.Source.Name))
		}
	} else {
		if !inEntry(symFtraceCall) && !usesPointer(im, u, ptrs) {
			missing = append(missing, fmt.Sprintf("%s, or a call through %s (in %s)", symFtraceCall, strings.Join(ptrs, " / "), s.Entry.Source.Name))
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return fmt.Errorf("missing symbols: %s", strings.Join(missing, "; "))
	}
	return nil
}

// usesPointer reports whether the entry code loads one of the arch's
// callback pointers (s390x ftrace_func or ftrace_trace_function, which it
// calls the ops callback through).
func usesPointer(im *asm.Image, u asm.Unit, ptrs []string) bool {
	ins, _ := asm.Listing(im, asm.ForImage(im), u.Start, u.End)
	for _, in := range ins {
		for _, p := range ptrs {
			if strings.Contains(in.Text, "<"+p+">") {
				return true
			}
		}
	}
	return false
}
