package kernel

import (
	"slices"
	"strings"
	"testing"

	"trampemu/trampolines"
)

// TestKnownBugsPerModel: every arch's models and the known bugs each
// lists (symbol/kind), each with a cause and a citation; the arches
// without one list none.
func TestKnownBugsPerModel(t *testing.T) {
	fei := "ftrace_regs_caller/control"
	sp, a1, rec := "ftrace_regs_caller/wrong-value", "return_to_handler/clobber", "return_to_handler/backchain"
	// the v5.11-v6.2 parent word: both entries' sp alignment, the pt_regs below sp
	e1 := []string{"ftrace_caller/stack", "ftrace_regs_caller/stack", "ftrace_regs_caller/stack"}
	want := map[string]map[string][]string{
		"x86_64": {},
		"arm64":  {},
		"s390x":  {"v5.14-v6.4": {fei}, "v6.5-v6.12": {fei}},
		"riscv64": {"v5.11-v6.2": append([]string{sp, a1}, e1...), "v6.3-v6.4": {sp, a1}, "v6.5-v6.7": {sp}, "v6.8-v6.10": {sp},
			"v6.14-v6.15": {rec}, "v6.16+": {rec}},
	}
	for _, arch := range []string{"x86_64", "s390x", "arm64", "riscv64"} {
		t.Run(arch, func(t *testing.T) {
			ms := ModelsOf(arch)
			if len(ms) == 0 {
				t.Fatal("no models")
			}
			for name := range want[arch] {
				if !slices.ContainsFunc(ms, func(m *Model) bool { return m.Name == name }) {
					t.Errorf("no model %s", name)
				}
			}
			for _, m := range ms {
				var got []string
				for _, b := range m.KnownBugs {
					got = append(got, b.Symbol+"/"+b.Kind)
					if b.Cause == "" || !strings.Contains(b.Cause, "arch/") {
						t.Errorf("%s: %s/%s: cause %q names no kernel file", m.Name, b.Symbol, b.Kind, b.Cause)
					}
					if c := b.Citation(); !strings.HasPrefix(c, "fixed by ") && !(strings.HasPrefix(c, "unfixed as of ") && strings.Contains(c, "@")) {
						t.Errorf("%s: %s/%s: citation %q", m.Name, b.Symbol, b.Kind, c)
					}
					if (b.Symbol == "return_to_handler") != b.Role.Returns() {
						t.Errorf("%s: %s/%s: role %s", m.Name, b.Symbol, b.Kind, b.Role)
					}
				}
				if w := want[arch][m.Name]; !slices.Equal(got, w) {
					t.Errorf("%s: known bugs %v, want %v", m.Name, got, w)
				}
			}
		})
	}
}

// TestKnownBugsIn: a bug with a construct is the file's only when its
// text (comments removed) has the construct; one without, always.
func TestKnownBugsIn(t *testing.T) {
	m616, _ := ModelFor("riscv64", Version{6, 16})
	m62, _ := ModelFor("riscv64", Version{6, 2})
	s390, _ := ModelFor("s390x", Version{6, 5})
	cases := []struct {
		name string
		m    *Model
		text string
		want int
	}{
		{"the fix's s0", m616, "\taddi\ts0, sp, FREGS_SIZE_ON_STACK\n", 1},
		{"another s0", m616, "\taddi\ts0, sp, 4*SZREG\n", 0},
		{"only in a comment", m616, "/* addi s0, sp, FREGS_SIZE_ON_STACK */\n\taddi\ts0, sp, 4*SZREG\n", 0},
		{"a1 and SAVE_ALL's sp", m62, "\tREG_S x2,  PT_SP(sp)\n\tjalr\ta1\n", 2},
		{"the a1 fix", m62, "\tREG_S x2,  PT_SP(sp)\n\tjalr\ta2\n", 1},
		{"no construct needed", s390, "", 1},
		{"no model", nil, "\tjalr\ta1\n", 0},
	}
	for _, c := range cases {
		if got := KnownBugsIn(c.m, []byte(c.text)); len(got) != c.want {
			t.Errorf("%s: %d bugs %+v, want %d", c.name, len(got), got, c.want)
		}
	}
}

// TestComposeKnownBugs: a model composed of one era's entry and another's
// return_to_handler keeps the entry era's entry bugs and the exit era's
// return_to_handler bugs, and only those.
func TestComposeKnownBugs(t *testing.T) {
	s65, _ := ModelFor("s390x", Version{6, 5})
	s614, _ := ModelFor("s390x", Version{6, 14})
	r614, _ := ModelFor("riscv64", Version{6, 14})
	r63, _ := ModelFor("riscv64", Version{6, 3})
	cases := []struct {
		arch        string
		entry, exit *Model
		want        []string
	}{
		{"s390x", s65, s614, []string{"ftrace_regs_caller/control"}},
		{"s390x", s614, s65, nil},
		{"riscv64", r614, r63, []string{"return_to_handler/clobber"}},
		{"riscv64", r63, r614, []string{"ftrace_regs_caller/wrong-value", "return_to_handler/backchain"}},
	}
	for _, c := range cases {
		m := compose(c.arch, c.entry, c.exit)
		var got []string
		for _, b := range m.KnownBugs {
			got = append(got, b.Symbol+"/"+b.Kind)
			if b.Role.Returns() != (b.Symbol == "return_to_handler") || (b.Role == trampolines.Entry) == strings.HasPrefix(b.Symbol, "return") {
				t.Errorf("%s: role %s of %s", m.Name, b.Role, b.Symbol)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s entry + %s exit (%s): known bugs %v, want %v", c.entry.Name, c.exit.Name, m.Name, got, c.want)
		}
	}
}
