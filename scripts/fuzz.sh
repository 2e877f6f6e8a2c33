#!/usr/bin/env bash
# Runs every fuzz target (func FuzzXxx in a _test.go file) for the given
# time (default 10s). A failing target fails the script. New interesting
# inputs are not minimised (FUZZMINIMIZE, default 0s): on short runs the
# minimiser can outlive -fuzztime and fail the run with "context deadline
# exceeded"; crashers are still saved as found.
set -euo pipefail
t=${1:-10s}
cd "$(dirname "$0")/.."
found=0
while IFS=: read -r file name; do
	pkg="./$(dirname "$file")"
	echo "fuzz: $pkg $name ($t)"
	go test -run XXX -fuzz "^${name}\$" -fuzztime "$t" -fuzzminimizetime "${FUZZMINIMIZE:-0s}" "$pkg" >/tmp/trampemu-fuzz.log 2>&1 || {
		cat /tmp/trampemu-fuzz.log
		exit 1
	}
	found=$((found + 1))
done < <(grep -rHoE --include='*_test.go' '^func (Fuzz[A-Za-z0-9_]+)' . | sed -E 's#^\./##; s#:func #:#')
if [ "$found" -eq 0 ]; then
	echo "fuzz: no fuzz targets found" >&2
	exit 1
fi
echo "fuzz: $found targets ok"
