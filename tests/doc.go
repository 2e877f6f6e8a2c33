// Package tests holds trampemu's end-to-end tests: every trampoline variant
// of every architecture run through the emulator and checked, the
// deliberately broken .S files of testdata/broken, the expected save sets
// and exact costs, and the traced-call benchmarks. It has no code of its
// own besides this comment.
package tests
