// Package native times x86-64 trampolines on the host CPU: the pairing is
// linked with the workloads and a native runtime (trampolines/native) at
// low user-space addresses, mapped into a child process, patched as the
// kernel patches it, and called in a loop with tracing off, with a function
// tracer only, and with a graph user. The kernel functions are minimal
// stand-ins in assembly (see trampolines/native/x86_64.S), the same for
// every variant, so the differences between variants are the trampolines'
// own. The child process keeps a trampoline that faults from taking the
// caller down.
//
// Run times many pairings at once, in generations: each starts one child
// per pairing, all pinned to the same CPU, and samples them in interleaved
// rounds (every pairing and mode once per round); generations continue
// until the time budget is spent, each at the next layout (the entry and
// exit trampolines shifted within their cache lines, functions aligned as
// the kernel aligns them). The generations are grouped by start time into
// blocks spread over the run, the unit of the statistics (stats.go): the
// medians and intervals are golang.org/x/perf/benchmath's over the blocks,
// the p values the Wilcoxon signed-rank test's (signedrank.go), which
// benchmath lacks. Rerun makes a run again and again and says how the
// runs agree (stability.go, make bench-stability). Headline and ReportConfig are
// the report's comparisons, with the registry's experiments (table.go).
// ValgrindCounts counts the same code's instructions under callgrind, all
// pairings in one child (valgrind.go). The parent builds each pairing
// into a plan (plan.go) that the children only map and run.
package native
