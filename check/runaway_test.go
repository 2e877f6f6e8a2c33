package check

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"trampemu/harness"
	"trampemu/regs"
	"trampemu/trampolines"
)

// TestRunawayFindingHasMachineState: a run the instruction limit (or the
// timeout) stopped is a control error whose text and JSON name the arch,
// the pc, its disassembly and the registers, as a fault's do; every arch.
func TestRunawayFindingHasMachineState(t *testing.T) {
	for _, a := range regs.Arches {
		t.Run(a.Name, func(t *testing.T) {
			b := handBatch(handInvocation(t, a))
			st := &harness.Stop{Err: errors.New("limit"), Emulated: true, Kind: "instruction limit", Runaway: true,
				Arch: a.Name, PC: a.Memory.Text.Base + 0xc0, Where: "return_to_handler", Insn: "loop insn",
				Detail: "instruction limit of 50000000 reached"}
			for i := range st.Regs {
				st.Regs[i] = 0xabcd0000 + uint64(i)
			}
			b.Stop = st
			r, err := Analyze(handSubject(a), []*harness.Batch{b})
			if err != nil {
				t.Fatal(err)
			}
			var f *Finding
			for i := range r.Findings {
				if r.Findings[i].Kind == Control && strings.Contains(r.Findings[i].Message, "instruction limit at") {
					f = &r.Findings[i]
				}
			}
			if f == nil || f.Severity != Error || r.OK {
				t.Fatalf("no control error for the runaway run: %v", r.Findings)
			}
			js, err := json.Marshal(f)
			if err != nil {
				t.Fatal(err)
			}
			var back Finding
			if err := json.Unmarshal(js, &back); err != nil {
				t.Fatal(err)
			}
			sp := a.RegNames()[a.SP]
			for _, form := range []string{f.String(), back.Message} {
				for _, want := range []string{a.Name + " pc " + fmt.Sprintf("%#x", st.PC), "loop insn", "registers: ", fmt.Sprintf("%s 0x%016x", sp, st.Regs[a.SP])} {
					if !strings.Contains(form, want) {
						t.Errorf("%q lacks %q", form, want)
					}
				}
			}
		})
	}
}

// TestWrongTransferIsOneControlFinding: a run the guard stopped at a wrong
// control transfer (fail fast) is one control error, the invocation's own
// wrong-return check folded into it, with the machine state and, where
// control went straight back into the call site, "the kernel would loop
// here forever"; every arch, each kind of wrong transfer.
func TestWrongTransferIsOneControlFinding(t *testing.T) {
	for _, a := range regs.Arches {
		for _, c := range []struct {
			name string
			tr   harness.Transfer
			want []string
		}{
			{"wrong return that loops", harness.Transfer{WrongReturn: true, Loops: true}, []string{"did not return where it should", "the call stopped there", "the kernel would loop here forever"}},
			{"wrong return", harness.Transfer{WrongReturn: true}, []string{"did not return where it should", "the call stopped there"}},
			{"re-entry", harness.Transfer{Reentry: true, Loops: true}, []string{"entered again from the same call site with no return in between", "the kernel would loop here forever"}},
			{"past the driver", harness.Transfer{PastDriver: true}, []string{"returned past the driver's frame", "above the driver's sp"}},
		} {
			t.Run(a.Name+"/"+c.name, func(t *testing.T) {
				inv := handInvocation(t, a)
				site := inv.EntryRet - uint64(a.McountInsnSize)
				inv.LeavePC, inv.After[a.PC] = site, site // back to the call site
				inv.WrongTransfer = true
				b := handBatch(inv)
				b.Calls[0].Done, b.Calls[0].Results = false, nil
				tr := c.tr
				tr.From, tr.Want, tr.Role = site, inv.EntryRet, trampolines.Entry
				tr.SP, tr.DriverSP = inv.DriverSP+16, inv.DriverSP
				st := &harness.Stop{Err: errors.New("wrong"), Emulated: true, Kind: "wrong control transfer", Arch: a.Name,
					PC: site, Where: "add+0x4", Insn: "call insn", Regs: inv.After, Transfer: &tr}
				b.Stop = st
				r, err := Analyze(handSubject(a), []*harness.Batch{b})
				if err != nil {
					t.Fatal(err)
				}
				if r.OK || r.Errors() != 1 || r.Findings[0].Kind != Control || r.Findings[0].Count != 1 {
					t.Fatalf("want one control error, got %v", r.Findings)
				}
				msg := r.Findings[0].Message
				want := append(c.want, fmt.Sprintf("%s pc %#x: call insn", a.Name, site), fmt.Sprintf("%s 0x%016x", a.RegNames()[a.SP], inv.After[a.SP]))
				for _, w := range want {
					if !strings.Contains(msg, w) {
						t.Errorf("%q lacks %q", msg, w)
					}
				}
				if !tr.Loops && strings.Contains(msg, "forever") {
					t.Errorf("%q claims a loop nobody saw", msg)
				}
			})
		}
	}
}
