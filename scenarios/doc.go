// Package scenarios re-creates the kernel's fgraph and fprobe self-tests
// (lib/test_fprobe.c, kernel/trace/trace_selftest.c, fgraph-multi.tc) and
// the regression cases of the multi-user shadow stack as built-in
// scenarios. Every scenario runs through the REAL trampolines of the
// arch's current pairing (trampolines.Current: x86-64 ftrace_caller +
// rth-fixed, s390x and arm64 ftrace_caller + rth-merged) on Unicorn, with package ftrace standing in
// for the kernel, and reports counters, warnings, the shadow-stack words a
// traced call used, and findings: every failed expectation is a finding.
//
// Measure tabulates shadow-stack words per traced call and the maximum
// traced depth per fprobe header encoding, number of probes and entry-data
// size, next to what the shadow-stack constants predict (Predict).
//
// The fprobe selftests (Scenario.Designs) also run on the rethook design of
// v5.18-v6.13 (RunDesign, RunForm): the arch's arch_rethook_trampoline
// with the SAVE_REGS entry of its era and ftrace.RethookFprobes.
// CompareFprobe puts both designs side by side per arch: trampoline costs,
// the C side counted by the Go kernel, memory, and the merged fgraph
// dispatch per number of users.
package scenarios
