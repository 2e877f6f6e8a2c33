//go:build race

package main

// docSkipRun reports whether TestDocCommands only parses a doc command's
// flags instead of running it: under -race (make test) every emulated
// call is about ten times slower, and a bounded report, mutate or native
// run takes minutes there; those (docBudget's commands) stop after their
// flags parse. go test without -race runs every command whole.
func docSkipRun(args []string) bool {
	_, heavy := docBudget[args[0]]
	return heavy
}
