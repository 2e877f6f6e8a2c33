package tests

import (
	"strings"
	"testing"

	"trampemu/check"
	"trampemu/regs"
)

// TestFrameRecordSlotsAreRead: the frame record an arm64 WITH_REGS entry
// keeps in pt_regs.stackframe is read by the unwinder (HostCall.ChainLoads),
// so it is no unused store; and it is needed: with its store deleted, the
// frame-record chain at the call into C breaks (backchain error).
func TestFrameRecordSlotsAreRead(t *testing.T) {
	a := regs.ARM64
	const store = "\tstp\tx29, x30, [sp, #S_STACKFRAME]\n"
	for _, name := range []string{"ftrace_caller-v5.10", "ftrace_regs_caller-v5.10", "ftrace_caller-v6.1", "ftrace_regs_caller-v6.1"} {
		t.Run(name, func(t *testing.T) {
			tr := variant(t, a, name)
			for _, r := range runCheck(t, check.Config{Arch: a, Tramp: tr, Workloads: []string{"add"}, Calls: 2, Seed: 1, NoInterrupts: true}) {
				for _, s := range []string{"stackframe[0]", "stackframe[1]"} {
					if r.Has(check.UnusedStore, s) {
						t.Errorf("%s: unused-store %s, but the unwinder reads it%s", r.Workload, s, findings(r))
					}
				}
				if !r.OK {
					t.Errorf("%s: not ok%s", r.Workload, findings(r))
				}
			}
			hdr := string(tr.Headers["pt_regs_entry.h"])
			if !strings.Contains(hdr, store) {
				t.Fatalf("pt_regs_entry.h has no %q to delete", store)
			}
			// Inlined: the partner's folder has its own pt_regs_entry.h,
			// which a changed header of the entry's would not replace.
			inc := "#include \"pt_regs_entry.h\"\n"
			if !strings.Contains(string(tr.Source.Text), inc) {
				t.Fatalf("%s does not include pt_regs_entry.h", tr.Source.Name)
			}
			tr.Source.Text = []byte(strings.Replace(string(tr.Source.Text), inc, strings.Replace(hdr, store, "", 1), 1))
			for _, r := range runCheck(t, check.Config{Arch: a, Tramp: tr, Workloads: []string{"add"}, Calls: 2, Seed: 1, NoInterrupts: true}) {
				if !r.Has(check.Backchain, "") {
					t.Errorf("%s: stackframe store deleted, no backchain error%s", r.Workload, findings(r))
				}
			}
		})
	}
}
