// Package kernel says what a kernel is for the checks: the models (eras of
// the ftrace trampolines per arch: exit ABI, graph entry path, WITH_ARGS,
// the asm-offsets names of the era, the CONFIG options of a distribution
// kernel), finding the model a trampoline file belongs to property by
// property (Resolve: graph entry path, prepare_ftrace_return's arguments,
// exit ABI, WITH_ARGS or pt_regs, direct calls, the ops literal, FP_TEST,
// asm-offsets names, each with its file:line evidence; a stable tree's
// file mixing eras gets a model composed of two eras), CONFIG options
// from a .config and -D/-U, kernel trees (the arch files, the version in
// the top Makefile) and applying a patch to a copy with GNU patch or git
// apply. A patch and a tree are untrusted (patchpaths.go): every path a
// patch names is read and checked before either program runs, and a tree
// file that links out of the tree is refused. It runs no emulator.
package kernel
