#!/usr/bin/env bash
# Mutation testing of trampemu's own Go code with gremlins (make gremlins):
# check, harness/observe.go, ftrace and kernel, one package at a time (each
# mutant runs its package's tests), into out/:
#   out/gremlins-<name>.txt   gremlins' whole output for the package
#   out/gremlins-<name>.json  its machine-readable results
#   out/gremlins.txt          per package: killed, lived, not covered, timed
#                             out, efficacy and mutant coverage; then every
#                             surviving (LIVED) mutant as file:line:col
# docs/gremlins.md explains each survivor. GREMLINS_PKGS picks packages
# (default: all four); GREMLINS_FILES runs the packages file by file, only
# the files named (e.g. GREMLINS_FILES="analyze.go cost.go"; one run per
# file, into out/gremlins-<name>-<file>.txt and .json, so a long package
# gives real partial results file by file; "a.go,b.go" is one run of both,
# into out/gremlins-<name>-a+b.txt: a run costs one coverage run of the
# package's tests besides its mutants); GREMLINS_WORKERS the parallel
# mutants (default 2); GREMLINS_TIMEOUT the timeout coefficient (default
# 100: the machine is shared, a slow run must not time out).
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
G=${GREMLINS:-$($GO env GOPATH)/bin/gremlins}
if [ ! -x "$G" ]; then
	echo "gremlins: installing github.com/go-gremlins/gremlins v0.6.0" >&2
	$GO install github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0
fi
mkdir -p out
workers=${GREMLINS_WORKERS:-2}
# The timeout is the coverage run's time (a cached build) times the
# coefficient; a mutant's run compiles and links its test binary again, on
# a shared machine: a small coefficient times out nearly every mutant. A
# mutant that does not hang finishes long before the timeout, so a large
# one costs nothing.
coef_of() { echo "${GREMLINS_TIMEOUT:-100}"; }
# -count=1: a coverage run answered from go's test cache takes a fraction of
# a second, and the timeout of every mutant with it (at 0.45 s x 100, 15
# mutants of emulation.go "timed out" on a loaded machine).
GOFLAGS="$($GO env GOFLAGS) -count=1"
export GOFLAGS
pkgs=${GREMLINS_PKGS:-"check observe ftrace kernel"}
summary=out/gremlins.txt
# excludeAllBut dir files: the -E regexp that excludes every non-test file
# of dir but files (comma-separated).
excludeAllBut() {
	local others
	others=$(cd "$1" && ls *.go | grep -v _test.go | grep -vxF "$(echo "$2" | tr , '\n')" | sed 's/\.go$//' | paste -sd'|')
	echo "^(${others})\.go\$"
}
# unleash name dir [-E regexp]: one gremlins run into out/gremlins-<name>.*
unleash() {
	local name=$1 dir=$2
	shift 2
	echo "gremlins: $name ($dir)" >&2
	# No --test-cpu: gremlins v0.6.0 passes it to go test as the single
	# argument "-cpu N", which the test binary rejects, so every mutant
	# counts as killed (internal/engine/executor.go getTestArgs).
	"$G" unleash --workers "$workers" --timeout-coefficient "$(coef_of)" \
		-o "out/gremlins-$name.json" "$@" "$dir" >"out/gremlins-$name.txt" 2>&1 || true
}
for p in $pkgs; do
	case $p in
	observe)
		# harness: observe.go only (the other files excluded by name).
		unleash observe ./harness -E "$(excludeAllBut harness observe.go)"
		continue
		;;
	esac
	if [ -z "${GREMLINS_FILES:-}" ]; then
		unleash "$p" "./$p"
		continue
	fi
	for f in $GREMLINS_FILES; do
		for g in ${f//,/ }; do
			if [ ! -f "$p/$g" ]; then
				echo "gremlins: $p/$g: no such file (GREMLINS_FILES names files of each package in GREMLINS_PKGS)" >&2
				exit 2
			fi
		done
		n=${f//.go/}
		unleash "$p-${n//,/+}" "./$p" -E "$(excludeAllBut "$p" "$f")"
	done
done
# The summary covers every run so far (a narrowed run keeps the others'
# last results): whole packages, then file by file with their total.
count() { grep -c "^ *$1 " "$2" || true; }
line() { # name file...: killed, lived, not covered, timed out, not viable, efficacy
	local name=$1 k=0 l=0 n=0 to=0 nv=0 f
	shift
	for f in "$@"; do
		k=$((k + $(count KILLED "$f"))) l=$((l + $(count LIVED "$f")))
		n=$((n + $(count 'NOT COVERED' "$f"))) to=$((to + $(count 'TIMED OUT' "$f")))
		nv=$((nv + $(count 'NOT VIABLE' "$f")))
	done
	local eff=? cov=?
	[ $((k + l)) -gt 0 ] && eff=$(awk -v k=$k -v l=$l 'BEGIN{printf "%.2f%%", 100*k/(k+l)}')
	[ $((k + l + n)) -gt 0 ] && cov=$(awk -v k=$k -v l=$l -v n=$n 'BEGIN{printf "%.2f%%", 100*(k+l)/(k+l+n)}')
	echo "$name: killed $k, lived $l, not covered $n, timed out $to, not viable $nv; efficacy $eff; mutant coverage $cov"
}
all="check observe ftrace kernel"
: >"$summary.new"
for p in $all; do
	[ -f "out/gremlins-$p.txt" ] && line "$p" "out/gremlins-$p.txt" >>"$summary.new"
	files=$(ls out/gremlins-"$p"-*.txt 2>/dev/null || true)
	[ -n "$files" ] || continue
	for f in $files; do
		n=${f#out/gremlins-$p-}
		n=${n%.txt}
		n=${n//+/.go,}
		line "$p/$n.go" "$f" >>"$summary.new"
	done
	# shellcheck disable=SC2086
	line "$p (the files above)" $files >>"$summary.new"
done
echo "# surviving mutants (LIVED), explained in docs/gremlins.md" >>"$summary.new"
for f in out/gremlins-*.txt; do
	[ "$f" = "$summary" ] && continue
	n=${f#out/gremlins-}
	grep '^ *LIVED ' "$f" | sed "s|^ *|${n%.txt}: |" >>"$summary.new" || true
done
mv "$summary.new" "$summary"
cat "$summary"
