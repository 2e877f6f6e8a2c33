// Package harness wires one architecture, an entry and an exit trampoline,
// the workloads and the Go kernel stand-ins into a ready emu.Machine; it
// calls workloads with canary registers and returns the observations of
// each checked run as plain data (RunBatch, Batch): per invocation the
// register files before and after each trampoline, the ftrace_regs it
// handed to C, accessor reads, memory accesses, stack words above the
// entry sp, frame chains, the unwinder's view at an interrupted boundary,
// and the RunFacts it is checked against. Deciding what is wrong is
// package check's job. Per-arch facts are in x86_64.go and s390x.go behind
// harnessArch (arch.go).
package harness
