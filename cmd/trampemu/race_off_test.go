//go:build !race

package main

// docSkipRun reports whether TestDocCommands only parses a doc command's
// flags instead of running it: never without -race (race_on_test.go has
// the -race rule).
func docSkipRun([]string) bool { return false }
