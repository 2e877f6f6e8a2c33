package check

import (
	"strings"
	"testing"

	"trampemu/harness"
	"trampemu/kernel"
	"trampemu/trampolines"
)

// fileTramp is a trampoline of a kernel file judged by the model of arch
// at version v, with the known bugs the file's text has.
func fileTramp(t *testing.T, arch string, v kernel.Version, role trampolines.Role, symbol, text string) harness.Tramp {
	t.Helper()
	m, err := kernel.ModelFor(arch, v)
	if err != nil {
		t.Fatal(err)
	}
	c := &kernel.Choice{Model: m, KnownBugs: kernel.KnownBugsIn(m, []byte(text))}
	return harness.Tramp{Name: "f.S:" + symbol, Role: role, Symbol: symbol, Model: c}
}

// TestMarkKnown: a finding becomes a known kernel bug only when kind,
// symbol, slot or register, workload and summary match a bug of the
// file's model that the file's text has (its construct); on every arch
// the same symptom of another model, another trampoline or a file
// without the construct stays an error. x86-64 and arm64 list no known
// bugs: their findings always stay errors.
func TestMarkKnown(t *testing.T) {
	v := func(maj, min int) kernel.Version { return kernel.Version{Major: maj, Minor: min} }
	const (
		fei     = "shadow stack not balanced after fei_target: frame of trampemu_checked_loop+0x3c (user graph) left behind"
		chain   = "the frame-record chain from s0 at the call to ftrace_return_to_handler does not reach the caller's frame record (s0 at entry)"
		ptSP    = "\tREG_S\tx2, PT_SP(sp)\n"
		jalrA1  = "\tmv\ta1, a0\n\tjalr\ta1\n"
		fregsS0 = "\taddi\ts0, sp, FREGS_SIZE_ON_STACK\n"
		// the v5.11-v6.2 SAVE_ABI and SAVE_ALL (mcount-dyn.S v5.15)
		e1Abi = "\taddi\tsp, sp, -SZREG\n\taddi\tsp, sp, -ABI_SIZE_ON_STACK\n"
		e1All = "\taddi\tsp, sp, -SZREG\n\taddi\tsp, sp, -PT_SIZE_ON_STACK\n\tREG_S x1,  PT_EPC(sp)\n" +
			"\taddi\tsp, sp, PT_SIZE_ON_STACK\n\tREG_L x1,  (sp)\n"
	)
	noTramp := harness.Tramp{}
	cases := []struct {
		name            string
		tramp, partner  harness.Tramp
		workload        string
		kind            Kind
		slot, reg, summ string
		want            string // the finding's severity after markKnown
		fix             string // its citation, for a known one
	}{
		{"x86_64: no known bugs", fileTramp(t, "x86_64", v(6, 19), trampolines.Exit, "return_to_handler", ""), noTramp,
			"add", WrongValue, "RSP", "", "RSP does not hold what it means", Error, ""},
		{"arm64: no known bugs", fileTramp(t, "arm64", v(6, 14), trampolines.Exit, "return_to_handler", ""), noTramp,
			"add", Clobber, "", "x0", "x0 changed across return_to_handler", Error, ""},
		{"s390x v6.5-v6.12 fei leak", fileTramp(t, "s390x", v(6, 5), trampolines.Entry, "ftrace_regs_caller", ""), noTramp,
			"fei_target", Control, "", "", fei, Known, "fixed by 7495e179b478 in v6.14"},
		{"s390x v5.14-v6.4 fei leak", fileTramp(t, "s390x", v(5, 14), trampolines.Entry, "ftrace_regs_caller", ""), noTramp,
			"fei_target", Control, "", "", fei, Known, "fixed by 7495e179b478 in v6.14"},
		{"s390x: the leak on another workload", fileTramp(t, "s390x", v(6, 5), trampolines.Entry, "ftrace_regs_caller", ""), noTramp,
			"add", Control, "", "", fei, Error, ""},
		{"s390x: another control finding", fileTramp(t, "s390x", v(6, 5), trampolines.Entry, "ftrace_regs_caller", ""), noTramp,
			"fei_target", Control, "", "", "control did not reach the traced function", Error, ""},
		{"s390x: the leak in ftrace_caller", fileTramp(t, "s390x", v(6, 5), trampolines.Entry, "ftrace_caller", ""), noTramp,
			"fei_target", Control, "", "", fei, Error, ""},
		{"s390x: the leak of a v6.14+ file", fileTramp(t, "s390x", v(6, 14), trampolines.Entry, "ftrace_regs_caller", ""), noTramp,
			"fei_target", Control, "", "", fei, Error, ""},
		{"riscv64 v6.8-v6.10 regs->sp", fileTramp(t, "riscv64", v(6, 8), trampolines.Entry, "ftrace_regs_caller", ptSP), noTramp,
			"add", WrongValue, "sp", "", "sp does not hold what it means", Known, "fixed by 7caa9765465f in v6.11"},
		{"riscv64 v6.3-v6.4 regs->sp", fileTramp(t, "riscv64", v(6, 3), trampolines.Entry, "ftrace_regs_caller", ptSP), noTramp,
			"add", WrongValue, "sp", "", "sp does not hold what it means", Known, "fixed by 7caa9765465f in v6.11"},
		{"riscv64: regs->sp without SAVE_ALL's store", fileTramp(t, "riscv64", v(6, 8), trampolines.Entry, "ftrace_regs_caller", "\tREG_S\tt4, PT_SP(sp)\n"), noTramp,
			"add", WrongValue, "sp", "", "sp does not hold what it means", Error, ""},
		{"riscv64: another slot", fileTramp(t, "riscv64", v(6, 8), trampolines.Entry, "ftrace_regs_caller", ptSP), noTramp,
			"add", WrongValue, "epc", "", "epc does not hold what it means", Error, ""},
		{"riscv64: sp of a v6.11+ ftrace_caller", fileTramp(t, "riscv64", v(6, 11), trampolines.Entry, "ftrace_caller", ptSP), noTramp,
			"add", WrongValue, "sp", "", "sp does not hold what it means", Error, ""},
		{"riscv64 v5.x a1", fileTramp(t, "riscv64", v(6, 1), trampolines.Exit, "return_to_handler", jalrA1), noTramp,
			"add", Clobber, "", "a1", "%a1 changed across return_to_handler", Known, "fixed by v6.3 at the latest, commit not identified"},
		{"riscv64: a1 of the entry's row, the partner's bug", fileTramp(t, "riscv64", v(6, 3), trampolines.Entry, "ftrace_caller", ""),
			fileTramp(t, "riscv64", v(6, 1), trampolines.Exit, "return_to_handler", jalrA1),
			"ret128", Clobber, "", "a1", "ret128 returned a wrong result (word 1)", Known, "fixed by v6.3 at the latest, commit not identified"},
		{"riscv64: a1 with a registry partner", fileTramp(t, "riscv64", v(6, 3), trampolines.Entry, "ftrace_caller", ""),
			harness.Tramp{Name: "rth-legacy-no-a1", Role: trampolines.Exit, Symbol: "return_to_handler", Variant: &trampolines.Variant{Name: "rth-legacy-no-a1"}},
			"ret128", Clobber, "", "a1", "ret128 returned a wrong result (word 1)", Error, ""},
		{"riscv64 v5.11-v6.2: a1 of the model's registry partner", fileTramp(t, "riscv64", v(5, 15), trampolines.Entry, "ftrace_caller", ""),
			harness.Tramp{Name: "rth-legacy-no-a1", Role: trampolines.Exit, Symbol: "return_to_handler", Variant: &trampolines.Variant{Name: "rth-legacy-no-a1"}},
			"ret128", Clobber, "", "a1", "ret128 returned a wrong result (word 1)", Known, "fixed by v6.3 at the latest, commit not identified"},
		{"riscv64 v5.11-v6.2: a1 of another registry exit", fileTramp(t, "riscv64", v(5, 15), trampolines.Entry, "ftrace_caller", ""),
			harness.Tramp{Name: "rth-legacy", Role: trampolines.Exit, Symbol: "return_to_handler", Variant: &trampolines.Variant{Name: "rth-legacy"}},
			"ret128", Clobber, "", "a1", "ret128 returned a wrong result (word 1)", Error, ""},
		{"riscv64 v5.11-v6.2 ftrace_caller's sp", fileTramp(t, "riscv64", v(5, 15), trampolines.Entry, "ftrace_caller", e1Abi), noTramp,
			"add", Stack, "", "sp", "sp not 16-byte aligned inside the entry trampoline", Known, "fixed by 6724a76cff85 in v6.3"},
		{"riscv64 v5.11-v6.2 ftrace_caller's sp without the two steps", fileTramp(t, "riscv64", v(5, 15), trampolines.Entry, "ftrace_caller", "\taddi\tsp, sp, -80\n"), noTramp,
			"add", Stack, "", "sp", "sp not 16-byte aligned inside the entry trampoline", Error, ""},
		{"riscv64 v5.11-v6.2 ftrace_regs_caller's sp at a call", fileTramp(t, "riscv64", v(5, 15), trampolines.Entry, "ftrace_regs_caller", e1All), noTramp,
			"add", Stack, "", "sp", "sp not 16-byte aligned at the call to ftrace_ops_list_func", Known, "fixed by 6724a76cff85 in v6.3"},
		{"riscv64 v5.11-v6.2 PT_EPC below sp", fileTramp(t, "riscv64", v(5, 15), trampolines.Entry, "ftrace_regs_caller", e1All), noTramp,
			"add", Stack, "", "", "the entry trampoline depends on memory below sp: an interrupt at ftrace_regs_caller+0x10 (ld ra,0(sp)) overwrites it", Known, "fixed by 6724a76cff85 in v6.3"},
		{"riscv64 v6.3-v6.4: the same summaries are errors", fileTramp(t, "riscv64", v(6, 3), trampolines.Entry, "ftrace_regs_caller", e1All), noTramp,
			"add", Stack, "", "", "the entry trampoline depends on memory below sp: an interrupt at ftrace_regs_caller+0x10 (ld ra,0(sp)) overwrites it", Error, ""},
		{"riscv64: a1 lost by a v6.5-v6.13 file", fileTramp(t, "riscv64", v(6, 5), trampolines.Exit, "return_to_handler", jalrA1), noTramp,
			"add", Clobber, "", "a1", "%a1 changed across return_to_handler", Error, ""},
		{"riscv64: a1 lost without the jump through a1", fileTramp(t, "riscv64", v(6, 1), trampolines.Exit, "return_to_handler", "\tjalr\ta2\n"), noTramp,
			"add", Clobber, "", "a1", "%a1 changed across return_to_handler", Error, ""},
		{"riscv64 v6.14+ record", fileTramp(t, "riscv64", v(6, 14), trampolines.Exit, "return_to_handler", fregsS0), noTramp,
			"add", Backchain, "", "", chain, Known, "unfixed as of linux-riscv/linux@826da2eea23b"},
		{"riscv64 v6.16+ record", fileTramp(t, "riscv64", v(6, 16), trampolines.Exit, "return_to_handler", fregsS0), noTramp,
			"chain", Backchain, "", "", chain, Known, "unfixed as of linux-riscv/linux@826da2eea23b"},
		{"riscv64: the v6.14 block's record", fileTramp(t, "riscv64", v(6, 14), trampolines.Exit, "return_to_handler", "\taddi\ts0, sp, ABI_SIZE_ON_STACK\n"), noTramp,
			"add", Backchain, "", "", chain, Error, ""},
		{"riscv64: a v6.5-v6.13 file's record", fileTramp(t, "riscv64", v(6, 11), trampolines.Exit, "return_to_handler", fregsS0), noTramp,
			"add", Backchain, "", "", chain, Error, ""},
		{"riscv64: another error of the v6.14+ return_to_handler", fileTramp(t, "riscv64", v(6, 14), trampolines.Exit, "return_to_handler", fregsS0), noTramp,
			"add", Stack, "", "", "return_to_handler wrote the caller's stack at entry sp+0", Error, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := Result{Workload: c.workload, Findings: []Finding{
				{Kind: c.kind, Severity: Error, Slot: c.slot, Register: c.reg, Summary: c.summ, Message: c.summ, Count: 1},
				{Kind: UnusedStore, Severity: Info, Slot: "t0", Summary: "t0 is written and never read", Count: 1},
			}}
			markKnown(&res, c.tramp, c.partner)
			f := res.Findings[0]
			if f.Severity != c.want {
				t.Fatalf("severity %s, want %s (%+v)", f.Severity, c.want, f)
			}
			if res.Findings[1].Severity != Info || res.Findings[1].Known != nil {
				t.Errorf("the info finding became %+v", res.Findings[1])
			}
			if c.want == Error {
				if f.Known != nil || f.Citation != "" || res.Errors() != 1 || res.KnownBugs() != 0 {
					t.Errorf("known %+v, errors %d, known bugs %d; want an error", f.Known, res.Errors(), res.KnownBugs())
				}
				return
			}
			if f.Known == nil || res.Errors() != 0 || res.KnownBugs() != 1 {
				t.Fatalf("known %+v, errors %d, known bugs %d; want one known bug", f.Known, res.Errors(), res.KnownBugs())
			}
			if got := f.Known.Citation(); got != c.fix || f.Citation != c.fix {
				t.Errorf("citation %q (finding %q), want %q", got, f.Citation, c.fix)
			}
			if f.Known.Cause == "" {
				t.Error("no cause")
			}
			if want := "known kernel bug (" + c.fix + "): " + string(c.kind); !strings.HasPrefix(f.String(), want) {
				t.Errorf("text %q, want it to start %q", f.String(), want)
			}
		})
	}
}
