package check

import (
	"sort"

	"trampemu/kernel"
)

// Kind is a finding's kind (the JSON "kind" field).
type Kind string

// Finding kinds.
const (
	// Clobber: a register the trampoline must preserve changed.
	Clobber Kind = "clobber"
	// Stack: sp not restored, a write outside the area the trampoline owns,
	// or sp misaligned at a call.
	Stack Kind = "stack"
	// Control: control did not reach the expected address.
	Control Kind = "control"
	// Fault: a guest memory fault, invalid instruction, or a run that never
	// finished (limit, timeout).
	Fault Kind = "fault"
	// StaleRead: C code read an ftrace_regs slot this invocation never wrote.
	StaleRead Kind = "stale-read"
	// WrongValue: a slot holds a value other than its meaning.
	WrongValue Kind = "wrong-value"
	// Backchain (s390x): the back chain from r15 at a host call does not
	// reach the traced function's caller and the driver.
	Backchain Kind = "backchain"
	// UnusedStore (info): a slot written and never read by anyone.
	UnusedStore Kind = "unused-store"
	// Volatile (info): what an exit trampoline does with registers that are
	// volatile after a return (s390x r3-r5).
	Volatile Kind = "volatile"
	// Unwind: a stack walk a modelled user makes (a return probe's
	// bpf_get_stackid) gives a chain other than the true one.
	Unwind Kind = "unwind"
	// Objtool: what the kernel's objtool warns about the trampoline's
	// object (x86-64); info, error under CONFIG_OBJTOOL_WERROR.
	Objtool Kind = "objtool"
	// Unvisited (info): executed instruction boundaries of the trampoline
	// the interrupt model did not interrupt, and why (its limits, a run
	// that stopped): what it found holds for the others only.
	Unvisited Kind = "unvisited"
)

// Kinds lists every kind, errors first.
var Kinds = []Kind{Clobber, Stack, Control, Fault, StaleRead, WrongValue, Backchain, Unwind, Objtool, UnusedStore, Volatile, Unvisited}

// Severity of a finding.
const (
	Error = "error"
	Info  = "info"
	// Known: an error finding that is a known kernel bug of the file's
	// kernel model (Finding.Known says which): shown, not failed.
	Known = "known"
)

// Severity returns the severity of a kind.
func (k Kind) Severity() string {
	if k == UnusedStore || k == Volatile || k == Objtool || k == Unvisited {
		return Info
	}
	return Error
}

// Finding is one problem (or note) found in a trampoline, aggregated over
// every invocation that showed it.
type Finding struct {
	Kind     Kind   `json:"kind"`
	Severity string `json:"severity"`
	Slot     string `json:"slot,omitempty"`
	Register string `json:"register,omitempty"`
	Message  string `json:"message"`
	// Count is how many invocations showed it.
	Count int `json:"count"`
	// Known is the kernel bug a Known finding is, with its cause and fix;
	// Citation says it in words ("fixed by C in vX", "unfixed as of R@C").
	Known    *kernel.KnownBug `json:"known,omitempty"`
	Citation string           `json:"citation,omitempty"`
	// Summary is the message without the first occurrence's example: what
	// findings are merged by.
	Summary string `json:"-"`
}

func (f Finding) String() string {
	s := string(f.Kind)
	if f.Known != nil {
		s = "known kernel bug (" + f.Known.Citation() + "): " + s
	}
	if f.Slot != "" {
		s += " " + f.Slot
	}
	if f.Register != "" {
		s += " %" + f.Register
	}
	return s + ": " + f.Message
}

// Metrics is the cost of one traced call's run of the trampoline under test
// (its own code only; host stubs and workloads are not counted).
type Metrics struct {
	Instructions float64 `json:"instructions"`
	Loads        float64 `json:"loads"`
	Stores       float64 `json:"stores"`
	LoadBytes    float64 `json:"load_bytes"`
	StoreBytes   float64 `json:"store_bytes"`
	// CacheLines is the number of distinct 64-byte data cache lines the
	// trampoline's loads and stores touch per run (implicit stack traffic
	// included; code fetches not counted).
	CacheLines float64 `json:"cache_lines"`
	// StackBytes is how far below its entry sp the trampoline reaches: its
	// deepest store, or the sp it calls C with, whichever is lower.
	StackBytes int `json:"stack_bytes"`
	// Calls is the number of trampoline runs the averages are over.
	Calls uint64 `json:"calls"`
	// Written lists the ftrace_regs slots the trampoline's code filled.
	Written []string `json:"written,omitempty"`
	// Boundaries is how many instruction boundaries of the trampoline the
	// interrupt model interrupted (each executed one at least once);
	// UnrecoverableInsns how many of them the arch's unwinder could not
	// find the traced function's caller at, and Unrecoverable those
	// instructions (symbol+offset; UnrecoverablePCs their addresses).
	Boundaries         int      `json:"boundaries"`
	UnrecoverableInsns int      `json:"unrecoverable_insns"`
	Unrecoverable      []string `json:"unrecoverable,omitempty"`
	UnrecoverablePCs   []uint64 `json:"-"`
	// ORC (x86-64, an image with an ORC table): the boundaries at which
	// the kernel's ORC unwinder, walking the table objtool generated from
	// the interrupted registers, did not reach the traced function's
	// caller and the end of the stack (the driver) without an error
	// (arch_stack_walk_reliable's verdict), and those instructions. HasORC
	// says the walks ran (ORC LOST is "-" otherwise).
	HasORC                bool     `json:"has_orc,omitempty"`
	ORCUnrecoverableInsns int      `json:"orc_unrecoverable_insns"`
	ORCUnrecoverable      []string `json:"orc_unrecoverable,omitempty"`
}

// Result is the outcome for one (variant, workload, scenario).
type Result struct {
	Arch     string `json:"arch"`
	Variant  string `json:"variant"`
	Role     string `json:"role"`
	Pair     string `json:"pair"`
	Workload string `json:"workload"`
	Scenario string `json:"scenario"`
	// Kernel is the kernel model a file was judged by (nil for a variant).
	Kernel   *Kernel   `json:"kernel,omitempty"`
	OK       bool      `json:"ok"`
	Findings []Finding `json:"findings"`
	Metrics  Metrics   `json:"metrics"`
}

// Kernel is the model a kernel file was judged by and why.
type Kernel struct {
	Model  string `json:"model"`
	Reason string `json:"reason"`
	// Properties are what the model is made of, each with its evidence.
	Properties []kernel.Property `json:"properties"`
	// MakefileVersion is the tree's top Makefile version ("" outside a
	// tree).
	MakefileVersion string `json:"makefile_version,omitempty"`
	// Note says how the file and the Makefile disagree.
	Note string `json:"note,omitempty"`
}

// Errors counts the error-severity findings.
func (r Result) Errors() int { return r.count(Error) }

// KnownBugs counts the findings that are known kernel bugs.
func (r Result) KnownBugs() int { return r.count(Known) }

func (r Result) count(severity string) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == severity {
			n++
		}
	}
	return n
}

// Has reports whether the result has a finding of kind k (on slot, when
// slot is not empty).
func (r Result) Has(k Kind, slot string) bool {
	for _, f := range r.Findings {
		if f.Kind == k && (slot == "" || f.Slot == slot) {
			return true
		}
	}
	return false
}

// KindSet returns the distinct kinds of the result's findings of a severity
// ("" for all).
func (r Result) KindSet(severity string) []Kind {
	seen := map[Kind]bool{}
	var out []Kind
	for _, f := range r.Findings {
		if (severity == "" || f.Severity == severity) && !seen[f.Kind] {
			seen[f.Kind] = true
			out = append(out, f.Kind)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// collector aggregates findings by (kind, slot, register, message).
type collector struct {
	byKey map[string]*Finding
	order []string
	errs  int // error-severity adds so far
}

// add records a finding. Findings with the same kind, slot, register and
// summary are one finding with a count; the message is the summary plus the
// first occurrence's example (which names the values seen).
func (c *collector) add(k Kind, slot, reg, summary, example string) {
	c.addSev(k, k.Severity(), slot, reg, summary, example)
}

// addSev is add with a severity other than the kind's (objtool warnings
// under CONFIG_OBJTOOL_WERROR).
func (c *collector) addSev(k Kind, sev, slot, reg, summary, example string) {
	key := string(k) + "\x00" + slot + "\x00" + reg + "\x00" + summary
	if sev == Error {
		c.errs++
	}
	if c.byKey == nil {
		c.byKey = map[string]*Finding{}
	}
	if f, ok := c.byKey[key]; ok {
		f.Count++
		return
	}
	msg := summary
	if example != "" {
		msg += " (first seen: " + example + ")"
	}
	c.byKey[key] = &Finding{Kind: k, Severity: sev, Slot: slot, Register: reg, Message: msg, Count: 1, Summary: summary}
	c.order = append(c.order, key)
}

func (c *collector) findings() []Finding {
	out := make([]Finding, 0, len(c.order))
	for _, k := range c.order {
		out = append(out, *c.byKey[k])
	}
	rank := map[Kind]int{}
	for i, k := range Kinds {
		rank[k] = i
	}
	sort.SliceStable(out, func(i, j int) bool { return rank[out[i].Kind] < rank[out[j].Kind] })
	return out
}
