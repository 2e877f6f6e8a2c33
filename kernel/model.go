package kernel

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"trampemu/ftrace"
	"trampemu/trampolines"
)

// Version is a kernel version, major.minor.
type Version struct{ Major, Minor int }

// String renders v as "v6.14".
func (v Version) String() string { return fmt.Sprintf("v%d.%d", v.Major, v.Minor) }

// Less orders versions.
func (v Version) Less(w Version) bool {
	return v.Major < w.Major || (v.Major == w.Major && v.Minor < w.Minor)
}

var versionRE = regexp.MustCompile(`^v?(\d+)\.(\d+)(?:[.+-].*)?$`)

// ParseVersion reads "v6.14", "6.14", "6.14.3", "v6.14-rc2", or a model
// name ("v6.14+", "v6.5-v6.13": its first version).
func ParseVersion(s string) (Version, error) {
	m := versionRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return Version{}, fmt.Errorf("kernel version %q: want vMAJOR.MINOR, e.g. v6.14", s)
	}
	maj, _ := strconv.Atoi(m[1])
	min, _ := strconv.Atoi(m[2])
	if maj > 1000 || min > 1000 {
		return Version{}, fmt.Errorf("kernel version %q: want vMAJOR.MINOR, e.g. v6.14", s)
	}
	return Version{maj, min}, nil
}

// Model is one era of an arch's ftrace trampolines: what the kernel C side
// expects from them and what it gives them.
type Model struct {
	Name string // "v6.14+"
	Arch string
	// From and To bound the era (To inclusive; zero To: open).
	From, To Version
	// Graph is how function-graph tracing starts on this era.
	Graph trampolines.GraphEntry
	// ExitABI is what return_to_handler passes to ftrace_return_to_handler.
	ExitABI trampolines.ExitABI
	// WithArgs: ftrace_caller hands the callbacks a struct ftrace_regs
	// (DYNAMIC_FTRACE_WITH_ARGS); false: regs = NULL.
	WithArgs bool
	// RegsAliased: ftrace_regs_caller is the same code as ftrace_caller
	// (s390x before the ftrace_regs_entry macro).
	RegsAliased bool
	// Prepare is how ftrace_graph_caller calls prepare_ftrace_return
	// (Graph == GraphViaCaller; unset otherwise).
	Prepare ftrace.PrepareABI
	// NoFullRegs: the era predates arch_ftrace_get_regs and kprobes on
	// ftrace, so no user asks the entry trampoline for a full pt_regs.
	NoFullRegs bool
	// NoLivePatch: the era's kernel cannot live patch (no HAVE_LIVEPATCH
	// on the arch), so no live-patch user redirects its traced calls.
	NoLivePatch bool
	// PtRegs: the entry hands the callbacks a struct pt_regs as its
	// ftrace_regs (arm64 DYNAMIC_FTRACE_WITH_REGS, v5.5-v6.1: without
	// WITH_ARGS struct ftrace_regs wraps a pt_regs, include/linux/ftrace.h
	// v5.11-v6.1), not the arch's own struct ftrace_regs.
	PtRegs bool
	// Sites are the call-site forms the era's files have, the usual one
	// first (nil: the arch's only form); a file's own form (Choice.Site)
	// must be one of them.
	Sites []trampolines.CallSite
	// Fregs is the era of struct ftrace_regs the era's files are built
	// against where the arch's changed (regs.Arch.FregsForms: riscv64
	// v6.16's direct_tramp and CONFIG_CC_IS_CLANG's t2-t6); "" is the
	// arch's Frame.
	Fregs string
	// Pg: the traced functions call the entry from gcc's -pg call site
	// after their prologue, and the callbacks get (ip, parent_ip) only
	// (arm64 v4.19-v5.4; trampolines.Variant.Pg).
	Pg bool
	// Partner names the registry variant of each role used when the file
	// does not define that role itself.
	Partner map[trampolines.Role]string
	// Config is the CONFIG options of a distribution kernel of the era.
	Config Config
	// KnownBugs are the defects of the era's own trampoline code the
	// checks find (knownbug.go): reported with their citation, not failed.
	KnownBugs []KnownBug
	// Doc says what marks the era.
	Doc string
}

// Contains reports whether v falls in the model's era.
func (m *Model) Contains(v Version) bool {
	if v.Less(m.From) {
		return false
	}
	return m.To == (Version{}) || !m.To.Less(v)
}

// Span renders the era, "v6.5-v6.13" or "v6.14+".
func (m *Model) Span() string {
	if m.To == (Version{}) {
		return m.From.String() + "+"
	}
	return m.From.String() + "-" + m.To.String()
}

// ModelsOf lists the models of an arch, oldest first.
func ModelsOf(arch string) []*Model {
	var out []*Model
	for _, m := range Models {
		if m.Arch == arch {
			out = append(out, m)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].From.Less(out[j].From) })
	return out
}

// ModelFor returns the model of an arch whose era holds v.
func ModelFor(arch string, v Version) (*Model, error) {
	for _, m := range ModelsOf(arch) {
		if m.Contains(v) {
			return m, nil
		}
	}
	return nil, fmt.Errorf("no %s kernel model covers %s: the models are %s", arch, v, ModelNames(arch))
}

// ModelNames lists the models of an arch for error messages.
func ModelNames(arch string) string {
	var names []string
	for _, m := range ModelsOf(arch) {
		names = append(names, m.Name+" ("+m.Doc+")")
	}
	return strings.Join(names, "; ")
}

// merge returns the union of option sets, later ones winning.
func merge(sets ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, s := range sets {
		for k, v := range s {
			out[k] = v
		}
	}
	return out
}

func yes(names ...string) map[string]string {
	out := map[string]string{}
	for _, n := range names {
		out[n] = "y"
	}
	return out
}

// standIns hold each arch's stand-ins (x86_64.go, s390x.go).
var standIns = map[string]standIn{}

// standIn is how an arch stands in for kernel functions a trampoline file
// names but the tool does not model: each a weak symbol on an instruction
// that traps, so reaching one is a fault that names it.
type standIn struct {
	trap  string
	funcs []string
}

// StandIns returns assembler text defining the arch's stand-ins.
func StandIns(arch string) string {
	s := standIns[arch]
	var b strings.Builder
	b.WriteString("\t.text\n")
	for _, f := range s.funcs {
		fmt.Fprintf(&b, "\t.weak %s\n%s:\n\t%s\n", f, f, s.trap)
	}
	return b.String()
}
