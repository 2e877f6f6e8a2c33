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
# (default: all four); GREMLINS_WORKERS the parallel mutants (default 2);
# GREMLINS_TIMEOUT the timeout coefficient (default 100: the machine is
# shared, a slow run must not time out).
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
pkgs=${GREMLINS_PKGS:-"check observe ftrace kernel"}
# harness: observe.go only (the other files excluded by name).
observe_excl=$(cd harness && ls *.go | grep -v _test.go | grep -v '^observe.go$' | sed 's/\.go$//' | paste -sd'|')
summary=out/gremlins.txt
: >"$summary.new"
for p in $pkgs; do
	case $p in
	observe) dir=./harness; excl=(-E "^(${observe_excl})\.go\$") ;;
	*) dir=./$p; excl=() ;;
	esac
	echo "gremlins: $p ($dir)" >&2
	# No --test-cpu: gremlins v0.6.0 passes it to go test as the single
	# argument "-cpu N", which the test binary rejects, so every mutant
	# counts as killed (internal/engine/executor.go getTestArgs).
	"$G" unleash --workers "$workers" --timeout-coefficient "$(coef_of "$p")" \
		-o "out/gremlins-$p.json" "${excl[@]}" "$dir" >"out/gremlins-$p.txt" 2>&1 || true
done
# The summary covers every package run so far (a narrowed run keeps the
# others' last results).
all="check observe ftrace kernel"
for p in $all; do
	[ -f "out/gremlins-$p.txt" ] || continue
	k=$(grep -c '^ *KILLED ' "out/gremlins-$p.txt" || true)
	l=$(grep -c '^ *LIVED ' "out/gremlins-$p.txt" || true)
	n=$(grep -c '^ *NOT COVERED ' "out/gremlins-$p.txt" || true)
	to=$(grep -c '^ *TIMED OUT ' "out/gremlins-$p.txt" || true)
	nv=$(grep -c '^ *NOT VIABLE ' "out/gremlins-$p.txt" || true)
	eff=$(grep -Eo 'Test efficacy: [0-9.]+%' "out/gremlins-$p.txt" || echo "Test efficacy: ?")
	cov=$(grep -Eo 'Mutator coverage: [0-9.]+%' "out/gremlins-$p.txt" || echo "Mutator coverage: ?")
	echo "$p: killed $k, lived $l, not covered $n, timed out $to, not viable $nv; $eff; $cov" >>"$summary.new"
done
echo "# surviving mutants (LIVED), explained in docs/gremlins.md" >>"$summary.new"
for p in $all; do
	[ -f "out/gremlins-$p.txt" ] || continue
	grep '^ *LIVED ' "out/gremlins-$p.txt" | sed "s|^ *|$p: |" >>"$summary.new" || true
done
mv "$summary.new" "$summary"
cat "$summary"
