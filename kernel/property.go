package kernel

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"

	"trampemu/ftrace"
	"trampemu/regs"
	"trampemu/trampolines"
)

// Property is one fact about the kernel that the checks depend on, with
// its evidence: the file's construct and place (file:line), or what
// decided it instead.
type Property struct {
	Name     string `json:"name"`
	Value    string `json:"value"`
	Evidence string `json:"evidence"`
	// From is what decided it: "file", "makefile" (the tree's version),
	// "kernel" (--kernel), "model" (the era taken for a file alone, whose
	// text does not decide it) or "arch" (the same in every era).
	From string `json:"from"`
}

// The properties of a model.
const (
	// PropGraph: how graph tracing starts (the patched ftrace_graph_call /
	// ftrace_graph_caller, or the ftrace_graph_func ops).
	PropGraph = "graph-entry"
	// PropPrepare: the arguments ftrace_graph_caller gives
	// prepare_ftrace_return.
	PropPrepare = "prepare_ftrace_return"
	// PropExit: what return_to_handler passes to ftrace_return_to_handler.
	PropExit = "exit-abi"
	// PropArgs: what ftrace_caller hands the callbacks (WITH_ARGS'
	// ftrace_regs, a pt_regs, or NULL).
	PropArgs = "with-args"
	// PropRegsCaller: s390x ftrace_regs_caller, its own code or .set to
	// ftrace_caller.
	PropRegsCaller = "ftrace_regs_caller"
	// PropDirect: DYNAMIC_FTRACE_WITH_DIRECT_CALLS' path in the entry.
	PropDirect = "direct-calls"
	// PropCallOps: arm64's per-site ops literal (CALL_OPS).
	PropCallOps = "ops-literal"
	// PropFPTest: HAVE_FUNCTION_GRAPH_FP_TEST, the frame pointer the exit
	// passes is compared with the entry's.
	PropFPTest = "fp-test"
	// PropOffsets: the asm-offsets names the file uses.
	PropOffsets = "asm-offsets"
	// PropSite: how a traced function reaches the entry (arm64: the
	// patchable-entry NOPs before the prologue, or gcc's -pg "bl
	// _mcount" after it, v4.19-v5.4; riscv64: the form of each era,
	// trampolines.CallSite).
	PropSite = "call-site"
)

// The CONFIG options some properties are.
const (
	optDirect  = "CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS"
	optCallOps = "CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS"
)

// What decided a property (Property.From).
const (
	fromFile     = "file"
	fromMakefile = "makefile"
	fromKernel   = "kernel"
	fromModel    = "model"
	fromArch     = "arch"
)

// propHooks are an arch's facts about its properties (x86_64.go,
// s390x.go, arm64.go).
type propHooks struct {
	// props are the arch's property names in print order.
	props []string
	// exitOptions are the CONFIG options that come with an exit ABI
	// (HAVE_FUNCTION_GRAPH_RETVAL, HAVE_FUNCTION_GRAPH_FREGS): a model
	// composed of one era's entry and another's return_to_handler takes
	// the entry era's options without these, and the exit era's.
	exitOptions map[trampolines.ExitABI]Config
	// fpTestWhy is the source of the arch's HAVE_FUNCTION_GRAPH_FP_TEST.
	fpTestWhy string
}

// archHooks hold each arch's propHooks.
var archHooks = map[string]propHooks{}

// Resolve finds the model of a trampoline file (name is how evidence
// names it) from its text, property by property: the graph entry path
// and prepare_ftrace_return's arguments, what return_to_handler passes,
// WITH_ARGS or pt_regs, direct calls, the ops literal. Without a version
// (mk zero), a file that fits one era gets the newest such era (the
// reason says which others fit); a file whose entry and
// return_to_handler are of different eras (a stable tree's backport)
// gets a model composed of the two. With the tree's Makefile version, a
// property the file does not decide comes from that version's era, one
// it decides comes from the file, and the Choice's Note says where they
// disagree. A file whose own entry code fits no era is an error.
func Resolve(arch, name string, text []byte, mk Version) (Choice, error) {
	_, ev, err := read(arch, name, text)
	if err != nil {
		return Choice{}, err
	}
	if !ev.Entry && !ev.Exit {
		return Choice{}, fmt.Errorf("defines neither ftrace_caller nor return_to_handler (the %s models are %s)", arch, ModelNames(arch))
	}
	models := ModelsOf(arch)
	var entryFit, exitFit, both []*Model
	for _, m := range models {
		if ev.fitsEntry(m) {
			entryFit = append(entryFit, m)
		}
		if ev.fitsExit(m) {
			exitFit = append(exitFit, m)
		}
		if ev.fits(m) {
			both = append(both, m)
		}
	}
	why := strings.Join(ev.Reasons, "; ")
	if len(entryFit) == 0 || len(exitFit) == 0 {
		return Choice{}, fmt.Errorf("fits no %s kernel model (%s); the models are %s; choose one with --kernel vX.Y",
			arch, why, ModelNames(arch))
	}
	if why == "" {
		why = "it uses none of the asm-offsets names, graph entry paths or return_to_handler arguments that tell the eras apart"
	}
	var at *Model
	if mk != (Version{}) {
		at, _ = ModelFor(arch, mk)
	}
	var c Choice
	var entry, exit *Model
	var entryWhy, exitWhy, entryFrom, exitFrom string
	switch {
	case at != nil:
		entry, exit = nearest(models, entryFit, at), nearest(models, exitFit, at)
		c.Makefile = mk
		c.Reason = fmt.Sprintf("the tree's Makefile says %s", mk)
		entryWhy = fmt.Sprintf("the file does not decide it: the tree's Makefile says %s (model %s)", mk, entry.Name)
		exitWhy = fmt.Sprintf("the file does not decide it: the tree's Makefile says %s (model %s)", mk, exit.Name)
		entryFrom, exitFrom = fromMakefile, fromMakefile
	case len(both) > 0:
		entry = both[len(both)-1]
		exit = entry
		c.Reason = "detected from the file: " + why
		if len(both) > 1 {
			var others []string
			for _, o := range both[:len(both)-1] {
				others = append(others, o.Name)
			}
			c.Reason += fmt.Sprintf(" (also fits %s; the newest is taken, --kernel chooses)", strings.Join(others, ", "))
		}
		entryWhy = fmt.Sprintf("the file does not decide it: model %s, the newest that fits", entry.Name)
		exitWhy = entryWhy
		entryFrom, exitFrom = fromModel, fromModel
	default:
		entry = entryFit[len(entryFit)-1]
		exit = nearest(models, exitFit, entry)
		c.Reason = fmt.Sprintf("detected from the file: %s (its entry is %s code, its return_to_handler %s code: a combination no release had, as a stable tree's backport makes)",
			why, entry.Name, exit.Name)
		entryWhy = fmt.Sprintf("the file does not decide it: model %s, the newest its entry fits", entry.Name)
		exitWhy = entryWhy
		entryFrom, exitFrom = fromModel, fromModel
	}
	c.Model = compose(arch, entry, exit)
	switch {
	case at != nil && c.Model != at:
		var differ []string
		for _, name := range archHooks[arch].props {
			if v := modelValue(arch, c.Model, name); name != PropOffsets && v != modelValue(arch, at, name) {
				differ = append(differ, fmt.Sprintf("%s %s, not %s's %s", name, v, at.Name, modelValue(arch, at, name)))
			}
		}
		c.Reason += "; the file decides " + strings.Join(differ, "; ")
		c.Note = disagreement(mk, at, entry, exit, c.Model)
	case mk != (Version{}) && at == nil:
		c.Makefile = mk
		c.Note = fmt.Sprintf("Makefile says %s, which no %s model covers (the models are %s); the file decides", mk, arch, ModelNames(arch))
	}
	c.KnownBugs = KnownBugsIn(c.Model, text)
	c.Site = ev.Site
	if c.Site == "" && len(c.Model.Sites) > 0 {
		c.Site = c.Model.Sites[0]
	}
	c.Properties = properties(arch, c.Model, ev, entryWhy, entryFrom)
	for i, p := range c.Properties {
		if p.Name == PropSite && c.Site != "" {
			c.Properties[i].Value = string(c.Site)
		}
	}
	for i, p := range c.Properties {
		if p.Name == PropExit && p.From != fromFile {
			c.Properties[i].Evidence, c.Properties[i].From = exitWhy, exitFrom
		}
	}
	return c, nil
}

// nearest returns the model of fit closest to at in the arch's order
// (at itself when it fits; on a tie the newer).
func nearest(models, fit []*Model, at *Model) *Model {
	index := map[*Model]int{}
	for i, m := range models {
		index[m] = i
	}
	best, dist := fit[0], -1
	for _, m := range fit {
		d := index[m] - index[at]
		if d < 0 {
			d = -d
		}
		if dist < 0 || d <= dist {
			best, dist = m, d
		}
	}
	return best
}

// disagreement is the note for a file whose model is not its tree's
// version's: "Makefile says v6.12; the file is v6.14+-style: a stable
// backport".
func disagreement(mk Version, at, entry, exit, m *Model) string {
	newer := func(x *Model) string {
		if at.From.Less(x.From) {
			return "a stable backport"
		}
		return "older code than the Makefile's version (the file wins)"
	}
	switch {
	case m == entry || m == exit || (entry == at && exit == at):
		return fmt.Sprintf("Makefile says %s; the file is %s-style: %s", mk, m.Name, newer(m))
	case entry == at:
		return fmt.Sprintf("Makefile says %s; its return_to_handler is %s-style: %s", mk, exit.Name, newer(exit))
	case exit == at:
		return fmt.Sprintf("Makefile says %s; its entry is %s-style: %s", mk, entry.Name, newer(entry))
	}
	for _, x := range ModelsOf(m.Arch) {
		if x == m {
			return fmt.Sprintf("Makefile says %s; the file is %s-style: %s", mk, m.Name, newer(m))
		}
	}
	return fmt.Sprintf("Makefile says %s; its entry is %s-style (%s), its return_to_handler %s-style (%s)", mk, entry.Name, newer(entry), exit.Name, newer(exit))
}

// compose returns the model with entry's entry trampolines and exit's
// return_to_handler: an era itself when one has that combination, else a
// model of its own named after both ("v6.5-v6.12 entry, v6.14+ exit").
func compose(arch string, entry, exit *Model) *Model {
	if entry == exit {
		return entry
	}
	c := *entry
	c.ExitABI = exit.ExitABI
	c.Partner = map[trampolines.Role]string{trampolines.Entry: entry.Partner[trampolines.Entry], trampolines.Exit: exit.Partner[trampolines.Exit]}
	c.Config = Config{}
	for k, v := range entry.Config {
		if !exitOption(arch, k) {
			c.Config[k] = v
		}
	}
	for k, v := range archHooks[arch].exitOptions[exit.ExitABI] {
		c.Config[k] = v
	}
	c.KnownBugs = append(bugsOf(entry.KnownBugs, false), bugsOf(exit.KnownBugs, true)...)
	c.Name = entry.Name + " entry, " + exit.Name + " exit"
	c.Doc = "entry as " + entry.Name + " (" + entry.Doc + "); return_to_handler as " + exit.Name
	for _, m := range ModelsOf(arch) {
		if sameModel(m, &c) {
			if slices.Equal(m.KnownBugs, c.KnownBugs) {
				return m
			}
			// the era's name, the halves' bugs
			same := *m
			same.KnownBugs = c.KnownBugs
			return &same
		}
	}
	return &c
}

// exitOption reports whether a CONFIG option comes with an exit ABI.
func exitOption(arch, opt string) bool {
	for _, set := range archHooks[arch].exitOptions {
		if _, ok := set[opt]; ok {
			return true
		}
	}
	return false
}

// sameModel reports whether two models build and judge a file alike.
func sameModel(a, b *Model) bool {
	return a.Graph == b.Graph && a.Prepare == b.Prepare && a.ExitABI == b.ExitABI && a.WithArgs == b.WithArgs && a.Pg == b.Pg &&
		a.RegsAliased == b.RegsAliased && a.PtRegs == b.PtRegs && a.NoFullRegs == b.NoFullRegs && maps.Equal(a.Config, b.Config) &&
		slices.Equal(a.Sites, b.Sites)
}

// properties lists the model's properties: the file's evidence for each
// one the file decides, otherwise (from) for the others.
func properties(arch string, m *Model, ev Evidence, otherwise, from string) []Property {
	var out []Property
	for _, name := range archHooks[arch].props {
		p := Property{Name: name, Value: modelValue(arch, m, name)}
		switch cited, ok := ev.Cited[name]; {
		case name == PropOffsets:
			p = offsetsProperty(ev)
		case name == PropFPTest:
			p.Evidence, p.From = archHooks[arch].fpTestWhy, fromArch
		case ok:
			p.Evidence, p.From = cited, fromFile
		case name == PropPrepare && m.Graph != trampolines.GraphViaCaller:
			p.Evidence, p.From = "no ftrace_graph_caller: graph tracing starts in ftrace_graph_func", m.graphFrom(ev, from)
		default:
			p.Evidence, p.From = otherwise, from
		}
		out = append(out, p)
	}
	return out
}

// graphFrom says what decided prepare_ftrace_return's absence: the file
// when it decides the graph path.
func (m *Model) graphFrom(ev Evidence, from string) string {
	if _, ok := ev.Cited[PropGraph]; ok {
		return fromFile
	}
	return from
}

// modelValue renders a model's value of a property.
func modelValue(arch string, m *Model, name string) string {
	yesNo := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	switch name {
	case PropGraph:
		if m.Graph == trampolines.GraphViaCaller {
			return "ftrace_graph_caller"
		}
		return "ftrace_graph_func"
	case PropPrepare:
		if m.Graph != trampolines.GraphViaCaller {
			return "not called"
		}
		return map[ftrace.PrepareABI]string{ftrace.PrepareIPParentFP: "(ip, parent, frame_pointer)", ftrace.PrepareRaSpIP: "(ra, sp, ip)",
			ftrace.PrepareParentIP: "(parent, ip)", ftrace.PrepareParentIPFP: "(parent, ip, frame_pointer)"}[m.Prepare]
	case PropSite:
		switch {
		case m.Pg:
			return "-pg (bl _mcount after the prologue)"
		case len(m.Sites) > 0:
			return string(m.Sites[0])
		}
		return "patchable entry"
	case PropExit:
		return map[trampolines.ExitABI]string{trampolines.ExitLegacy: "frame_pointer", trampolines.ExitRetRegs: "struct fgraph_ret_regs",
			trampolines.ExitFregs: "struct ftrace_regs"}[m.ExitABI]
	case PropArgs:
		switch {
		case m.PtRegs:
			return "no (struct pt_regs)"
		case m.WithArgs:
			return "yes (struct ftrace_regs)"
		}
		return "no (regs = NULL)"
	case PropRegsCaller:
		if m.RegsAliased {
			return "= ftrace_caller"
		}
		return "its own code"
	case PropDirect:
		return yesNo(m.Config[optDirect] == "y")
	case PropCallOps:
		return yesNo(m.Config[optCallOps] == "y")
	case PropFPTest:
		if a, err := regs.ArchByName(arch); err == nil {
			if ops, err := ftrace.OpsOf(a); err == nil {
				return yesNo(ops.GraphFPTest)
			}
		}
		return "unknown"
	}
	return ""
}

// offsetsProperty is the asm-offsets names the file uses.
func offsetsProperty(ev Evidence) Property {
	p := Property{Name: PropOffsets, Value: "none", Evidence: "the file uses none of the asm-offsets names", From: fromFile}
	if len(ev.Offsets) > 0 {
		p.Value = strings.Join(ev.Offsets, " ")
		p.Evidence = "first used at " + ev.OffsetsWhere
	}
	return p
}

// offsetsUsed lists the arch's asm-offsets names (regs.AsmOffsets) the
// text uses, in order of first use, and where the first is.
func (s *source) offsetsUsed(arch string) ([]string, string) {
	a, err := regs.ArchByName(arch)
	if err != nil {
		return nil, ""
	}
	var names []string
	for _, d := range regs.AsmOffsets(a) {
		names = append(names, regexp.QuoteMeta(d.Name))
	}
	if len(names) == 0 {
		return nil, ""
	}
	// Longest first, so that a name is not matched by its prefix.
	sort.SliceStable(names, func(i, j int) bool { return len(names[i]) > len(names[j]) })
	re := compiled(`\b(` + strings.Join(names, "|") + `)\b`)
	seen := map[string]bool{}
	var out []string
	where := ""
	for _, loc := range re.FindAllStringIndex(s.text, -1) {
		n := s.text[loc[0]:loc[1]]
		if seen[n] {
			continue
		}
		if where == "" {
			where = s.at(loc[0])
		}
		seen[n] = true
		out = append(out, n)
	}
	return out, where
}
