// Package trace records a run instruction by instruction, for debugging a
// trampoline step by step: every instruction with the registers it changed
// and the memory it read and wrote (with values), and every call into Go
// with what the Go function changed. A Recorder is an emu.Tracer; Render
// prints the record as text.
package trace
