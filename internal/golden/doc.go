// Package golden compares a text a test produced with its golden file line
// by line, so that a failing golden test names the first lines that differ
// instead of dumping both texts. The tests' goldens (asm listings, check's
// verdicts, kernel detection, the slot tables) share it; each test keeps its
// own -update flag and message.
package golden
