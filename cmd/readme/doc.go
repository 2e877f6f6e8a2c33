// Command readme writes the numbers README.md and docs/*.md quote from a
// report run (make readme): it copies what they quote from out/report.json
// into docs/numbers.json (report.Quoted: with the machine and the date of
// the run) and renders every <!-- trampemu:NAME --> block of the files
// from it. report's TestDocsQuoteTheirReport fails when a block differs
// from docs/numbers.json. The snapshot keeps every machine's last native
// run (report.Quoted.Machines: the run of the machine of out/report.json
// replaced, the others kept), which the native-machines block compares.
//
//	go run ./cmd/readme out/report.json docs/numbers.json README.md docs/*.md
package main
