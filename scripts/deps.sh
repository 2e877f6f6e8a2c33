#!/usr/bin/env bash
# Installs what trampemu needs on a Debian machine, idempotently:
#   Unicorn >= 2.1 (Debian 13's libunicorn2t64 + libunicorn-dev 2.1.1 on Debian 12,
#   whose own 2.0.1 is 25-75x slower on guest stores),
#   binutils-s390x-linux-gnu, binutils-x86-64-linux-gnu, binutils-aarch64-linux-gnu,
#   binutils-riscv64-linux-gnu,
#   pkg-config, valgrind,
#   cpp, patch and git (GNU patch / git apply, for check --patch),
#   util-linux (prlimit: the resource limits of every toolchain program run).
#   xz-utils (make verify-trees unpacks Debian's linux-source tarballs).
#   the kernel's objtool: Debian's linux-kbuild-6.1 (or a linux-kbuild-6.12.*
#   where 6.1 is gone), /usr/lib/linux-kbuild-*/tools/objtool/objtool.
# Does nothing when everything is already there.
set -euo pipefail

need_pkgs=()
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_cmd pkg-config || need_pkgs+=(pkg-config)
have_cmd s390x-linux-gnu-as || need_pkgs+=(binutils-s390x-linux-gnu)
have_cmd x86_64-linux-gnu-as || need_pkgs+=(binutils-x86-64-linux-gnu)
have_cmd aarch64-linux-gnu-as || need_pkgs+=(binutils-aarch64-linux-gnu)
have_cmd riscv64-linux-gnu-as || need_pkgs+=(binutils-riscv64-linux-gnu)
have_cmd valgrind || need_pkgs+=(valgrind)
have_cmd cpp || need_pkgs+=(cpp)
have_cmd patch || need_pkgs+=(patch)
have_cmd git || need_pkgs+=(git)
have_cmd prlimit || need_pkgs+=(util-linux)
have_cmd xz || need_pkgs+=(xz-utils) # make verify-trees: the linux-source tarballs
have_objtool() {
	for f in /usr/lib/linux-kbuild-6.1/tools/objtool/objtool /usr/lib/linux-kbuild-6.12*/tools/objtool/objtool; do
		[ -x "$f" ] && return 0
	done
	return 1
}
need_objtool=0
have_objtool || need_objtool=1

unicorn_ok() {
	have_cmd pkg-config && pkg-config --exists unicorn &&
		pkg-config --atleast-version=2.1 unicorn
}

if [ ${#need_pkgs[@]} -eq 0 ] && [ $need_objtool -eq 0 ] && unicorn_ok; then
	exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	if have_cmd sudo && sudo -n true 2>/dev/null; then
		SUDO="sudo"
	else
		echo "deps: missing: ${need_pkgs[*]} $(unicorn_ok || echo 'unicorn>=2.1')" >&2
		echo "deps: run as root:  sudo bash scripts/deps.sh" >&2
		exit 1
	fi
fi
export DEBIAN_FRONTEND=noninteractive

if [ ${#need_pkgs[@]} -gt 0 ]; then
	echo "deps: installing ${need_pkgs[*]}" >&2
	$SUDO apt-get update -qq
	$SUDO apt-get install -y -qq "${need_pkgs[@]}" >/dev/null
fi

if [ $need_objtool -eq 1 ]; then
	[ ${#need_pkgs[@]} -gt 0 ] || $SUDO apt-get update -qq
	kb=linux-kbuild-6.1
	cand=$(apt-cache policy "$kb" 2>/dev/null | awk '/Candidate:/ {print $2}')
	if [ -z "$cand" ] || [ "$cand" = "(none)" ]; then
		kb=$(apt-cache search --names-only '^linux-kbuild-6\.12' 2>/dev/null | awk '{print $1}' | sort -V | tail -n1)
	fi
	if [ -z "$kb" ]; then
		echo "deps: no linux-kbuild-6.1 or linux-kbuild-6.12.* package (the kernel's objtool) in the configured Debian archive" >&2
		exit 1
	fi
	echo "deps: installing $kb (the kernel's objtool)" >&2
	$SUDO apt-get install -y -qq "$kb" >/dev/null
	have_objtool || { echo "deps: $kb has no tools/objtool/objtool" >&2; exit 1; }
fi

if unicorn_ok; then
	exit 0
fi

# Unicorn: the distribution's own package when it is >= 2.1 (Debian 13+).
cand=$(apt-cache policy libunicorn-dev 2>/dev/null | awk '/Candidate:/ {print $2}')
if [ -n "$cand" ] && [ "$cand" != "(none)" ] && dpkg --compare-versions "$cand" ge 2.1; then
	echo "deps: installing libunicorn-dev $cand" >&2
	$SUDO apt-get install -y -qq libunicorn-dev >/dev/null
	unicorn_ok && exit 0
fi

# Otherwise fetch Debian 13 (trixie) libunicorn2t64 + libunicorn-dev by name
# from the machine's own configured Debian mirror (never a host name written here).
mirror=""
for f in /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] || continue
	m=$(awk 'tolower($1)=="uris:" {for (i=2;i<=NF;i++) print $i}' "$f" |
		grep -E '/debian/?$' | head -n1 || true)
	[ -n "$m" ] && { mirror=$m; break; }
done
if [ -z "$mirror" ] && [ -f /etc/apt/sources.list ]; then
	mirror=$(awk '$1=="deb" {for (i=2;i<=NF;i++) if ($i ~ /^(https?|file):/) {print $i; break}}' /etc/apt/sources.list |
		grep -E '/debian/?$' | head -n1 || true)
fi
if [ -z "$mirror" ]; then
	echo "deps: no Debian mirror found in /etc/apt/sources.list{,.d}; install Unicorn >= 2.1 (libunicorn-dev) by hand" >&2
	exit 1
fi
echo "deps: fetching libunicorn2t64 and libunicorn-dev from trixie at $mirror" >&2
tmp=$(mktemp -d)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/lists/partial" "$tmp/debs"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
opts="[signed-by=$keyring]"
[ -f "$keyring" ] || opts=""
echo "deb $opts $mirror trixie main" >"$tmp/trixie.list"
aptopts=(-o Dir::Etc::SourceList="$tmp/trixie.list" -o Dir::Etc::SourceParts=/dev/null
	-o Dir::State::Lists="$tmp/lists" -o APT::Sandbox::User=root -o Acquire::Languages=none
	-o Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false -o Acquire::IndexTargets::deb::DEP-11-icons::DefaultEnabled=false)
$SUDO apt-get "${aptopts[@]}" update -qq
(cd "$tmp/debs" && $SUDO apt-get "${aptopts[@]}" download libunicorn2t64 libunicorn-dev)
$SUDO apt-get install -y -qq "$tmp"/debs/libunicorn2t64_*.deb "$tmp"/debs/libunicorn-dev_*.deb >/dev/null
if ! unicorn_ok; then
	echo "deps: Unicorn is still < 2.1 after installing; pkg-config says: $(pkg-config --modversion unicorn 2>&1)" >&2
	exit 1
fi
echo "deps: unicorn $(pkg-config --modversion unicorn)" >&2
