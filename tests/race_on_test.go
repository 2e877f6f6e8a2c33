//go:build race

package tests

// randomCalls is how many random register files TestRandomRegisterFiles
// gives each workload: the race detector makes every emulated call about
// ten times slower, and what it checks (the code paths, not the number of
// register files) is reached with fewer.
const randomCalls = 100
