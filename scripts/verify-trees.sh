#!/usr/bin/env bash
# make verify-trees: Debian's kernel source packages (linux-source-6.1 and
# linux-source-6.12 by default, PKGS to change), downloaded once with
# `apt-get download` into .cache/trees/ (gitignored, never committed), of
# which only the top Makefile and the ftrace trampoline files are unpacked;
# each tree is checked with `trampemu check --tree DIR` and no other flag:
# every trampoline of every modelled arch (ARCHES) must be ok, and a
# trampoline file of an arch the tool does not model must get a note.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-bin/trampemu}
CACHE=${CACHE:-.cache/trees}
PKGS=${PKGS:-"linux-source-6.1 linux-source-6.12"}
ARCHES=${ARCHES:-"x86_64 s390x arm64 riscv64"}
# The files `check --tree` reads (kernel/x86_64.go, s390x.go, arm64.go,
# riscv64.go treeFiles and treeCompanions) and the top Makefile.
FILES="Makefile arch/x86/kernel/ftrace_64.S arch/s390/kernel/mcount.S arch/arm64/kernel/entry-ftrace.S arch/riscv/kernel/mcount-dyn.S arch/riscv/kernel/mcount.S"

[ -x "$BIN" ] || { echo "verify-trees: $BIN missing: run make build" >&2; exit 2; }
mkdir -p "$CACHE"

# fetch PKG: the package's trees files into $CACHE/PKG/tree, once (again
# when FILES names a file the cached tree was not unpacked with).
fetch() {
	local pkg=$1 dir=$CACHE/$1 tmp deb tarball top
	[ -f "$dir/.done" ] && [ "$(cat "$dir/files" 2>/dev/null)" = "$FILES" ] && return 0
	rm -rf "$dir"
	tmp=$(mktemp -d "$CACHE/.fetch.XXXXXX")
	trap 'rm -rf "$tmp"' RETURN
	if ! (cd "$tmp" && apt-get download -qq "$pkg" 2>/dev/null); then
		apt-get update -qq
		(cd "$tmp" && apt-get download -qq "$pkg")
	fi
	deb=$(ls "$tmp"/*.deb)
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" --wildcards './usr/src/linux-source-*.tar.xz'
	tarball=$(ls "$tmp"/usr/src/linux-source-*.tar.xz)
	top=$(basename "$tarball" .tar.xz)
	local want=()
	for f in $FILES; do want+=("$top/$f"); done
	tar -xJf "$tarball" -C "$tmp" "${want[@]}"
	mkdir -p "$dir"
	mv "$tmp/$top" "$dir/tree"
	dpkg-deb -f "$deb" Version >"$dir/version"
	echo "$FILES" >"$dir/files"
	touch "$dir/.done"
}

# Known kernel bugs the trees have, found by the checks and kept as
# errors (check --tree exits 1 on them): each an arch, a workload and the
# error it gives. s390x v5.14-v6.12 ftrace_common calls ftrace_graph_caller
# after the callbacks, so when an error injection moved psw.addr to
# gprs[14] (arch/s390/lib/error-inject.c) prepare_ftrace_return still
# hooks r14 and the branch to psw.addr never pops that shadow-stack frame
# (docs/orc.md, "Shadow-stack balance"). Every other row must be ok.
KNOWN_ARCH=s390x
KNOWN_WORKLOAD=fei_target
KNOWN_ERROR='^  error control: shadow stack not balanced after fei_target: frame of .* \(user graph\) left behind'

fail=0
for pkg in $PKGS; do
	fetch "$pkg"
	dir=$CACHE/$pkg
	out=$dir/check.txt
	rc=0
	"$BIN" check --tree "$dir/tree" >"$out" 2>&1 || rc=$?
	ver=$(cat "$dir/version")
	bad=""
	known=$(awk -v a="$KNOWN_ARCH" -v w="$KNOWN_WORKLOAD" '$1 == a && $4 == w && NF >= 6 && $6 != "ok" {n++} END {print n+0}' "$out")
	unknown_errors=$(grep -E '^  error ' "$out" | grep -cvE "$KNOWN_ERROR" || true)
	[ "$unknown_errors" -eq 0 ] || bad="$unknown_errors error lines that are no known kernel bug"
	if [ "$rc" -ne 0 ] && ! { [ "$rc" -eq 1 ] && [ "$known" -gt 0 ] && [ "$unknown_errors" -eq 0 ]; }; then
		bad="$bad${bad:+; }exit status $rc"
	fi
	for arch in $ARCHES; do
		read -r rows notok entries exits < <(awk -v a="$arch" -v ka="$KNOWN_ARCH" -v kw="$KNOWN_WORKLOAD" '$1 == a && NF >= 6 {n++; if ($6 != "ok" && !(a == ka && $4 == kw)) f++; if ($3 == "entry") e++; if ($3 == "exit") x++}
			END {print n+0, f+0, e+0, x+0}' "$out")
		if [ "$rows" -eq 0 ] || [ "$entries" -eq 0 ] || [ "$exits" -eq 0 ] || [ "$notok" -ne 0 ]; then
			bad="$bad${bad:+; }$arch: $rows rows ($entries entry, $exits exit), $notok not ok"
		fi
	done
	if [ -n "$bad" ]; then
		echo "verify-trees: $pkg $ver: FAIL: $bad (output in $out):" >&2
		grep -E '^(  error|note:|trampemu)' "$out" | sort | uniq -c | head -40 >&2
		fail=1
	else
		models=$(grep -E '^arch/.*: kernel model ' "$out" | sed -E 's/^(arch\/[^:]*): kernel model (.*), (the tree|detected|--kernel).*/\1 \2/' | paste -sd';' | sed 's/;/; /g')
		echo "verify-trees: $pkg $ver: ok ($(awk -v l="$ARCHES" 'BEGIN{split(l,a," "); for(i in a) w[a[i]]=1} ($1 in w) && NF>=6 {n++} END{print n+0}' "$out") rows, $known of them the known kernel bug below, the rest ok; $models)"
		grep '^note:' "$out" | sed 's/^/  /'
		if [ "$known" -gt 0 ]; then
			echo "  known kernel bug, reported as an error ($known rows, $KNOWN_ARCH $KNOWN_WORKLOAD; docs/orc.md):"
			grep -E "$KNOWN_ERROR" "$out" | sort | uniq -c | sed 's/^/  /'
		fi
	fi
done
exit $fail
