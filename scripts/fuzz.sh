#!/usr/bin/env bash
# Runs every fuzz target (func FuzzXxx in a _test.go file) with the given
# budget, passed to -fuzztime (default 200000x). A failing target fails
# the script.
#
# The budget is an execution count ("Nx"), not a duration, on purpose:
# with a duration, Go 1.26's fuzz coordinator can report its own
# -fuzztime deadline as a failure ("context deadline exceeded", no crasher
# written) when a worker is still busy as the deadline passes
# (golang/go#75804, fixed in Go 1.27). A count never arms that deadline.
# Crashers are still written to testdata/fuzz as found; new interesting
# inputs are not minimised (FUZZMINIMIZE, default 0s).
#
# A target whose every input is slow (it runs an external program, such
# as FuzzPreprocess running cpp) caps its own budget with a line
# "// fuzz budget: Nx" in the comment block right above its func: it runs
# min(budget, N) executions.
set -euo pipefail
budget=${1:-200000x}
case "$budget" in
*x) ;;
*)
	echo "fuzz: budget '$budget' is a duration; Go 1.26 can fail a duration run spuriously (golang/go#75804). Pass a count such as 200000x." >&2
	exit 2
	;;
esac
cd "$(dirname "$0")/.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT
found=0
# cap FILE NAME: the N of a "// fuzz budget: Nx" line in the comment block
# above func NAME, or nothing.
cap() {
	awk -v fn="func $2(" '
		/^\/\// { if (match($0, /fuzz budget: [0-9]+x/)) c = substr($0, RSTART + 13, RLENGTH - 14); next }
		index($0, fn) == 1 { print c; exit }
		{ c = "" }' "$1"
}
want=${budget%x}
while IFS=: read -r file name; do
	pkg="./$(dirname "$file")"
	n=$want
	c=$(cap "$file" "$name")
	if [ -n "$c" ] && [ "$c" -lt "$n" ]; then
		n=$c
	fi
	echo "fuzz: $pkg $name (${n}x)"
	go test -run XXX -fuzz "^${name}\$" -fuzztime "${n}x" -fuzzminimizetime "${FUZZMINIMIZE:-0s}" "$pkg" >"$log" 2>&1 || {
		cat "$log"
		exit 1
	}
	found=$((found + 1))
done < <(grep -rHoE --include='*_test.go' '^func (Fuzz[A-Za-z0-9_]+)' . | sed -E 's#^\./##; s#:func #:#')
if [ "$found" -eq 0 ]; then
	echo "fuzz: no fuzz targets found" >&2
	exit 1
fi
echo "fuzz: $found targets ok"
