package harness

import (
	"fmt"
	"strings"

	"trampemu/asm"
	"trampemu/ftrace"
	"trampemu/kernel"
	"trampemu/regs"
	"trampemu/trampolines"
)

// Patch is a code change the kernel makes when tracing is turned on: Bytes
// written at Addr.
type Patch struct {
	Addr  uint64
	Bytes []byte
}

// EnablePatches lists the code changes that turn tracing on in an image of
// the setup, in the order the kernel makes them: the entry trampoline's
// callback call sites pointed at dispatch (ftrace_update_ftrace_func), every
// __mcount_loc site patched to call the entry trampoline
// (ftrace_make_call), and, when graph is set and the entry variant starts
// graph tracing through ftrace_graph_caller, the branch into it
// (ftrace_enable_ftrace_graph_caller). A Harness applies them to its
// machine; the native runner to host memory.
func EnablePatches(s Setup, im *asm.Image, dispatch uint64, graph bool) ([]Patch, error) {
	a := s.Arch
	ps, err := callbackPatches(a, im, dispatch, s.Entry.Pg())
	if err != nil {
		return nil, modelMismatch(a, s.Entry, err)
	}
	target, ok := im.Symbol(s.Entry.Symbol)
	if !ok {
		return nil, fmt.Errorf("missing symbols: %s (in %s)", s.Entry.Symbol, s.Entry.Source.Name)
	}
	for _, site := range im.McountLoc() {
		p, err := sitePatch(s.Form(), site, target)
		if err != nil {
			return nil, fmt.Errorf("call site %s: %w", im.Describe(site), err)
		}
		ps = append(ps, p)
	}
	if graph && s.Entry.Graph == trampolines.GraphViaCaller {
		gp, err := graphCallerPatches(s, im)
		if err != nil {
			return nil, err
		}
		ps = append(ps, gp...)
	}
	return ps, nil
}

// callbackPatches rewrites the calls at ftrace_call and ftrace_regs_call
// (when the entry unit has them) to call dispatch.
func callbackPatches(a *regs.Arch, im *asm.Image, dispatch uint64, pg bool) ([]Patch, error) {
	entry, _ := im.Unit(string(trampolines.Entry))
	var ps []Patch
	for _, label := range []string{symFtraceCall, symFtraceRegsCall} {
		site, ok := im.Symbol(label)
		if !ok || !entry.Contains(site) {
			continue
		}
		ops := ftrace.MustOps(a)
		modify := ops.ModifyCall
		if pg && ops.PgModifyCall != nil {
			modify = ops.PgModifyCall
		}
		code, err := modify(a, site, dispatch, im.Bytes(site, ops.OldLen))
		if err != nil {
			return nil, fmt.Errorf("%s at %s: %w", label, im.Describe(site), err)
		}
		ps = append(ps, Patch{site, code})
	}
	return ps, nil
}

// sitePatch turns a traced function's NOP site into a call of target
// (the site form's MakeCall, ftrace.ArchOps.MakeCall for the usual one).
func sitePatch(f ftrace.SiteForm, site, target uint64) (Patch, error) {
	code, err := f.MakeCall(f.Arch, site, target)
	return Patch{site, code}, err
}

// Form is the call-site form the setup's entry is reached from
// (ftrace.ArchOps.Form of Tramp.Site).
func (s Setup) Form() ftrace.SiteForm {
	f := ftrace.MustOps(s.Arch).Form(string(s.Entry.Site()))
	f.Arch = s.Arch
	return f
}

// graphCallerPatch enables the branch into ftrace_graph_caller as the arch's
// ftrace_enable_ftrace_graph_caller does (ftrace.ArchOps.EnableGraph):
// x86-64 "jmp ftrace_stub" at ftrace_graph_call becomes "jmp
// ftrace_graph_caller"; s390x "j .Lend" (a7f4) at ftrace_graph_caller
// becomes "brc 0,.Lend" (a704), a nop.
func graphCallerPatch(s Setup, im *asm.Image) (Patch, error) {
	a := s.Arch
	ops := ftrace.MustOps(a)
	site, ok := im.Symbol(ops.GraphSite)
	var target uint64
	if ops.GraphTarget != "" {
		var ok2 bool
		target, ok2 = im.Symbol(ops.GraphTarget)
		if !ok || !ok2 {
			return Patch{}, modelMismatch(a, s.Entry, fmt.Errorf("%s has no %s/%s", s.Entry.Name, ops.GraphSite, ops.GraphTarget))
		}
	} else if !ok {
		return Patch{}, modelMismatch(a, s.Entry, fmt.Errorf("%s has no %s", s.Entry.Name, ops.GraphSite))
	}
	code, err := ops.EnableGraph(a, site, target, im.Bytes(site, ops.GraphOldLen))
	if err != nil {
		return Patch{}, modelMismatch(a, s.Entry, fmt.Errorf("%s at %s %v", ops.GraphSite, im.Describe(site), err))
	}
	return Patch{site, code}, nil
}

// graphCallerDisables writes the graph calls the image has (GraphSite and
// GraphAlsoSites) as ftrace_disable_ftrace_graph_caller leaves them
// (ftrace.ArchOps.DisableGraph): riscv64 v5.11-v6.7, two NOP4 where
// "call ftrace_stub" was built.
func graphCallerDisables(s Setup, im *asm.Image) ([]Patch, error) {
	ops := ftrace.MustOps(s.Arch)
	var ps []Patch
	for _, name := range append([]string{ops.GraphSite}, ops.GraphAlsoSites...) {
		site, ok := im.Symbol(name)
		if !ok {
			continue
		}
		code, err := ops.DisableGraph(s.Arch, site, im.Bytes(site, ops.GraphOldLen))
		if err != nil {
			return nil, modelMismatch(s.Arch, s.Entry, fmt.Errorf("%s at %s %v", name, im.Describe(site), err))
		}
		ps = append(ps, Patch{site, code})
	}
	return ps, nil
}

// graphCallerPatches is graphCallerPatch with the arch's other graph
// calls (ftrace.ArchOps.GraphAlsoSites) the image has, each patched the
// same way: riscv64 v5.11-v6.7 ftrace_enable_ftrace_graph_caller rewrites
// ftrace_graph_call and ftrace_graph_regs_call.
func graphCallerPatches(s Setup, im *asm.Image) ([]Patch, error) {
	p, err := graphCallerPatch(s, im)
	if err != nil {
		return nil, err
	}
	ps := []Patch{p}
	ops := ftrace.MustOps(s.Arch)
	target, _ := im.Symbol(ops.GraphTarget)
	for _, name := range ops.GraphAlsoSites {
		site, ok := im.Symbol(name)
		if !ok {
			continue
		}
		code, err := ops.EnableGraph(s.Arch, site, target, im.Bytes(site, ops.GraphOldLen))
		if err != nil {
			return nil, modelMismatch(s.Arch, s.Entry, fmt.Errorf("%s at %s %v", name, im.Describe(site), err))
		}
		ps = append(ps, Patch{site, code})
	}
	return ps, nil
}

// modelMismatch explains a patch that fails on a user's file (a Tramp with
// a kernel model, not a registry variant): the code at the label the
// model's kernel patches is not what that kernel writes there, because the
// model's CONFIG options build another #ifdef branch of the file (arm64's
// -pg/_mcount code, whose ftrace_call is a NOP, under a model of another
// DYNAMIC_FTRACE_WITH_REGS/WITH_ARGS era) or the file is of another era.
// Nothing ran, so it is bad input, not a finding: the error names the
// file, the model and the fix (the model found from the file).
func modelMismatch(a *regs.Arch, t Tramp, err error) error {
	if t.Variant != nil || t.Model == nil {
		return err
	}
	chosen := t.Model.Model
	why := "its CONFIG options build code of the file that the model's kernel does not patch this way (another #ifdef branch, such as the -pg/_mcount one, or a file of another era)"
	fix := "choose the model of the file's kernel version with --kernel vX.Y (trampemu list --config lists the models)"
	if c, derr := kernel.Detect(a.Name, t.Source.Text); derr == nil && c.Model.Name != chosen.Name {
		if strings.HasPrefix(t.Model.Reason, "--kernel") {
			fix = fmt.Sprintf("drop --kernel to use the model found from the file (%s), or give --kernel %s", c.Model.Name, c.Model.From)
		} else {
			fix = fmt.Sprintf("the file fits kernel model %s: check it with --file (the model is then found from the file) or --kernel %s", c.Model.Name, c.Model.From)
		}
	}
	return fmt.Errorf("%s does not fit kernel model %s (%s): %s; %s (%v)",
		t.Source.Name, chosen.Name, t.Model.Reason, why, fix, err)
}
