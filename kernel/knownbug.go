package kernel

import (
	"regexp"
	"strings"

	"trampemu/trampolines"
)

// KnownBug is a defect of a kernel era's own trampoline code that the
// checks find in every file of that era: a finding of exactly this kind,
// on this symbol, slot and register, in a file judged by a model that
// lists it, is reported as a known kernel bug with its citation and does
// not fail the check (check.markKnown); any other finding still does.
type KnownBug struct {
	// Role and Symbol are the trampoline the defect is in; Role also says
	// which half of a composed model (an entry era with another era's
	// return_to_handler) keeps it.
	Role   trampolines.Role `json:"role"`
	Symbol string           `json:"symbol"`
	// Kind, Slot and Register are what the finding shows as (check.Kind,
	// Finding.Slot, Finding.Register; "" where the finding has none).
	Kind     string `json:"kind"`
	Slot     string `json:"slot,omitempty"`
	Register string `json:"register,omitempty"`
	// Summary, when set, is how the finding's summary starts (for kinds
	// with neither slot nor register, so that no other finding of the kind
	// passes as this one); Workload, when set, the only workload it shows
	// on.
	Summary  string `json:"summary,omitempty"`
	Workload string `json:"workload,omitempty"`
	// Cause is the kernel file and the construct, with the versions read.
	Cause string `json:"cause"`
	// Construct, when set, is that construct (a regular expression over
	// the file's text without comments): a file of the era without it
	// (one that has the fix) does not have the bug (KnownBugsIn).
	Construct string `json:"construct,omitempty"`
	// Fix and FixedIn are the upstream commit that removed the defect and
	// the release it is in; Unfixed, when Fix and FixedIn are empty, the
	// newest tree read that still has it ("repo@commit").
	Fix     string `json:"fix,omitempty"`
	FixedIn string `json:"fixed_in,omitempty"`
	Unfixed string `json:"unfixed_as_of,omitempty"`
	// Variant, when set, is the registry variant (package trampolines)
	// written with the defect: a file whose other role is that variant,
	// as its model's registry partner (a lone mcount-dyn.S paired with the
	// era's return_to_handler), shows the bug as known too (PartnerKnown).
	Variant string `json:"variant,omitempty"`
}

// Citation says whether and where the bug was fixed: "fixed by C in vX",
// "fixed by vX, commit not identified" or "unfixed as of R@C".
func (b *KnownBug) Citation() string {
	switch {
	case b.Fix != "" && b.FixedIn != "":
		return "fixed by " + b.Fix + " in " + b.FixedIn
	case b.Fix != "":
		return "fixed by " + b.Fix
	case b.FixedIn != "":
		return "fixed by " + b.FixedIn + ", commit not identified"
	}
	return "unfixed as of " + b.Unfixed
}

// Matches reports whether a finding of a trampoline with this symbol and
// role is this bug: kind, slot and register equal, the summary starting
// with Summary and the workload Workload where those are set.
func (b *KnownBug) Matches(role trampolines.Role, symbol, kind, slot, register, summary, workload string) bool {
	return b.Role == role && b.Symbol == symbol && b.Kind == kind && b.Slot == slot && b.Register == register &&
		strings.HasPrefix(summary, b.Summary) && (b.Workload == "" || b.Workload == workload)
}

// Known returns the known bug of the file (Choice.KnownBugs) a finding
// of the trampoline (role, symbol) is, or nil.
func (c *Choice) Known(role trampolines.Role, symbol, kind, slot, register, summary, workload string) *KnownBug {
	if c == nil {
		return nil
	}
	for i := range c.KnownBugs {
		if b := &c.KnownBugs[i]; b.Matches(role, symbol, kind, slot, register, summary, workload) {
			return b
		}
	}
	return nil
}

// PartnerKnown returns the known bug of model m that a finding of the
// registry variant partner (role, symbol) is, when partner is the model's
// own registry partner for the role (Model.Partner) and the model lists
// it as written with the bug (KnownBug.Variant), or nil: the partner
// stands in for the file of the era the tool was not given.
func PartnerKnown(m *Model, partner string, role trampolines.Role, symbol, kind, slot, register, summary, workload string) *KnownBug {
	if m == nil || m.Partner[role] != partner {
		return nil
	}
	for i := range m.KnownBugs {
		if b := &m.KnownBugs[i]; b.Variant == partner && b.Matches(role, symbol, kind, slot, register, summary, workload) {
			return b
		}
	}
	return nil
}

// KnownBugsIn lists the known bugs of model m a file has: those whose
// Construct the file's text (comments removed) contains, and those
// without one.
func KnownBugsIn(m *Model, text []byte) []KnownBug {
	if m == nil {
		return nil
	}
	plain := stripComments(string(text))
	var out []KnownBug
	for _, b := range m.KnownBugs {
		if b.Construct == "" || regexp.MustCompile(b.Construct).MatchString(plain) {
			out = append(out, b)
		}
	}
	return out
}

// bugsOf lists the bugs of a role.
func bugsOf(bugs []KnownBug, exit bool) []KnownBug {
	var out []KnownBug
	for _, b := range bugs {
		if b.Role.Returns() == exit {
			out = append(out, b)
		}
	}
	return out
}

// attach adds bugs to each model whose whole era lies in from..to (zero
// to: open): the versions whose code has the defect.
func attach(models []*Model, from, to Version, bugs ...KnownBug) {
	for _, m := range models {
		if m.From.Less(from) {
			continue
		}
		open := to == (Version{})
		if !open && (m.To == (Version{}) || to.Less(m.To)) {
			continue
		}
		m.KnownBugs = append(m.KnownBugs, bugs...)
	}
}
