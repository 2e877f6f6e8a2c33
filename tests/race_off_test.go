//go:build !race

package tests

// randomCalls is how many random register files TestRandomRegisterFiles
// gives each workload (race_on_test.go has the -race figure).
const randomCalls = 1000
