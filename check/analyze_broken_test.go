package check

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"trampemu/asm"
	"trampemu/ftrace"
	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
)

// Broken runs built by hand (analyze_test.go's clean run, changed): each
// case pins the exact findings the analysis gives, message text, register
// and slot included, so that a change in any rule or in any number a
// message carries fails here, in the package's own tests (what gremlins
// runs: docs/gremlins.md).

// handExitArch reshapes the clean exit observations for an arch whose
// frame chain at the call into C differs (check/arm64_test.go).
var handExitArch = map[string]func(a *regs.Arch, inv *harness.Invocation){}

// handExit is a clean run of return_to_handler on arch a: it returns to the
// original return address with the traced function's registers kept and
// calls ftrace_return_to_handler once.
func handExit(t *testing.T, a *regs.Arch) (*harness.Invocation, Subject) {
	t.Helper()
	conv, err := conventionOf(a)
	if err != nil {
		t.Fatal(err)
	}
	inv := handInvocation(t, a)
	inv.Role = trampolines.Exit
	inv.EntryRet = 0
	inv.WantPC = a.Memory.Text.Base + 0x48 // the original return address
	inv.LeavePC = inv.WantPC
	inv.After = inv.Before
	inv.After[a.SP] = conv.wantSP(trampolines.Exit, inv, a.SP)
	if a.Link >= 0 {
		inv.After[a.Link] = inv.WantPC
	}
	inv.Calls[0].Name = harness.HostReturnToHandler
	if adjust := handExitArch[a.Name]; adjust != nil {
		adjust(a, inv)
	}
	return inv, Subject{Arch: a, Tramp: harness.Tramp{Name: "hand-exit", Role: trampolines.Exit, Symbol: "return_to_handler"}}
}

// want is one expected finding: kind, slot, register and the whole message.
type want struct {
	kind          Kind
	slot, reg     string
	message       string
	severity      string // "" = the kind's
	count         int    // 0 = 1
	allowOthersOf Kind   // other findings of this kind may be there too
}

// expectFindings fails unless r has exactly the findings of ws (in any
// order), and r.OK says whether any is an error.
func expectFindings(t *testing.T, r Result, ws ...want) {
	t.Helper()
	left := append([]Finding(nil), r.Findings...)
	for _, w := range ws {
		found := -1
		for i, f := range left {
			if f.Kind == w.kind && f.Slot == w.slot && f.Register == w.reg && f.Message == w.message {
				found = i
				break
			}
		}
		if found < 0 {
			t.Errorf("missing %s %s %%%s: %q\n  got %q", w.kind, w.slot, w.reg, w.message, findingTexts(r.Findings))
			continue
		}
		f := left[found]
		sev := w.severity
		if sev == "" {
			sev = w.kind.Severity()
		}
		cnt := max(w.count, 1)
		if f.Severity != sev || f.Count != cnt {
			t.Errorf("%s: severity %s count %d, want %s %d", f, f.Severity, f.Count, sev, cnt)
		}
		left = append(left[:found], left[found+1:]...)
	}
	for _, f := range left {
		allowed := false
		for _, w := range ws {
			allowed = allowed || (w.allowOthersOf != "" && f.Kind == w.allowOthersOf)
		}
		if !allowed {
			t.Errorf("unexpected finding %s (count %d)", f, f.Count)
		}
	}
	errs := false
	for _, f := range r.Findings {
		errs = errs || f.Severity == Error
	}
	if r.OK == errs {
		t.Errorf("OK %v with findings %q", r.OK, findingTexts(r.Findings))
	}
}

func findingTexts(fs []Finding) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.String()
	}
	return out
}

func analyzeHand(t *testing.T, s Subject, bs ...*harness.Batch) Result {
	t.Helper()
	r, err := Analyze(s, bs)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// volatileNames is the list the volatile info finding names.
func volatileNames(a *regs.Arch, conv convention) string {
	var names []string
	for _, r := range conv.volatileInfo[trampolines.Exit] {
		names = append(names, "%"+a.Regs[r].Name)
	}
	return strings.Join(names, ", ")
}

// exitInfo is the info finding a clean exit gives on an arch that reports
// its volatile registers (kept, as the hand run keeps every register).
func exitInfo(a *regs.Arch, conv convention) []want {
	if len(conv.volatileInfo[trampolines.Exit]) == 0 {
		return nil
	}
	return []want{{kind: Volatile, message: volatileNames(a, conv) + " kept across return_to_handler: volatile after a return, the ABI does not ask for it"}}
}

func TestAnalyzeBrokenRunsExactly(t *testing.T) {
	for _, a := range regs.Arches {
		conv, err := conventionOf(a)
		if err != nil {
			t.Fatal(err)
		}
		run := func(name string, f func(t *testing.T)) { t.Run(a.Name+"/"+name, f) }
		entry := func(t *testing.T) (*harness.Invocation, *harness.Batch, Subject) {
			inv := handInvocation(t, a)
			return inv, handBatch(inv), handSubject(a)
		}
		hex := func(v uint64) string { return fmt.Sprintf("%#x", v) }

		run("clean entry metrics", func(t *testing.T) {
			inv, b, s := entry(t)
			r := analyzeHand(t, s, b)
			expectFindings(t, r)
			// The C function's frame starts at its sp: the stack used.
			if want := int(inv.Before[a.SP] - inv.Calls[0].Regs[a.SP]); r.Metrics.StackBytes != want {
				t.Errorf("stack %d, want %d", r.Metrics.StackBytes, want)
			}
			if r.Metrics.CacheLines != 0 || r.Metrics.Calls != 1 {
				t.Errorf("unprobed run: cache lines %g calls %d, want 0 and 1", r.Metrics.CacheLines, r.Metrics.Calls)
			}
		})
		run("wrong result, by register", func(t *testing.T) {
			_, b, s := entry(t)
			b.Calls[0].Results[0] = 4
			expectFindings(t, analyzeHand(t, s, b), want{kind: Clobber, reg: a.Regs[a.Ret[0]].Name,
				message: "add returned a wrong result (word 0) (first seen: 0x4, want 0x3)"})
		})
		run("wrong result in memory", func(t *testing.T) {
			_, b, s := entry(t)
			b.Calls[0].Results[0], b.Calls[0].InMemory = 4, true
			expectFindings(t, analyzeHand(t, s, b), want{kind: Clobber, message: "add returned a wrong result (word 0) (first seen: 0x4, want 0x3)"})
		})
		run("wrong word past the return registers", func(t *testing.T) {
			_, b, s := entry(t)
			n := len(a.Ret)
			c := b.Calls[0]
			c.Want = make([]uint64, n+1)
			c.Results = make([]uint64, n+1)
			c.Results[n] = 9
			// The word past the return registers names none.
			expectFindings(t, analyzeHand(t, s, b), want{kind: Clobber,
				message: fmt.Sprintf("add returned a wrong result (word %d) (first seen: 0x9, want 0x0)", n)})
		})
		run("fewer results than wanted", func(t *testing.T) {
			_, b, s := entry(t)
			b.Calls[0].Want = []uint64{3, 5}
			expectFindings(t, analyzeHand(t, s, b))
		})
		run("wrong result of an unfinished call", func(t *testing.T) {
			_, b, s := entry(t)
			b.Calls[0].Results[0], b.Calls[0].Done = 4, false
			expectFindings(t, analyzeHand(t, s, b))
		})
		run("wrong result after another error", func(t *testing.T) {
			inv, b, s := entry(t)
			b.Calls[0].Results[0] = 4
			inv.LeavePC += 4
			expectFindings(t, analyzeHand(t, s, b), want{kind: Control,
				message: fmt.Sprintf("the entry trampoline did not return where it should (first seen: went to %s, want %s)", hex(inv.LeavePC), hex(inv.WantPC))})
		})
		run("a live patch's original body ran", func(t *testing.T) {
			inv, b, s := entry(t)
			to := a.Memory.Text.Base + 0x200
			inv.IPMods = []harness.IPMod{{User: "livepatch", To: to}}
			b.Calls[0].ReplacementWant = []uint64{7}
			expectFindings(t, analyzeHand(t, s, b), want{kind: Control,
				message: fmt.Sprintf("add's original body ran although livepatch redirected it (first seen: returned 0x3, the function's own result; redirected to %s, which returns 0x7)", hex(to))})
		})
		run("a live patch's replacement ran", func(t *testing.T) {
			inv, b, s := entry(t)
			inv.IPMods = []harness.IPMod{{User: "livepatch", To: a.Memory.Text.Base + 0x200}}
			b.Calls[0].ReplacementWant, b.Calls[0].Results = []uint64{7}, []uint64{7}
			expectFindings(t, analyzeHand(t, s, b))
		})
		run("the last redirect counts", func(t *testing.T) {
			inv, b, s := entry(t)
			inv.IPMods = []harness.IPMod{{User: "first", SetRet: true, Ret: 9}, {User: "last", SetRet: true, Ret: 5}}
			b.Calls[0].Results = []uint64{9}
			expectFindings(t, analyzeHand(t, s, b), want{kind: Clobber, reg: a.Regs[a.Ret[0]].Name,
				message: "add returned a wrong result (word 0) (first seen: 0x9, want 0x5)"})
		})
		run("an error injection's value returned", func(t *testing.T) {
			inv, b, s := entry(t)
			inv.IPMods = []harness.IPMod{{User: "first", SetRet: true, Ret: 9}, {User: "last", SetRet: true, Ret: 5}}
			b.Calls[0].Results = []uint64{5}
			expectFindings(t, analyzeHand(t, s, b))
		})
		run("a redirect seen by an exit run does not count", func(t *testing.T) {
			inv, b, s := entry(t)
			ex, _ := handExit(t, a)
			ex.IPMods = []harness.IPMod{{User: "livepatch", SetRet: true, Ret: 5}}
			b.Calls[0].Invocations = append(b.Calls[0].Invocations, ex)
			_ = inv
			expectFindings(t, analyzeHand(t, s, b))
		})
		run("sp not restored, its numbers", func(t *testing.T) {
			inv, b, s := entry(t)
			sp := inv.Before[a.SP]
			want0 := conv.wantSP(trampolines.Entry, inv, a.SP)
			inv.After[a.SP] = want0 - 16
			expectFindings(t, analyzeHand(t, s, b), want{kind: Stack, reg: a.Regs[a.SP].Name,
				message: fmt.Sprintf("sp not restored by the entry trampoline (first seen: leaves with sp = entry sp %+d, want %+d)", int64(want0-16-sp), int64(want0-sp))})
		})
		run("kernel called twice", func(t *testing.T) {
			inv, b, s := entry(t)
			inv.Calls = append(inv.Calls, inv.Calls[0])
			expectFindings(t, analyzeHand(t, s, b), want{kind: Control,
				message: "the entry trampoline called ftrace_ops_list_func 2 times (first seen: the kernel calls the tracers once per traced call)"})
		})
		run("stale slot read", func(t *testing.T) {
			inv, b, s := entry(t)
			inv.Reads = []harness.Read{{Caller: "kprobe", Accessor: "regs_get_register", Slot: "R10", Stale: true},
				{Caller: "kprobe", Accessor: "regs_get_register", Slot: "R11"}}
			expectFindings(t, analyzeHand(t, s, b), want{kind: StaleRead, slot: "R10",
				message: "kprobe read R10 through regs_get_register, but the entry trampoline never wrote it"})
		})
		run("stale stack word read", func(t *testing.T) {
			inv, b, s := entry(t)
			inv.Reads = []harness.Read{{Caller: "kernel", Accessor: "ftrace_regs_get_stack_pointer", Addr: inv.Before[a.SP] - 24, Stale: true}}
			expectFindings(t, analyzeHand(t, s, b), want{kind: StaleRead,
				message: "kernel read a stack word nobody wrote (ftrace_regs_get_stack_pointer) (first seen: at entry sp -24)"})
		})
		run("caller's stack stored to", func(t *testing.T) {
			inv, b, s := entry(t)
			sp := inv.Before[a.SP]
			pc := a.Memory.Text.Base + 0x300
			inv.Accesses = []harness.Access{
				{PC: pc, Addr: sp + 203, Size: 1, Store: true},                     // reported at its word, sp+200
				{PC: pc + 4, Addr: sp + 152, Size: 8, Store: true},                 // sp+152, before it in order
				{PC: pc + 8, Addr: sp + harness.AboveWindow, Size: 8, Store: true}, // outside the window
				{PC: pc + 12, Addr: sp + 160, Size: 8, Load: true},                 // a load
				{PC: pc + 16, Addr: sp - 4096, Size: 8, Store: true},               // its own frame, deeper than the call's
			}
			r := analyzeHand(t, s, b)
			expectFindings(t, r,
				want{kind: Stack, message: fmt.Sprintf("the entry trampoline wrote the caller's stack at entry sp+152 (first seen: stored by %s)", hex(pc+4))},
				want{kind: Stack, message: fmt.Sprintf("the entry trampoline wrote the caller's stack at entry sp+200 (first seen: stored by %s)", hex(pc))})
			if r.Findings[0].Message > r.Findings[1].Message {
				t.Errorf("not in offset order: %q", findingTexts(r.Findings))
			}
			if r.Metrics.StackBytes != 4096 {
				t.Errorf("stack %d, want 4096 (the deepest store)", r.Metrics.StackBytes)
			}
		})
		run("a store far below sp is no frame", func(t *testing.T) {
			inv, b, s := entry(t)
			inv.Accesses = []harness.Access{{Addr: inv.Before[a.SP] - 1<<20, Size: 8, Store: true}}
			r := analyzeHand(t, s, b)
			if want := int(inv.Before[a.SP] - inv.Calls[0].Regs[a.SP]); r.Metrics.StackBytes != want {
				t.Errorf("stack %d, want %d", r.Metrics.StackBytes, want)
			}
			// Nor a call into C 1 MiB below the entry sp.
			inv.Accesses = nil
			inv.Calls[0].Regs[a.SP] = inv.Before[a.SP] - 1<<20
			if r := analyzeHand(t, s, b); r.Metrics.StackBytes != 0 {
				t.Errorf("stack %d, want 0 for a call 1 MiB below", r.Metrics.StackBytes)
			}
		})
		run("a call into C at the entry sp", func(t *testing.T) {
			// No frame of its own: the stack used is what the call itself
			// pushed (x86-64: its return address, as a probed run's access
			// log counts the push; no other arch's call writes the stack).
			inv, b, s := entry(t)
			pushed := uint64(0)
			if a.Link < 0 {
				pushed = 8
			}
			inv.Calls[0].Regs[a.SP] = inv.Before[a.SP] - pushed
			r := analyzeHand(t, s, b)
			expectFindings(t, r)
			if r.Metrics.StackBytes != int(pushed) {
				t.Errorf("stack %d, want %d", r.Metrics.StackBytes, pushed)
			}
			// A call above the entry sp is no depth either.
			inv.Calls[0].Regs[a.SP] = inv.Before[a.SP] + 64 - pushed
			if r := analyzeHand(t, s, b); r.Metrics.StackBytes != 0 {
				t.Errorf("stack %d, want 0 for a call above the entry sp", r.Metrics.StackBytes)
			}
		})
		run("caller's stack changed, the kernel's writes apart", func(t *testing.T) {
			inv, b, s := entry(t)
			sp := inv.Before[a.SP]
			inv.AboveAfter[96] ^= 1
			inv.AboveAfter[200] ^= 1
			inv.AboveAfter[240] ^= 1
			inv.GoWrites = []harness.GoWrite{
				{Addr: sp + 88, Size: 8},  // ends where 96 starts: not it
				{Addr: sp + 104, Size: 8}, // starts where 96 ends: not it
				{Addr: sp + 196, Size: 8}, // overlaps 200
				{Addr: sp + 240, Size: 1},
			}
			expectFindings(t, analyzeHand(t, s, b), want{kind: Stack, message: "the entry trampoline wrote the caller's stack at entry sp+96 (first seen: stored)"})
		})
		run("the last word of the caller's stack changed", func(t *testing.T) {
			inv, b, s := entry(t)
			inv.AboveAfter[harness.AboveWindow-1] ^= 1
			expectFindings(t, analyzeHand(t, s, b), want{kind: Stack,
				message: fmt.Sprintf("the entry trampoline wrote the caller's stack at entry sp+%d (first seen: stored)", harness.AboveWindow-8)})
		})
		run("a store at the entry sp itself", func(t *testing.T) {
			inv, b, s := entry(t)
			pc := a.Memory.Text.Base + 0x300
			inv.Accesses = []harness.Access{{PC: pc, Addr: inv.Before[a.SP], Size: 8, Store: true}}
			var ws []want
			if !conv.allowedAbove(trampolines.Entry, 0) {
				ws = append(ws, want{kind: Stack, message: fmt.Sprintf("the entry trampoline wrote the caller's stack at entry sp+0 (first seen: stored by %s)", hex(pc))})
			}
			expectFindings(t, analyzeHand(t, s, b), ws...)
		})
		run("a frame left on the shadow stack, with and without users", func(t *testing.T) {
			_, b, s := entry(t)
			fn := a.Memory.Text.Base + 0x100
			b.Calls[0].Shadow = []ftrace.Unbalanced{{Task: "t1", Start: 0, End: 4, Left: true,
				Frames: []ftrace.ShadowFrame{{Base: 0, Func: fn, Ret: fn + 8, Retp: 0x10}, {Base: 4, Func: fn, Ret: fn + 8, Retp: 0x18}},
				Users:  [][]string{{}, {"graph", "fprobe"}}}}
			expectFindings(t, analyzeHand(t, s, b), want{kind: Control,
				message: fmt.Sprintf("shadow stack not balanced after add: frame of %s (no user); %s (user graph, fprobe) left behind (first seen: task t1: curr_ret_stack 4 after the call, 0 before (never popped: frame at word 0: func %s, ret %s, retp 0x10; frame at word 4: func %s, ret %s, retp 0x18))",
					hex(fn), hex(fn), hex(fn), hex(fn+8), hex(fn), hex(fn+8))})
		})
		run("cache lines of probed runs", func(t *testing.T) {
			inv, b, s := entry(t)
			inv.Probed = true
			base := a.Memory.Stack.Base + 0x4000
			inv.Accesses = []harness.Access{
				{Addr: base + 60, Size: 8, Load: true}, // two lines
				{Addr: base + 64, Size: 4, Load: true}, // the second again
				{Addr: base + 256, Load: true},         // size 0: its line
			}
			inv2 := handInvocation(t, a)
			inv2.Probed = true
			inv2.Accesses = []harness.Access{{Addr: base, Size: 8, Load: true}}
			b2 := handBatch(inv2)
			r := analyzeHand(t, s, b, b2)
			if r.Metrics.CacheLines != 2 || r.Metrics.Calls != 2 {
				t.Errorf("cache lines %g over %d runs, want (3+1)/2 = 2 over 2", r.Metrics.CacheLines, r.Metrics.Calls)
			}
			inv3 := handInvocation(t, a)
			inv3.Probed, inv3.Left = true, false
			inv3.Accesses = inv.Accesses
			if r := analyzeHand(t, s, handBatch(inv3)); r.Metrics.CacheLines != 0 {
				t.Errorf("a run that never left counted: %g lines", r.Metrics.CacheLines)
			}
		})
		run("the structure handed to C below the callee's area", func(t *testing.T) {
			inv, b, s := entry(t)
			hc := &inv.Calls[0]
			callSP := hc.Regs[a.SP]
			if a.Link < 0 {
				callSP += 8
			}
			hc.Layout = a.Frame // no bytes: no slot is read
			hc.Base = callSP + conv.calleeArea - 8
			expectFindings(t, analyzeHand(t, s, b), want{kind: Stack, reg: a.Regs[a.SP].Name,
				message: fmt.Sprintf("the structure handed to ftrace_ops_list_func lies below the caller's sp+%d (first seen: at sp %+d)", conv.calleeArea, int64(conv.calleeArea)-8)})
			hc.Base += 8
			expectFindings(t, analyzeHand(t, s, b))
		})
		run("sp misaligned at the call into C", func(t *testing.T) {
			inv, b, s := entry(t)
			hc := &inv.Calls[0]
			hc.Regs[a.SP] -= 4
			callSP := hc.Regs[a.SP]
			if a.Link < 0 {
				callSP += 8
			}
			align := conv.callAlign
			if align == 0 {
				align = 8
			}
			r := analyzeHand(t, s, b)
			expectFindings(t, r, want{kind: Stack, reg: a.Regs[a.SP].Name,
				message:       fmt.Sprintf("sp not %d-byte aligned at the call to ftrace_ops_list_func (first seen: sp = %s)", align, hex(callSP)),
				allowOthersOf: Backchain})
			hc.Regs[a.SP] -= align - 4 // aligned again, lower
			r = analyzeHand(t, s, b)
			var stack []string
			for _, f := range r.Findings {
				if f.Kind == Stack {
					stack = append(stack, f.String())
				}
			}
			if len(stack) != 0 {
				t.Errorf("aligned sp reported: %q", stack)
			}
		})
		run("never ran", func(t *testing.T) {
			_, b, s := entry(t)
			b.Calls[0].Invocations = nil
			expectFindings(t, analyzeHand(t, s, b), want{kind: Control, message: "the entry trampoline (ftrace_caller) never ran (first seen: no traced call reached it)"})
		})
		run("exit never ran", func(t *testing.T) {
			_, b, _ := entry(t)
			_, s := handExit(t, a)
			s.Setup.Entry.Name = "hand-entry"
			expectFindings(t, analyzeHand(t, s, b), want{kind: Control,
				message: "return_to_handler (return_to_handler) never ran (first seen: no traced call was hooked by the graph entry path of hand-entry)"})
		})
		run("the failed run", func(t *testing.T) {
			_, b, s := entry(t)
			b.Stop = &harness.Stop{Err: errors.New("no memory"), Arch: a.Name}
			expectFindings(t, analyzeHand(t, s, b), want{kind: Fault, message: "the run failed (first seen: no memory)"})
		})
		run("a fault with its address and machine", func(t *testing.T) {
			_, b, s := entry(t)
			st := &harness.Stop{Err: errors.New("fault"), Emulated: true, Fault: true, Kind: "memory fault", Arch: a.Name,
				PC: a.Memory.Text.Base + 0x40, Where: "ftrace_caller+0x10", Insn: "load insn", Detail: "read unmapped",
				Addr: 0xdead0, HasAddr: true}
			b.Stop = st
			expectFindings(t, analyzeHand(t, s, b), want{kind: Fault,
				message: "memory fault at ftrace_caller+0x10: load insn (first seen: read unmapped (address 0xdead0)" + machineState(st) + ")"})
			st.HostErr = errors.New("the stub failed")
			expectFindings(t, analyzeHand(t, s, b), want{kind: Fault,
				message: "memory fault at ftrace_caller+0x10: load insn (first seen: the stub failed" + machineState(st) + ")"})
			st.Arch = "pdp11"
			if !strings.HasSuffix(machineState(st), "registers: ?") {
				t.Errorf("unknown arch's registers: %q", machineState(st))
			}
		})
		run("a jump to no code is the trampoline's", func(t *testing.T) {
			inv, b, s := entry(t)
			inv.Left = false
			b.Calls[0].Done, b.Calls[0].Results = false, nil
			pc := uint64(0x7777_0000)
			b.Stop = &harness.Stop{Err: errors.New("fetch"), Emulated: true, Fault: true, Kind: "fetch fault", Arch: a.Name,
				PC: pc, Addr: pc, HasAddr: true}
			expectFindings(t, analyzeHand(t, s, b), want{kind: Control,
				message: fmt.Sprintf("the entry trampoline did not return where it should (first seen: went to %s (no code there), want %s)", hex(pc), hex(inv.WantPC))})
			b.Stop.Addr = pc + 8 // a data fault there: a fault
			r := analyzeHand(t, s, b)
			if len(r.Findings) != 1 || r.Findings[0].Kind != Fault {
				t.Errorf("a data fault: %q, want one fault", findingTexts(r.Findings))
			}
		})
		run("a per-call limit says how it was chosen", func(t *testing.T) {
			_, b, s := entry(t)
			s.CallLimit = "10x the clean run"
			st := &harness.Stop{Err: errors.New("limit"), Emulated: true, Runaway: true, Kind: "instruction limit", Arch: a.Name,
				Where: "ftrace_caller+0x8", Insn: "jmp insn", Detail: "limit of 100 instructions per call"}
			b.Stop = st
			expectFindings(t, analyzeHand(t, s, b), want{kind: Control,
				message: "instruction limit at ftrace_caller+0x8: jmp insn (first seen: limit of 100 instructions per call (10x the clean run)" + machineState(st) + ")"})
			st.Detail = "limit of 100 instructions" // the run's limit: no per-call reason
			expectFindings(t, analyzeHand(t, s, b), want{kind: Control,
				message: "instruction limit at ftrace_caller+0x8: jmp insn (first seen: limit of 100 instructions" + machineState(st) + ")"})
		})
		run("a stop that is neither fault nor runaway", func(t *testing.T) {
			_, b, s := entry(t)
			st := &harness.Stop{Err: errors.New("timeout"), Emulated: true, Kind: "timeout", Arch: a.Name, Where: "w", Insn: "i", Detail: "d"}
			b.Stop = st
			expectFindings(t, analyzeHand(t, s, b), want{kind: Fault, message: "timeout at w: i (first seen: d" + machineState(st) + ")"})
		})
		run("an unknown instruction ran", func(t *testing.T) {
			z, err := newAnalyzer(handSubject(a))
			if err != nil {
				t.Fatal(err)
			}
			z.unknownRan([]asm.Inst{{Addr: 0x1234, Text: "vfoo"}})
			fs := z.col.findings()
			if len(fs) != 1 || fs[0].Kind != Fault || fs[0].Message != "instruction with memory accesses the tool cannot describe (not probed, not counted) (first seen: 0x1234: vfoo)" {
				t.Errorf("got %q", findingTexts(fs))
			}
		})
		run("clean exit", func(t *testing.T) {
			inv, s := handExit(t, a)
			r := analyzeHand(t, s, handBatch(inv))
			expectFindings(t, r, exitInfo(a, conv)...)
			if r.Metrics.Calls != 1 {
				t.Errorf("calls %d", r.Metrics.Calls)
			}
		})
		run("exit did not call the kernel", func(t *testing.T) {
			inv, s := handExit(t, a)
			inv.Calls[0].Name = "elsewhere"
			expectFindings(t, analyzeHand(t, s, handBatch(inv)), append(exitInfo(a, conv), want{kind: Control,
				message: "return_to_handler called ftrace_return_to_handler 0 times (first seen: only ftrace_return_to_handler knows the original return address)"})...)
		})
		run("exit calling the kernel twice (a tail call)", func(t *testing.T) {
			inv, s := handExit(t, a)
			inv.Calls = append(inv.Calls, inv.Calls[0])
			expectFindings(t, analyzeHand(t, s, handBatch(inv)), exitInfo(a, conv)...)
		})
		run("rethook did not call its handler", func(t *testing.T) {
			inv, s := handExit(t, a)
			s.Tramp.Role, s.Tramp.Symbol = trampolines.Rethook, "arch_rethook_trampoline"
			var ws []want
			for _, w := range exitInfo(a, conv) {
				w.message = strings.Replace(w.message, "return_to_handler", "arch_rethook_trampoline", 1)
				ws = append(ws, w)
			}
			expectFindings(t, analyzeHand(t, s, handBatch(inv)), append(ws, want{kind: Control,
				message: "arch_rethook_trampoline called " + harness.HostRethookCallback + " 0 times (first seen: only rethook_trampoline_handler knows the original return address)"})...)
		})
		run("a stack walk at the return", func(t *testing.T) {
			inv, s := handExit(t, a)
			fn := a.Memory.Text.Base + 0x100
			inv.StackWalks = []harness.StackWalk{
				{User: "bpf-ret", Func: fn, Got: []uint64{0x10, 0x20}, Want: []uint64{0x10, 0x30}, Err: "no ORC entry"},
				{User: "same", Func: fn, Got: []uint64{0x10}, Want: []uint64{0x10}},
				{User: "no truth", Func: fn, Got: []uint64{0x10}},
			}
			// Walks seen in runs of another role or interrupted runs are
			// not the trampoline's.
			other := handInvocation(t, a)
			other.StackWalks = []harness.StackWalk{{User: "entry", Func: fn, Got: []uint64{1}, Want: []uint64{2}}}
			irq, _ := handExit(t, a)
			irq.Interrupted = true
			irq.Interrupt.PC, irq.Interrupt.SP = a.Memory.Text.Base+0x804, irq.Before[a.SP]-16
			irq.StackWalks = other.StackWalks
			b := handBatch(inv)
			b.Calls[0].Invocations = append(b.Calls[0].Invocations, other, irq)
			expectFindings(t, analyzeHand(t, s, b), append(exitInfo(a, conv), want{kind: Unwind,
				message: fmt.Sprintf("bpf-ret's stack walk at the return of %s is not the true chain (first seen: got [0x10 0x20], want [0x10 0x30]; the unwinder: no ORC entry)", hex(fn))})...)
			inv.StackWalks[0].Err = ""
			expectFindings(t, analyzeHand(t, s, handBatch(inv)), append(exitInfo(a, conv), want{kind: Unwind,
				message: fmt.Sprintf("bpf-ret's stack walk at the return of %s is not the true chain (first seen: got [0x10 0x20], want [0x10 0x30])", hex(fn))})...)
		})
		run("a stack walk the user did not make", func(t *testing.T) {
			inv, s := handExit(t, a)
			fn := a.Memory.Text.Base + 0x100
			inv.StackWalks = []harness.StackWalk{{User: "bpf-ret", Func: fn, Skipped: "user_mode(regs) holds"}, {User: "bpf-ret", Func: fn, Skipped: "user_mode(regs) holds"}}
			// never an error, never silent: one info, counted per walk
			expectFindings(t, analyzeHand(t, s, handBatch(inv)), append(exitInfo(a, conv), want{kind: Unwind, severity: Info, count: 2,
				message: fmt.Sprintf("bpf-ret made no stack walk at the return of %s (first seen: user_mode(regs) holds)", hex(fn))})...)
		})
		if len(conv.volatileInfo[trampolines.Exit]) > 0 {
			run("exit changed a volatile register", func(t *testing.T) {
				inv, s := handExit(t, a)
				inv2, _ := handExit(t, a)
				inv2.After[conv.volatileInfo[trampolines.Exit][0]]++
				expectFindings(t, analyzeHand(t, s, handBatch(inv), handBatch(inv2)), want{kind: Volatile,
					message: volatileNames(a, conv) + " not kept across return_to_handler (allowed: volatile after a return)"})
			})
		}
		if a.Link >= 0 {
			run("link register wrong after the entry", func(t *testing.T) {
				inv, b, s := entry(t)
				good := inv.After[a.Link]
				inv.After[a.Link] = good + 4
				expectFindings(t, analyzeHand(t, s, b), want{kind: Clobber, reg: a.Regs[a.Link].Name,
					message: fmt.Sprintf("%%%s is not the return address the traced code needs (first seen: %s, want %s)", a.Regs[a.Link].Name, hex(good+4), hex(good))})
			})
			run("link register the harness wants", func(t *testing.T) {
				inv, b, s := entry(t)
				inv.HasLink, inv.WantLink = true, inv.After[a.Link]+0x40
				inv.After[a.Link] = inv.WantLink
				expectFindings(t, analyzeHand(t, s, b))
			})
			run("link register after the exit", func(t *testing.T) {
				inv, s := handExit(t, a)
				inv.After[a.Link] = inv.WantPC + 4
				ws := exitInfo(a, conv)
				if !conv.exitLinkFree {
					ws = append(ws, want{kind: Clobber, reg: a.Regs[a.Link].Name,
						message: fmt.Sprintf("%%%s is not the return address the traced code needs (first seen: %s, want %s)", a.Regs[a.Link].Name, hex(inv.WantPC+4), hex(inv.WantPC))})
				}
				// exitLinkFree (riscv64: "jalr a2" leaves ra = the jalr + 4
				// and nothing after a return needs it): no finding.
				expectFindings(t, analyzeHand(t, s, handBatch(inv)), ws...)
			})
			if conv.directLink != nil {
				run("link register into a direct trampoline", func(t *testing.T) {
					inv, b, s := entry(t)
					inv.Direct = true
					inv.After[a.SP] = conv.wantSP(trampolines.Entry, inv, a.SP)
					inv.After[a.Link] = conv.directLink(inv)
					expectFindings(t, analyzeHand(t, s, b))
					inv.After[a.Link] = conv.parentIP(inv)
					expectFindings(t, analyzeHand(t, s, b), want{kind: Clobber, reg: a.Regs[a.Link].Name,
						message: fmt.Sprintf("%%%s is not the return address the traced code needs (first seen: %s, want %s)", a.Regs[a.Link].Name, hex(conv.parentIP(inv)), hex(conv.directLink(inv)))})
				})
			}
		}
		run("a callback's edit of a register", func(t *testing.T) {
			layout := a.Frame
			var sl regs.Slot
			for _, c := range layout.Slots {
				if c.Reg >= 0 && c.Reg != a.SP && containsInt(conv.keep[trampolines.Entry], c.Reg) {
					sl = c
					break
				}
			}
			if sl.Name == "" {
				t.Fatalf("%s: no slot of a kept register", a.Name)
			}
			inv, b, s := entry(t)
			inv.CWrites = []harness.CWrite{{Caller: "kprobe", Slot: sl.Name, Value: 0x77}}
			inv.After[sl.Reg] = 0x77
			expectFindings(t, analyzeHand(t, s, b))
			inv.After[sl.Reg] = inv.Before[sl.Reg]
			expectFindings(t, analyzeHand(t, s, b), want{kind: Clobber, reg: a.Regs[sl.Reg].Name,
				message: fmt.Sprintf("%%%s does not hold what a callback set in its slot (first seen: %s, the callback set 0x77)", a.Regs[sl.Reg].Name, hex(inv.Before[sl.Reg]))})
			// The kernel's own write of the slot is no callback's edit.
			inv.CWrites[0].Caller = "kernel"
			expectFindings(t, analyzeHand(t, s, b))
		})
		run("a callback's edit of register 0", func(t *testing.T) {
			var sl regs.Slot
			for _, c := range a.Frame.Slots {
				if c.Reg == 0 {
					sl = c
				}
			}
			if sl.Name == "" || !containsInt(conv.keep[trampolines.Entry], 0) {
				return // no slot of register 0, or not kept: nothing to edit
			}
			inv, b, s := entry(t)
			inv.CWrites = []harness.CWrite{{Caller: "kprobe", Slot: sl.Name, Value: 0x77}}
			inv.After[0] = 0x77
			expectFindings(t, analyzeHand(t, s, b))
		})
		run("the graph caller's prepare_ftrace_return", func(t *testing.T) {
			inv, b, s := entry(t)
			s.Tramp.Graph = trampolines.GraphViaCaller
			s.Setup.Entry = s.Tramp
			prep := inv.Calls[0]
			prep.Name = harness.HostPrepareFtraceRet
			if conv.graphEntryArgs != nil {
				for _, w := range conv.graphEntryArgs(inv, s.Setup.Entry.PrepareABI(a)) {
					prep.Regs[a.Args[w.Index]] = w.Want
				}
			}
			inv.Calls = append(inv.Calls, prep)
			b.Prepares = 1
			expectFindings(t, analyzeHand(t, s, b))
			// Called twice.
			inv.Calls = append(inv.Calls, prep)
			expectFindings(t, analyzeHand(t, s, b), want{kind: Control,
				message: "the entry trampoline called prepare_ftrace_return 2 times (first seen: with a graph user registered, ftrace_graph_caller must hook the return once per traced call)"})
			// Not at all: the run's own finding and the batches' count.
			inv.Calls = inv.Calls[:1]
			b.Prepares = 0
			expectFindings(t, analyzeHand(t, s, b),
				want{kind: Control, message: "the entry trampoline called prepare_ftrace_return 0 times (first seen: with a graph user registered, ftrace_graph_caller must hook the return once per traced call)"},
				want{kind: Control, message: "the graph path did not run: prepare_ftrace_return was not called although a graph user is registered (first seen: ftrace_graph_call -> ftrace_graph_caller -> prepare_ftrace_return)"})
			// No graph user: nothing to call.
			inv.GraphActive = false
			expectFindings(t, analyzeHand(t, s, b))
			// A prepare counted in another batch is enough for the path.
			inv.GraphActive = true
			inv.Calls = append(inv.Calls, prep)
			other := handInvocation(t, a)
			other.GraphActive = false
			b2 := handBatch(other)
			b2.Prepares = 1
			expectFindings(t, analyzeHand(t, s, b, b2))
		})
		run("prepare_ftrace_return's traced function", func(t *testing.T) {
			inv, b, s := entry(t)
			s.Tramp.Graph = trampolines.GraphViaCaller
			s.Setup.Entry = s.Tramp
			s.Setup.Entry.Name = "hand-entry"
			prep := inv.Calls[0]
			prep.Name = harness.HostPrepareFtraceRet
			if conv.graphEntryArgs != nil {
				for _, w := range conv.graphEntryArgs(inv, s.Setup.Entry.PrepareABI(a)) {
					prep.Regs[a.Args[w.Index]] = w.Want
				}
			}
			ip := inv.EntryRet - uint64(a.McountInsnSize)
			prep.HasGraphFunc, prep.GraphFunc = true, ip
			inv.Calls = append(inv.Calls, prep)
			b.Prepares = 1
			expectFindings(t, analyzeHand(t, s, b))
			inv.Calls[1].GraphFunc = ip + 0x40
			expectFindings(t, analyzeHand(t, s, b), want{kind: WrongValue,
				message: fmt.Sprintf("prepare_ftrace_return was given the wrong traced function (first seen: %s, want %s (decoded as the hand-entry era calls it))", hex(ip+0x40), hex(ip))})
			// Where a callback redirected the call, the target is right.
			inv.IPMods = []harness.IPMod{{User: "livepatch", To: ip + 0x40 + uint64(a.McountInsnSize)}}
			b.Calls[0].ReplacementWant = b.Calls[0].Want
			expectFindings(t, analyzeHand(t, s, b))
		})
		if conv.graphEntryArgs != nil {
			run("prepare_ftrace_return's arguments", func(t *testing.T) {
				inv, b, s := entry(t)
				s.Tramp.Graph = trampolines.GraphViaCaller
				s.Setup.Entry = s.Tramp
				prep := inv.Calls[0]
				prep.Name = harness.HostPrepareFtraceRet
				// The ops call hands its callbacks the frame (arm64 v5.5-
				// v5.19: pt_regs, whose lr slot's address is
				// prepare_ftrace_return's parent).
				_, hasLR := a.Frame.Slot("lr")
				if l := a.PtRegs; l != nil && hasLR {
					inv.Calls[0].Layout, inv.Calls[0].Base = l, inv.Calls[0].Regs[a.SP]+16
				}
				ws := conv.graphEntryArgs(inv, s.Setup.Entry.PrepareABI(a))
				names := map[string]bool{}
				for _, w := range ws {
					prep.Regs[a.Args[w.Index]] = w.Want
					names[w.Name] = true
				}
				if a.PtRegs != nil && hasLR && !names["parent"] {
					t.Fatalf("the ops call's frame gives no parent argument: %+v", ws)
				}
				inv.Calls = append(inv.Calls, prep)
				b.Prepares = 1
				expectFindings(t, analyzeHand(t, s, b))
				// Each argument wrong in turn.
				for _, w := range ws {
					inv.Calls[1].Regs[a.Args[w.Index]] = w.Want + 8
					expectFindings(t, analyzeHand(t, s, b), want{kind: WrongValue, reg: a.Regs[a.Args[w.Index]].Name,
						message: fmt.Sprintf("prepare_ftrace_return argument %s is wrong (first seen: %s, want %s)", w.Name, hex(w.Want+8), hex(w.Want))})
					inv.Calls[1].Regs[a.Args[w.Index]] = w.Want
				}
			})
		}
	}
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestWrongTransferMessages: each kind of wrong transfer's whole message,
// for the entry and the exit trampoline.
func TestWrongTransferMessages(t *testing.T) {
	for _, a := range regs.Arches {
		for _, role := range []trampolines.Role{trampolines.Entry, trampolines.Exit} {
			who := "the entry trampoline"
			if role == trampolines.Exit {
				who = "return_to_handler"
			}
			from, to, sp, dsp := a.Memory.Text.Base+0x10, a.Memory.Text.Base+0x20, uint64(0x9010), uint64(0x9000)
			for _, c := range []struct {
				tr   harness.Transfer
				want string
			}{
				{harness.Transfer{WrongReturn: true}, fmt.Sprintf("%s did not return where it should (first seen: went to %#x, want %#x; the call stopped there", who, from, to)},
				{harness.Transfer{Reentry: true, Loops: true}, fmt.Sprintf("the entry trampoline was entered again from the same call site with no return in between (first seen: %#x called it straight again; the call stopped there", from)},
				{harness.Transfer{PastDriver: true}, fmt.Sprintf("%s returned past the driver's frame (first seen: to %#x with sp %#x, above the driver's sp %#x; the call stopped there", who, from, sp, dsp)},
			} {
				tr := c.tr
				tr.From, tr.Want, tr.SP, tr.DriverSP, tr.Role = from, to, sp, dsp, role
				st := &harness.Stop{Err: errors.New("wrong"), Emulated: true, Kind: "wrong control transfer", Arch: a.Name, PC: from, Transfer: &tr}
				z, err := newAnalyzer(handSubject(a))
				if err != nil {
					t.Fatal(err)
				}
				z.runStop(st)
				fs := z.col.findings()
				loops := ""
				if tr.Loops {
					loops = fmt.Sprintf("; the kernel would loop here forever (%#x calls the entry trampoline again from the same call site)", from)
				}
				want := c.want + machineState(st) + loops + ")"
				if len(fs) != 1 || fs[0].Kind != Control || fs[0].Message != want {
					t.Errorf("%s %s: got %q\n  want %q", a.Name, role, findingTexts(fs), want)
				}
			}
		}
	}
}

// TestChainText: the frame chain as a message shows it, addresses near the
// caller's sp relative to it, and what a chain misses.
func TestChainText(t *testing.T) {
	const r = 0x10000
	got := chainText([]uint64{r - 256, r, r + 4096, r - 4096, r + 4097, r - 4097, 0}, r)
	if want := "R-256 -> R+0 -> R+4096 -> R-4096 -> 0x11001 -> 0xefff -> 0x0"; got != want {
		t.Errorf("chainText = %q, want %q", got, want)
	}
	if got := chainText([]uint64{8}, 0); got != "0x8" {
		t.Errorf("chainText near 0 = %q", got)
	}
	// Frame records (arm64, riscv64) as fp{lr} pairs, the same way; an
	// odd word at the end (no lr) is not shown.
	got = arm64RecordText([]uint64{r - 256, 0x40, r + 4096, 0x41, r - 4096, 0x42, r + 4097, 0x43, r - 4097, 0x44, 0, 0x45, r}, r)
	if want := "R-256{lr 0x40} -> R+4096{lr 0x41} -> R-4096{lr 0x42} -> 0x11001{lr 0x43} -> 0xefff{lr 0x44} -> 0x0{lr 0x45}"; got != want {
		t.Errorf("arm64RecordText = %q, want %q", got, want)
	}
	for _, a := range regs.Arches {
		inv := &harness.Invocation{}
		inv.Before[a.SP], inv.DriverSP = r, r+0x200
		for _, c := range []struct {
			chain   []uint64
			ok      bool
			missing string
		}{
			{[]uint64{r - 256, r, r + 0x200, 0}, true, ""},
			{[]uint64{r - 256, r + 0x200, r, 0}, false, "the driver's frame"},
			{[]uint64{r - 256, r + 0x200, 0}, false, "the traced function's caller"},
			{[]uint64{r, r + 0x200}, true, ""},
		} {
			ok, missing := chainReaches(inv, c.chain, a.SP)
			if ok != c.ok || missing != c.missing {
				t.Errorf("%s %v: %v %q, want %v %q", a.Name, c.chain, ok, missing, c.ok, c.missing)
			}
		}
	}
}

// TestValueText: a value near the entry sp is shown relative to it.
func TestValueText(t *testing.T) {
	for _, a := range regs.Arches {
		z, err := newAnalyzer(handSubject(a))
		if err != nil {
			t.Fatal(err)
		}
		inv := &harness.Invocation{}
		const sp = 0x100000
		inv.Before[a.SP] = sp
		for v, want := range map[uint64]string{
			sp: "entry sp +0", sp + 4095: "entry sp +4095", sp - 4095: "entry sp -4095",
			sp + 4096: "0x101000", sp - 4096: "0xff000",
		} {
			if got := z.valueText(inv, v); got != want {
				t.Errorf("%s: valueText(%#x) = %q, want %q", a.Name, v, got, want)
			}
		}
	}
}

// TestAllowedAbove: the bytes above the entry sp each arch's trampolines
// may write, per role, offset by offset across the watched window, against
// ranges written out here: x86-64's entry only the fentry call's return
// address slot (RIP write-back); s390x the scratch bytes 0-71 of the
// caller's struct stack_frame, its r14 slot (136-143) and, for an entry,
// the linkage words of the 24-byte frame it builds for the traced function
// (112-135) (arch/s390/kernel/mcount.S, s390x ELF ABI); arm64 and riscv64
// none.
func TestAllowedAbove(t *testing.T) {
	type span struct{ lo, hi uint64 }
	want := map[string]map[trampolines.Role][]span{
		regs.X86_64.Name:  {trampolines.Entry: {{0, 8}}},
		regs.S390X.Name:   {trampolines.Entry: {{0, 72}, {112, 144}}, trampolines.Exit: {{0, 72}, {136, 144}}},
		regs.ARM64.Name:   {},
		regs.RISCV64.Name: {},
	}
	for _, a := range regs.Arches {
		conv, err := conventionOf(a)
		if err != nil {
			t.Fatal(err)
		}
		spans, ok := want[a.Name]
		if !ok {
			t.Fatalf("%s: no expected ranges", a.Name)
		}
		for _, role := range []trampolines.Role{trampolines.Entry, trampolines.Exit} {
			for off := uint64(0); off < harness.AboveWindow; off += 8 {
				in := false
				for _, s := range spans[role] {
					in = in || (off >= s.lo && off < s.hi)
				}
				if got := conv.allowedAbove(role, off); got != in {
					t.Errorf("%s %s: entry sp+%d allowed %v, want %v", a.Name, role, off, got, in)
				}
			}
		}
	}
}
