#!/usr/bin/env bash
# make verify-trees: Debian's kernel source packages (linux-source-6.1 and
# linux-source-6.12 by default, PKGS to change), downloaded once with
# `apt-get download` into .cache/trees/ (gitignored, never committed), of
# which only the top Makefile and the ftrace trampoline files are unpacked;
# each tree is checked with `trampemu check --tree DIR` and no other flag:
# it must exit 0 and every trampoline of every modelled arch (ARCHES) must
# be ok or show only its kernel model's known kernel bugs ("known"), and a
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

# Every row of every modelled arch must be ok, or "known": its only errors
# are known kernel bugs of the file's kernel model (kernel.KnownBug,
# kernel/*_bugs.go: each with the cause and the fix), which check reports
# and does not fail; so check --tree must exit 0. No whitelist here.
fail=0
for pkg in $PKGS; do
	fetch "$pkg"
	dir=$CACHE/$pkg
	out=$dir/check.txt
	rc=0
	"$BIN" check --tree "$dir/tree" >"$out" 2>&1 || rc=$?
	ver=$(cat "$dir/version")
	bad=""
	[ "$rc" -eq 0 ] || bad="exit status $rc"
	for arch in $ARCHES; do
		read -r rows notok entries exits < <(awk -v a="$arch" '$1 == a && NF >= 6 {n++; if ($6 != "ok" && $6 != "known") f++; if ($3 == "entry") e++; if ($3 == "exit") x++}
			END {print n+0, f+0, e+0, x+0}' "$out")
		if [ "$rows" -eq 0 ] || [ "$entries" -eq 0 ] || [ "$exits" -eq 0 ] || [ "$notok" -ne 0 ]; then
			bad="$bad${bad:+; }$arch: $rows rows ($entries entry, $exits exit), $notok neither ok nor known"
		fi
	done
	known=$(awk -v l="$ARCHES" 'BEGIN{split(l,a," "); for(i in a) w[a[i]]=1} ($1 in w) && NF>=6 && $6 == "known" {n++} END{print n+0}' "$out")
	if [ -n "$bad" ]; then
		echo "verify-trees: $pkg $ver: FAIL: $bad (output in $out):" >&2
		grep -E '^(  error|  known|note:|trampemu)' "$out" | sed -E 's/ \(first seen: .*//' | sort | uniq -c | head -40 >&2
		fail=1
	else
		models=$(grep -E '^arch/.*: kernel model ' "$out" | sed -E 's/^(arch\/[^:]*): kernel model (.*), (the tree|detected|--kernel).*/\1 \2/' | paste -sd';' | sed 's/;/; /g')
		echo "verify-trees: $pkg $ver: ok ($(awk -v l="$ARCHES" 'BEGIN{split(l,a," "); for(i in a) w[a[i]]=1} ($1 in w) && NF>=6 {n++} END{print n+0}' "$out") rows, $known of them known kernel bugs, the rest ok; $models)"
		grep '^note:' "$out" | sed 's/^/  /'
		if [ "$known" -gt 0 ]; then
			echo "  known kernel bugs (reported by check, not failed; findings per kind):"
			grep -E '^  known kernel bug' "$out" | sed -E 's/ \(first seen: .*//; s/ \[x[0-9]+\]$//' | sort | uniq -c | sed 's/^/  /'
		fi
	fi
done
exit $fail
