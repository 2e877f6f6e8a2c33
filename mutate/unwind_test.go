package mutate

import (
	"strings"
	"testing"

	"trampemu/harness"
	"trampemu/regs"
)

// TestUnwindHintMutants: a mutant that deletes or moves an UNWIND_HINT_*
// line assembles to the original's machine code, yet the checks report it
// differently, so it is killed, not equivalent: rth-fixed without
// 20a0bc10272f's UNWIND_HINT_FUNC (or with the hint before its subq) loses
// every boundary to the ORC walk (ORC LOST 16 of 16, the original 8);
// ftrace_regs_caller without the hint before its direct-call RET makes
// objtool warn. On the arches without objtool the image has no ORC table
// and no warnings: their classes cannot change.
func TestUnwindHintMutants(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			cases := map[string][]struct{ variant, where, mutation, detail string }{
				regs.X86_64.Name: {
					{"rth-fixed", "trampolines/x86_64/rth_fixed.S:12", "delete: delete `UNWIND_HINT_FUNC`", "ORC-lost boundaries 16, the original's unwind-lost boundaries 8, ORC-lost boundaries 8"},
					{"rth-fixed", "trampolines/x86_64/rth_fixed.S:11", "swap: swap `subq $8, %rsp` with `UNWIND_HINT_FUNC`", "ORC-lost boundaries 16"},
					{"ftrace_regs_caller", "trampolines/x86_64/ftrace_regs_caller.S:63", "delete: delete `UNWIND_HINT_FUNC`", "objtool warns: ftrace_regs_caller: return with modified stack frame"},
				},
			}[a.Name]
			if len(cases) == 0 {
				exit, err := harness.Current(a, "exit")
				if err != nil {
					t.Fatal(err)
				}
				p, err := harness.Pair(a, exit)
				if err != nil {
					t.Fatal(err)
				}
				im, err := setup(a, exit, p).Build()
				if err != nil {
					t.Fatal(err)
				}
				if len(unwindData(im)) != 0 || len(objtoolKeys(im)) != 0 {
					t.Errorf("%d bytes of ORC table, objtool warnings %v: %s has no objtool", len(unwindData(im)), objtoolKeys(im), a.Name)
				}
				return
			}
			origs := originals{}
			for _, c := range cases {
				o := origs.get(t, a, c.variant)
				if len(o.unwind) == 0 {
					t.Fatalf("%s: the original's image has no ORC table", c.variant)
				}
				m := o.find(c.where, c.mutation)
				if m == nil {
					t.Errorf("%s: no mutant %q at %s", c.variant, c.mutation, c.where)
					continue
				}
				im, err := setup(a, m.Apply(o.t), o.partner).Build()
				if err != nil {
					t.Fatal(err)
				}
				if string(code(im)) != string(o.code) {
					t.Errorf("%s %s: the machine code changed: not a hint-only mutant", c.variant, m.Mutation())
				}
				oc := o.classify(testConfig(a), *m)
				if oc.Class != Killed || !strings.Contains(oc.Detail, c.detail) {
					t.Errorf("%s %s %s: %s (%s), want killed by %q", c.variant, m.Where(), m.Mutation(), oc.Class, oc.Detail, c.detail)
				}
			}
		})
	}
}
