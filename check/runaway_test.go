package check

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"trampemu/harness"
	"trampemu/regs"
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
