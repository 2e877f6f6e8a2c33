// Package mutate measures how much the checks of package check can be
// trusted: it makes small mutants of a trampoline's .S text (one
// instruction deleted, a register replaced by another of the same width, a
// displacement or immediate moved by 8 (or 1 where it is a size), two
// adjacent instructions swapped, a conditional branch inverted), runs the
// full check (check.Run) on each and sorts them:
//
//   - stillborn: the mutant does not assemble, link or set up (no verdict);
//   - killed: its error findings differ from the original's;
//   - equivalent: it behaves exactly like the original: the same machine
//     code after assembly, or the same observations on every call of every
//     workload (registers when each trampoline run leaves, where it
//     leaves to, the arguments and the ftrace_regs of every call into C,
//     the caller's stack words, the workload's results; code addresses
//     compared as symbol+offset, since a shorter trampoline moves the code
//     linked after it);
//   - survived: it behaves differently and the check says nothing. A
//     survivor whose only difference is in frame slots the original's
//     check reports as unused-store has reason "removable" (it removes or
//     changes work nobody observes); any other survivor is a gap in the
//     checks.
//
// Which source lines are instructions comes from the C preprocessor's
// output (asm.Preprocess) with its linemarkers: a line is an instruction
// when, after preprocessing, it holds a statement that is neither a
// directive, a label nor the invocation of a gas macro defined in the
// mutated files (the macro's own body lines are the instructions then).
// Mutations edit the original line, so every mutant names file:line.
// Per-arch facts (registers by width, branch conditions) are in
// x86_64.go and s390x.go.
package mutate
