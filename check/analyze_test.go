package check

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
)

// Observations built by hand, with no emulator: the analysis is a function
// of them and the arch's convention.

const (
	handOps      = 0x5000_0000_0000_1000 // the ops pointer the kernel set up
	handPoison   = 0x5afe000000000000    // the run's poison constant
	handDriverSP = 0x8000                // offsets from the stack base
	handEntrySP  = 0x7e00
)

// handInvocation is a clean run of an entry trampoline on arch a: it
// returns where it should with every register kept and calls
// ftrace_ops_list_func once with the right arguments (and, where the arch
// keeps a back chain, a chain from its sp through the caller to the
// driver).
func handInvocation(t *testing.T, a *regs.Arch) *harness.Invocation {
	t.Helper()
	conv, err := conventionOf(a)
	if err != nil {
		t.Fatal(err)
	}
	stack := a.Memory.Stack.Base
	inv := &harness.Invocation{Role: trampolines.Entry, Left: true,
		AboveBefore: make([]byte, harness.AboveWindow), AboveAfter: make([]byte, harness.AboveWindow)}
	inv.Ops, inv.DriverSP, inv.PoisonXor, inv.GraphActive = handOps, stack+handDriverSP, handPoison, true
	for i := range inv.Clobbered {
		inv.Clobbered[i] = 0xc10bbe4e00000000 | uint64(i)
	}
	for i := range inv.Before {
		inv.Before[i] = uint64(0xc0+i)<<56 | 0x1234_5678
	}
	sp := stack + handEntrySP
	inv.Before[a.SP] = sp
	fn := a.Memory.Text.Base + 0x100 // the traced function's call site
	ret := fn + uint64(a.McountInsnSize)
	parent := a.Memory.Text.Base + 0x40
	if a.Link < 0 { // the call pushed ip+size; above it the caller's return
		a.PutWord(inv.AboveBefore[0:], ret)
		a.PutWord(inv.AboveBefore[8:], parent)
	} else {
		inv.Before[0] = ret // the call site's return register
		inv.Before[a.Link] = parent
	}
	copy(inv.AboveAfter, inv.AboveBefore)
	inv.EntryRet, inv.WantPC, inv.LeavePC = ret, ret, ret
	inv.After = inv.Before
	inv.After[a.SP] = conv.wantSP(trampolines.Entry, inv, a.SP)
	hc := harness.HostCall{Name: harness.HostOpsListFunc, Regs: inv.Before}
	callSP := sp - 256
	hc.Regs[a.SP] = callSP
	if a.Link < 0 {
		hc.Regs[a.SP] -= 8 // the call into C pushed its return address
	}
	// parent_ip from where the arch's convention finds it (placed above
	// for x86-64 and s390x; another arch may keep it elsewhere).
	hc.Regs[a.Args[0]], hc.Regs[a.Args[1]], hc.Regs[a.Args[2]] = fn, conv.parentIP(inv), handOps
	// A sound chain (an arch whose convention has no chain hook ignores it).
	hc.Backchain = []uint64{callSP, sp, inv.DriverSP, 0}
	inv.Calls = []harness.HostCall{hc}
	if adjust := handArch[a.Name]; adjust != nil {
		adjust(a, inv, ret, parent)
	}
	return inv
}

// handArch reshapes the clean observations for an arch whose call site or
// frame chain differs from the shape above, from its own test file
// (check/arm64_test.go: x30 = ip+4 and x9 = parent at entry, frame
// records as the chain).
var handArch = map[string]func(a *regs.Arch, inv *harness.Invocation, ret, parent uint64){}

// directOpsLeave makes inv the entry of a site whose CALL_OPS literal is a
// direct call's ops (harness installDirectOps): the trampoline calls no C
// and leaves for the direct function (off bytes past it: elsewhere).
// The sp and link register it leaves with are what the arch's convention
// wants of a direct call's entry (x86-64: the return address still
// pushed; arm64: x30 the traced function's, for the direct function).
func directOpsLeave(a *regs.Arch, inv *harness.Invocation, off uint64) {
	conv, _ := conventionOf(a)
	inv.DirectOps, inv.Direct, inv.Calls = true, true, nil
	inv.WantPC = a.Memory.Text.Base + 0x800
	inv.LeavePC = inv.WantPC + off
	inv.After[a.SP] = conv.wantSP(trampolines.Entry, inv, a.SP)
	if conv.directLink != nil {
		inv.After[a.Link] = conv.directLink(inv)
	}
}

// handBatch is one finished call of add with the invocation.
func handBatch(inv *harness.Invocation) *harness.Batch {
	c := &harness.Call{Workload: "add", Done: true, Results: []uint64{3}, Want: []uint64{3},
		Invocations: []*harness.Invocation{inv}}
	return &harness.Batch{Calls: []*harness.Call{c}}
}

func handSubject(a *regs.Arch) Subject {
	return Subject{Arch: a, Tramp: harness.Tramp{Name: "hand", Role: trampolines.Entry, Symbol: "ftrace_caller"}}
}

// firstCalleeSaved is a callee-saved register other than sp.
func firstCalleeSaved(a *regs.Arch) int {
	for _, i := range a.CalleeSaved {
		if i != a.SP {
			return i
		}
	}
	panic(a.Name + ": no callee-saved register")
}

// TestAnalyzeHandObservations: every check below is proven on data alone,
// for every arch: the clean run passes with no finding, each broken one
// is caught with its kind.
func TestAnalyzeHandObservations(t *testing.T) {
	cases := []struct {
		name string
		// breakIt changes the clean observations; nil: the clean run.
		breakIt func(a *regs.Arch, b *harness.Batch)
		kind    Kind
		// want is in the finding's message.
		want string
		// chain: only on arches whose convention checks the frame chain;
		// align: only where sp alignment is checked at every boundary.
		chain, align bool
	}{
		{name: "clean"},
		{name: "callee-saved register changed", kind: Clobber, want: "changed across the entry trampoline",
			breakIt: func(a *regs.Arch, b *harness.Batch) { b.Calls[0].Invocations[0].After[firstCalleeSaved(a)]++ }},
		{name: "C's value left in a callee-saved register", kind: Clobber, want: "the value a C function left there",
			breakIt: func(a *regs.Arch, b *harness.Batch) {
				inv := b.Calls[0].Invocations[0]
				inv.After[firstCalleeSaved(a)] = inv.Clobbered[firstCalleeSaved(a)]
			}},
		{name: "poison loaded into a callee-saved register", kind: Clobber, want: "stack poison",
			breakIt: func(a *regs.Arch, b *harness.Batch) {
				inv := b.Calls[0].Invocations[0]
				inv.After[firstCalleeSaved(a)] = inv.PoisonXor ^ 0x7e00
			}},
		{name: "wrong ops pointer", kind: WrongValue, want: "callback argument op is wrong",
			breakIt: func(a *regs.Arch, b *harness.Batch) { b.Calls[0].Invocations[0].Calls[0].Regs[a.Args[2]] = handOps + 8 }},
		{name: "wrong parent_ip", kind: WrongValue, want: "callback argument parent_ip is wrong",
			breakIt: func(a *regs.Arch, b *harness.Batch) { b.Calls[0].Invocations[0].Calls[0].Regs[a.Args[1]] += 4 }},
		{name: "returned elsewhere", kind: Control, want: "did not return where it should",
			breakIt: func(a *regs.Arch, b *harness.Batch) { b.Calls[0].Invocations[0].LeavePC += 4 }},
		{name: "sp not restored", kind: Stack, want: "sp not restored",
			breakIt: func(a *regs.Arch, b *harness.Batch) { b.Calls[0].Invocations[0].After[a.SP] -= 16 }},
		{name: "caller's stack written", kind: Stack, want: "wrote the caller's stack at entry sp+96",
			breakIt: func(a *regs.Arch, b *harness.Batch) { b.Calls[0].Invocations[0].AboveAfter[96] ^= 1 }},
		{name: "kernel not called", kind: Control, want: "called ftrace_ops_list_func 0 times",
			breakIt: func(a *regs.Arch, b *harness.Batch) { b.Calls[0].Invocations[0].Calls[0].Name = "elsewhere" }},
		{name: "a direct call's ops: straight to its direct_call", kind: "",
			breakIt: func(a *regs.Arch, b *harness.Batch) { directOpsLeave(a, b.Calls[0].Invocations[0], 0) }},
		{name: "a direct call's ops: left elsewhere, no C called", kind: Control, want: "called ftrace_ops_list_func 0 times",
			breakIt: func(a *regs.Arch, b *harness.Batch) { directOpsLeave(a, b.Calls[0].Invocations[0], 4) }},
		{name: "wrong result", kind: Clobber, want: "add returned a wrong result",
			breakIt: func(a *regs.Arch, b *harness.Batch) { b.Calls[0].Results[0] = 4 }},
		{name: "never ran", kind: Control, want: "never ran",
			breakIt: func(a *regs.Arch, b *harness.Batch) { b.Calls[0].Invocations = nil }},
		{name: "run stopped by the limit", kind: Control, want: "instruction limit at",
			breakIt: func(a *regs.Arch, b *harness.Batch) {
				b.Stop = &harness.Stop{Err: errors.New("limit"), Emulated: true, Kind: "instruction limit", Runaway: true, Arch: a.Name}
			}},
		{name: "sp misaligned at an interrupted boundary", kind: Stack, want: "-byte aligned inside the entry trampoline", align: true,
			breakIt: func(a *regs.Arch, b *harness.Batch) {
				inv := b.Calls[0].Invocations[0]
				inv.Interrupted = true
				inv.Interrupt.PC, inv.Interrupt.SP = inv.EntryRet-uint64(a.McountInsnSize), inv.Before[a.SP]-72
			}},
		{name: "frame chain misses the driver", kind: Backchain, want: "does not reach the driver's frame", chain: true,
			breakIt: func(a *regs.Arch, b *harness.Batch) {
				hc := &b.Calls[0].Invocations[0].Calls[0]
				hc.Backchain = hc.Backchain[:len(hc.Backchain)-2] // the driver's frame and its end
			}},
	}
	for _, a := range regs.Arches {
		conv, err := conventionOf(a)
		if err != nil {
			t.Fatalf("%s: %v", a.Name, err)
		}
		for _, c := range cases {
			t.Run(a.Name+"/"+c.name, func(t *testing.T) {
				if (c.chain && conv.callChain == nil) || (c.align && conv.spAlign == 0) {
					// No such check: the same broken data is no finding.
					c.kind, c.want = "", ""
				}
				b := handBatch(handInvocation(t, a))
				if c.breakIt != nil {
					c.breakIt(a, b)
				}
				r, err := Analyze(handSubject(a), []*harness.Batch{b})
				if err != nil {
					t.Fatal(err)
				}
				if c.kind == "" {
					if len(r.Findings) != 0 || !r.OK {
						t.Fatalf("clean observations gave findings: %v", r.Findings)
					}
					if c.breakIt == nil && r.Metrics.Calls != 1 {
						t.Fatalf("the clean run was not analysed: %d runs", r.Metrics.Calls)
					}
					return
				}
				var got []string
				for _, f := range r.Findings {
					if f.Kind == c.kind && strings.Contains(f.Message, c.want) {
						if r.OK && f.Severity == Error {
							t.Fatalf("error finding but OK: %v", r.Findings)
						}
						return
					}
					got = append(got, f.String())
				}
				t.Fatalf("want a %s finding with %q, got %q", c.kind, c.want, got)
			})
		}
	}
}

// TestAnalyzeUnknownArch: an arch without a convention is an error naming
// it, not a silent pass.
func TestAnalyzeUnknownArch(t *testing.T) {
	a := *regs.X86_64
	a.Name = "pdp11"
	_, err := Analyze(Subject{Arch: &a}, nil)
	if err == nil || !strings.Contains(err.Error(), "pdp11") {
		t.Fatalf("err = %v, want one naming pdp11", err)
	}
}

// TestKeptSetsFromABIRoles: the register sets derived from the ABI roles
// are exactly the lists the conventions spelled out before (arch/x86/
// kernel/ftrace_64.S and arch/s390/kernel/mcount.S conventions, reference
// x86_64.md and s390x.md); a new arch gets its sets from its regs roles.
func TestKeptSetsFromABIRoles(t *testing.T) {
	want := map[string]map[string][]string{
		regs.X86_64.Name: {
			"entry": {"rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "rbp", "rbx", "r12", "r13", "r14", "r15"},
			"exit":  {"rax", "rdx", "rbp", "rbx", "r12", "r13", "r14", "r15"},
		},
		regs.S390X.Name: {
			"entry":    {"r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "r13"},
			"exit":     {"r2", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "r13"},
			"volatile": {"r3", "r4", "r5"},
		},
	}
	want[regs.ARM64.Name] = map[string][]string{
		"entry": {"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x18",
			"x19", "x20", "x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28", "x29"},
		"exit":     {"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x19", "x20", "x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28", "x29"},
		"volatile": {"x8"},
	}
	want[regs.RISCV64.Name] = map[string][]string{
		"entry": {"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "gp", "tp",
			"s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11"},
		"exit": {"a0", "a1", "gp", "tp", "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11"},
	}
	for _, a := range regs.Arches {
		conv, err := conventionOf(a)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string][]int{
			"entry": conv.keep[trampolines.Entry], "exit": conv.keep[trampolines.Exit],
			"volatile": conv.volatileInfo[trampolines.Exit],
		}
		for set, idx := range got {
			names := make([]string, len(idx))
			for i, r := range idx {
				names[i] = a.Regs[r].Name
			}
			w := slices.Clone(want[a.Name][set])
			slices.Sort(w)
			slices.Sort(names)
			if fmt.Sprint(names) != fmt.Sprint(w) {
				t.Errorf("%s %s: %v, want %v", a.Name, set, names, w)
			}
		}
	}
}
