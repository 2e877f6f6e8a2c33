package main

// maxCalls caps --calls: 100,000 checked calls of every workload take
// minutes per variant (about 10,000 checked calls a second); more is
// almost certainly a typo.
const maxCalls = 100_000

// checkCalls rejects a --calls value outside 1..maxCalls.
func checkCalls(n int) error {
	if n < 1 || n > maxCalls {
		return usagef("--calls %d: give 1 to %d calls per workload", n, maxCalls)
	}
	return nil
}
