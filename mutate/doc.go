// Package mutate measures how much the checks of package check can be
// trusted: it makes small mutants of a trampoline's .S text (one
// instruction deleted, a register replaced by another of the same width, a
// displacement or immediate moved by 8 (or 1 where it is a size), two
// adjacent instructions swapped, a conditional branch inverted), runs the
// full check (check.Run) on each and sorts them:
//
//   - stillborn: the mutant does not assemble, link or set up (no verdict);
//   - killed: its error findings differ from the original's, or what the
//     checks report does: the unwind-lost and (x86-64) ORC-lost boundaries,
//     objtool's warnings;
//   - equivalent: it behaves exactly like the original: the same machine
//     code, ORC table and objtool warnings after assembly (a deleted
//     UNWIND_HINT_* line changes no instruction but the table: it is
//     checked, and a survivor whose only difference is the table has
//     reason "unwind-table"), or the same observations on every call of every
//     workload: where each trampoline run leaves to and the registers that
//     mean something then (not those the ABI leaves undefined: x86-64 r10
//     and r11 after an entry, the volatile registers but the return
//     registers after an exit; s390x r0 and r1, and r3-r5 after an exit),
//     the name, arguments (not the frame_pointer arguments the kernel
//     ignores without HAVE_FUNCTION_GRAPH_FP_TEST) and every frame slot of
//     each call into C, the caller's stack words after the run (not the
//     s390x scratch bytes 0-71), the workload's results; code addresses
//     compared as symbol+offset, since a shorter trampoline moves the code
//     linked after it;
//   - survived: it behaves differently and the check says nothing. A
//     survivor whose only differences are frame slots, one of them a slot
//     the original's check reports as unused-store and the others slots C
//     read in neither run, has reason "removable" (it removes or moves
//     work nobody observes); one whose only differences are stack
//     addresses handed to C (and slots nobody reads) has reason
//     "stack-layout" (its frame moved, e.g. 8 bytes larger, and
//     everything anyone reads is the same); any other survivor is a gap
//     in the checks.
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
