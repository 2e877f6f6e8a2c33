// Package check turns the harness's observations of trampoline runs into
// findings (ARCHITECTURE.md's vocabulary) and cost metrics, per variant,
// workload and scenario. It decides; it does not print.
//
// The analysis (Analyze, analyze.go, interrupts.go) is a function of plain
// observation data, harness.Batch, and the arch's convention: it runs no
// emulator and reads no machine, and each invocation carries what it is
// checked against (the expected pc, the ops pointer, the driver's sp, the
// poison constant). Each arch registers its convention from its own file
// (x86_64.go, s390x.go) in conventions: which registers survive (derived
// from the regs ABI roles), which stack bytes a trampoline may write, what
// each ftrace_regs slot means, and hooks such as the frame-chain check at
// a call into C. Run drives a harness batch by batch and hands each
// batch's observations to the analysis after the run; Exact, MeasureSpeed
// and MeasureEmulation measure cost and speed.
package check
