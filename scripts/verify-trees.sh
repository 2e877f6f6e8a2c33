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
# errors (check --tree exits 1 on them): each an arch, the rows it shows
# in (an awk regex on the result row) and the error it gives (a grep -E
# regex on the error line). Every other row must be ok.
#   - s390x v5.14-v6.12 ftrace_common calls ftrace_graph_caller after the
#     callbacks, so when an error injection moved psw.addr to gprs[14]
#     (arch/s390/lib/error-inject.c) prepare_ftrace_return still hooks r14
#     and the branch to psw.addr never pops that shadow-stack frame
#     (docs/orc.md, "Shadow-stack balance").
#   - riscv64 v6.3-v6.10 ftrace_regs_caller (6.1.192 carries the v6.3
#     t0-based entry): SAVE_ALL stores x2 after "addi sp, sp,
#     -PT_SIZE_ON_STACK", so regs->sp is entry sp - 288, not the traced
#     function's (the entry sp is stored from v6.11, 7caa9765465f).
#   - riscv64 v5.x-v6.1 return_to_handler (6.1.192's mcount.S): a0 is
#     saved but a1 is not, and the original return address comes back
#     through a1 ("mv a1, a0; jalr a1"): the upper half of a 128-bit
#     result is lost (ret128, and whatever a1 held; ftrace_caller's
#     ret128 row, whose graph user returns through it, shows it too).
#   - riscv64 return_to_handler of 67a5ba8f742f (6.12.117 carries it):
#     s0 = sp + FREGS_SIZE_ON_STACK makes s0-16/s0-8 the unwritten a7 slot
#     and padding of struct __arch_ftrace_regs, no frame record: a stack
#     walk from ftrace_return_to_handler stops there (the v6.5-v6.13
#     block, a1/a0/s0/ra, was one).
KNOWN=(
	's390x| fei_target |^  error control: shadow stack not balanced after fei_target: frame of .* \(user graph\) left behind'
	'riscv64|mcount-dyn[.]S:ftrace_regs_caller |^  error wrong-value sp: sp does not hold what it means \(first seen: entry sp -288, want entry sp \+0\)'
	'riscv64|mcount[.]S:return_to_handler |^  error clobber %a1: %a1 changed across return_to_handler'
	'riscv64|mcount-dyn[.]S:ftrace_caller +entry +ret128 |^  error clobber %a1: ret128 returned a wrong result \(word 1\)'
	'riscv64|mcount[.]S:return_to_handler |^  error backchain: the frame-record chain from s0 at the call to ftrace_return_to_handler does not reach'
)
known_errors=$(for k in "${KNOWN[@]}"; do echo "${k#*|*|}"; done | paste -sd'|')
# known_rows ARCH: the awk regex of the arch's known rows ("^$" for none).
known_rows() {
	local out="" k
	for k in "${KNOWN[@]}"; do
		[ "${k%%|*}" = "$1" ] || continue
		k=${k#*|}
		out="$out${out:+|}${k%%|*}"
	done
	echo "${out:-^\$}"
}

fail=0
for pkg in $PKGS; do
	fetch "$pkg"
	dir=$CACHE/$pkg
	out=$dir/check.txt
	rc=0
	"$BIN" check --tree "$dir/tree" >"$out" 2>&1 || rc=$?
	ver=$(cat "$dir/version")
	bad=""
	known=0
	for arch in $ARCHES; do
		n=$(awk -v a="$arch" -v r="$(known_rows "$arch")" '$1 == a && NF >= 6 && $6 != "ok" && $0 ~ r {n++} END {print n+0}' "$out")
		known=$((known + n))
	done
	unknown_errors=$(grep -E '^  error ' "$out" | grep -cvE "$known_errors" || true)
	[ "$unknown_errors" -eq 0 ] || bad="$unknown_errors error lines that are no known kernel bug"
	if [ "$rc" -ne 0 ] && ! { [ "$rc" -eq 1 ] && [ "$known" -gt 0 ] && [ "$unknown_errors" -eq 0 ]; }; then
		bad="$bad${bad:+; }exit status $rc"
	fi
	for arch in $ARCHES; do
		read -r rows notok entries exits < <(awk -v a="$arch" -v r="$(known_rows "$arch")" '$1 == a && NF >= 6 {n++; if ($6 != "ok" && $0 !~ r) f++; if ($3 == "entry") e++; if ($3 == "exit") x++}
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
		echo "verify-trees: $pkg $ver: ok ($(awk -v l="$ARCHES" 'BEGIN{split(l,a," "); for(i in a) w[a[i]]=1} ($1 in w) && NF>=6 {n++} END{print n+0}' "$out") rows, $known of them the known kernel bugs below, the rest ok; $models)"
		grep '^note:' "$out" | sed 's/^/  /'
		if [ "$known" -gt 0 ]; then
			echo "  known kernel bugs, reported as errors ($known rows; the list above KNOWN in scripts/verify-trees.sh):"
			grep -E "$known_errors" "$out" | sort | uniq -c | sed 's/^/  /'
		fi
	fi
done
exit $fail
