package check

import (
	"sort"

	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
)

// Summary is one variant's check over every workload in its intended
// pairing, with its cost and speed.
type Summary struct {
	Arch    string `json:"arch"`
	Variant string `json:"variant"`
	Role    string `json:"role"`
	Model   string `json:"model"`
	Pair    string `json:"pair"`
	Kernel  bool   `json:"kernel"`
	// Bug is the known defect of the variant (the checks must find it).
	Bug     string   `json:"bug,omitempty"`
	Errors  int      `json:"errors"`
	Kinds   []Kind   `json:"kinds"`
	Results []Result `json:"results"`
	// Metrics are those of the add workload (every workload runs the same
	// trampoline path).
	Metrics Metrics `json:"metrics"`
	Speed   *Speed  `json:"speed,omitempty"`
}

// Regression reports an error finding in a merged variant with no known
// bug: what must never happen.
func (s Summary) Regression() bool { return s.Kernel && s.Bug == "" && s.Errors > 0 }

// AllOptions tune All.
type AllOptions struct {
	Calls     int    // calls per workload (0: 8)
	Seed      uint64 //
	SpeedN    uint64 // traced calls for the speed measurement (0: none)
	Scenario  string // "" = default
	Workloads []string
	// Progress, when set, is called after each variant.
	Progress func(arch, variant string)
}

// All checks every registry variant of the arches.
func All(arches []*regs.Arch, o AllOptions) ([]Summary, error) {
	sc, err := harness.FindUserSet(orDefault(o.Scenario))
	if err != nil {
		return nil, err
	}
	var out []Summary
	for _, a := range arches {
		for _, v := range harness.VariantsOf(a, "") {
			t, err := harness.FromVariant(v)
			if err != nil {
				return nil, err
			}
			rs, err := Run(Config{Arch: a, Tramp: t, Scenario: sc, Calls: o.Calls, Seed: o.Seed, Workloads: o.Workloads})
			if err != nil {
				return nil, err
			}
			s := summarize(a, v, rs)
			if o.SpeedN > 0 && (v.Graph != trampolines.GraphNone || v.Role.Returns()) {
				setup, err := harness.IntendedSetup(a, t)
				if err != nil {
					return nil, err
				}
				sp, err := MeasureSpeed(setup, "add", o.SpeedN, false)
				if err == nil {
					s.Speed = &sp
				}
			}
			out = append(out, s)
			if o.Progress != nil {
				o.Progress(a.Name, v.Name)
			}
		}
	}
	return out, nil
}

func orDefault(s string) string {
	if s == "" {
		return "default"
	}
	return s
}

func summarize(a *regs.Arch, v *trampolines.Variant, rs []Result) Summary {
	s := Summary{Arch: a.Name, Variant: v.Name, Role: string(v.Role), Model: v.Model, Kernel: v.Kernel, Bug: v.Bug, Results: rs}
	kinds := map[Kind]bool{}
	for _, r := range rs {
		s.Pair = r.Pair
		s.Errors += r.Errors()
		for _, f := range r.Findings {
			if f.Severity == Error {
				kinds[f.Kind] = true
			}
		}
		if r.Workload == "add" {
			s.Metrics = r.Metrics
		}
	}
	for k := range kinds {
		s.Kinds = append(s.Kinds, k)
	}
	sort.Slice(s.Kinds, func(i, j int) bool { return s.Kinds[i] < s.Kinds[j] })
	return s
}
