package harness

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"

	"trampemu/regs"
	"trampemu/trampolines"
)

// Semantics of a workload: how to draw arguments and what it must return.
type Semantics struct {
	// Args draws arguments (the first may be replaced by a buffer address
	// for functions returning through memory).
	Args func(r *rand.Rand) []uint64
	// Want computes the expected results: the return registers' values
	// (x86-64 rax[, rdx]; s390x r2), or for memory returns the words of the
	// buffer.
	Want func(args []uint64) []uint64
	// Memory is true when the result comes back through the buffer whose
	// address is argument 0 (s390x 16-byte structs).
	Memory bool
	// Traced is how many traced calls one call makes (for shadow-stack
	// counts): fib(n) makes fib-count(n) calls.
	Traced func(args []uint64) int
	// Replacement is the live-patch replacement's symbol and what it
	// returns (klp_target only).
	Replacement     string
	ReplacementWant func(args []uint64) []uint64
}

// KLPMark is what klp_target_new adds to a + b (0x6b6c70, "klp"): a live
// patch's result cannot be mistaken for the original body's.
const KLPMark = 0x6b6c70

// FaultInjected is the return value the error-injection kprobe user
// injects (-ENOMEM, as kernel/fail_function.c's default retval for an
// ERRNO-type function might be set to).
const FaultInjected = ^uint64(12 - 1) // -ENOMEM

func one(_ []uint64) int { return 1 }

func fibN(n uint64) uint64 {
	a, b := uint64(0), uint64(1)
	for i := uint64(0); i < n; i++ {
		a, b = b, a+b
	}
	return a
}

func fibCalls(n uint64) int {
	if n < 2 {
		return 1
	}
	return 1 + fibCalls(n-1) + fibCalls(n-2)
}

// ChainDepth is the depth of the chain workload's call: 130 nested traced
// calls (more than the 123-frame shadow stack holds with one graph user).
const ChainDepth = 130

// FibN is the fib workload's argument (177 traced calls).
const FibN = 10

var semantics = map[string]Semantics{
	"add": {
		Args: func(r *rand.Rand) []uint64 { return []uint64{r.Uint64(), r.Uint64()} },
		Want: func(a []uint64) []uint64 { return []uint64{a[0] + a[1]} }, Traced: one,
	},
	"add_ibt": {
		Args: func(r *rand.Rand) []uint64 { return []uint64{r.Uint64(), r.Uint64()} },
		Want: func(a []uint64) []uint64 { return []uint64{a[0] + a[1]} }, Traced: one,
	},
	"add_bti": {
		Args: func(r *rand.Rand) []uint64 { return []uint64{r.Uint64(), r.Uint64()} },
		Want: func(a []uint64) []uint64 { return []uint64{a[0] + a[1]} }, Traced: one,
	},
	"six": {
		Args: func(r *rand.Rand) []uint64 {
			return []uint64{r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64()}
		},
		Want: func(a []uint64) []uint64 { return []uint64{a[0] + a[1] + a[2] + a[3] + a[4] + a[5]} }, Traced: one,
	},
	"ret128": {
		Args: func(r *rand.Rand) []uint64 { return []uint64{r.Uint64(), r.Uint64()} },
		Want: func(a []uint64) []uint64 { return []uint64{a[0] + a[1], a[0] ^ a[1]} }, Traced: one,
	},
	"ret16": {
		Args: func(r *rand.Rand) []uint64 { return []uint64{0, r.Uint64(), r.Uint64()} },
		Want: func(a []uint64) []uint64 { return []uint64{a[1] + a[2], a[1] ^ a[2]} }, Memory: true, Traced: one,
	},
	"callee_saved": {
		Args:   func(r *rand.Rand) []uint64 { return []uint64{r.Uint64() >> 8} },
		Want:   nil, // per arch below
		Traced: one,
	},
	"fib": {
		Args:   func(r *rand.Rand) []uint64 { return []uint64{FibN} },
		Want:   func(a []uint64) []uint64 { return []uint64{fibN(a[0])} },
		Traced: func(a []uint64) int { return fibCalls(a[0]) },
	},
	"tail": {
		Args:   func(r *rand.Rand) []uint64 { return []uint64{r.Uint64(), r.Uint64()} },
		Want:   func(a []uint64) []uint64 { return []uint64{a[0] + 1 + a[1]} },
		Traced: func(a []uint64) int { return 2 },
	},
	"chain": {
		Args:   func(r *rand.Rand) []uint64 { return []uint64{ChainDepth} },
		Want:   func(a []uint64) []uint64 { return []uint64{a[0]} },
		Traced: func(a []uint64) int { return int(a[0]) + 1 },
	},
	"klp_target": {
		Args: func(r *rand.Rand) []uint64 { return []uint64{r.Uint64(), r.Uint64()} },
		Want: func(a []uint64) []uint64 { return []uint64{a[0] + a[1]} }, Traced: one,
		Replacement:     "klp_target_new",
		ReplacementWant: func(a []uint64) []uint64 { return []uint64{a[0] + a[1] + KLPMark} },
	},
	"fei_target": {
		Args: func(r *rand.Rand) []uint64 { return []uint64{r.Uint64(), r.Uint64()} },
		Want: func(a []uint64) []uint64 { return []uint64{a[0] + a[1]} }, Traced: one,
	},
	// lib/test_fprobe.c: div_factor = 3, the argument is above it.
	"fprobe_selftest_target": {
		Args:   selftestArg,
		Want:   func(a []uint64) []uint64 { return []uint64{a[0] / 3} },
		Traced: one,
	},
	"fprobe_selftest_target2": {
		Args:   selftestArg,
		Want:   func(a []uint64) []uint64 { return []uint64{a[0]/3 + 1} },
		Traced: one,
	},
}

// selftestArg draws one argument above 3 (lib/test_fprobe.c:
// get_random_u32_above(div_factor), here a full word).
func selftestArg(r *rand.Rand) []uint64 { return []uint64{max(r.Uint64(), 4)} }

// WorkloadSemantics returns a workload's semantics for an arch.
func WorkloadSemantics(a *regs.Arch, name string) (Semantics, error) {
	s, ok := semantics[name]
	if !ok {
		return Semantics{}, fmt.Errorf("no semantics for workload %q", name)
	}
	if name == "callee_saved" {
		// the arch's callee-saved registers hold x..nx (x86_64.go, s390x.go)
		k := mustHooks(a).calleeSavedSum
		s.Want = func(args []uint64) []uint64 { return []uint64{k * args[0]} }
	}
	return s, nil
}

// WorkloadNames lists an arch's workloads in registry order.
func WorkloadNames(a *regs.Arch) []string {
	var out []string
	for _, w := range trampolines.Workloads {
		if w.Arch == "" || w.Arch == a.Name {
			out = append(out, w.Name)
		}
	}
	return out
}

// FindWorkload looks a workload up; the error lists the valid names.
func FindWorkload(a *regs.Arch, name string) (trampolines.Workload, error) {
	for _, w := range trampolines.Workloads {
		if (w.Arch == "" || w.Arch == a.Name) && w.Name == name {
			return w, nil
		}
	}
	names := WorkloadNames(a)
	sort.Strings(names)
	return trampolines.Workload{}, fmt.Errorf("unknown %s workload %q: valid are %s", a.Name, name, strings.Join(names, ", "))
}
