package main

// maxCalls caps --calls of check, report and mutate: 100,000 checked
// calls of every workload take minutes per variant (about 10,000 checked
// calls a second); more is almost certainly a typo. check shows a
// progress bar on a terminal when a run is long.
const maxCalls = 100_000

// checkCalls rejects a --calls value outside 1..maxCalls.
func checkCalls(n int) error { return checkRange("--calls", n, 1, maxCalls) }

// checkRange rejects a numeric flag outside lo..hi, naming the range.
func checkRange(flag string, n, lo, hi int) error {
	if n < lo || n > hi {
		return usagef("%s %d: give %d to %d", flag, n, lo, hi)
	}
	return nil
}
