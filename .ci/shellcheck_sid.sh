#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Debian unstable's shellcheck, usually newer than a stable host's, so
# that the warnings of the next version show in our CI first.  Its .deb
# and those of the libraries it links (libc6 too: it wants a newer glibc
# than Debian stable has) come through the apt index of Debian unstable in
# vmtest.sh's root filesystem, are unpacked once under
# $VMTEST_CACHE/shellcheck-sid/VERSION and run with their own dynamic
# loader; nothing is installed.
#
# Usage: .ci/shellcheck_sid.sh SHELLCHECK_ARGS...   (root, amd64)

set -uo pipefail

CACHE=${VMTEST_CACHE:-$HOME/.cache/apparmor-selftests}
ROOTFS=""
for d in "$CACHE"/rootfs-sid-*/; do
	[[ -f ${d%/}.cpio ]] && ROOTFS=${d%/}
done
[[ -n $ROOTFS && -f $ROOTFS/etc/apt/vmtest-sid.list ]] ||
	{ echo "no vmtest.sh root filesystem in $CACHE: run vmtest.sh first" >&2; exit 2; }

# shellcheck source=.ci/sid_apt.sh
. "$(dirname "${BASH_SOURCE[0]}")/sid_apt.sh"
SID_DIR=/var/cache/shellcheck-ci

fetch()
{
	local tmp=$DIR.tmp debs=$ROOTFS$SID_DIR deb

	rm -rf "$tmp" "$debs" && mkdir -p "$tmp" "$debs" &&
		sid_apt "$SID_DIR" apt-get download shellcheck "${LIBS[@]}" >&2 || return 1
	for deb in "$debs"/*.deb; do
		dpkg-deb -x "$deb" "$tmp" || return 1
	done
	rm -rf "$debs" "$DIR" && mv "$tmp" "$DIR"
}

mkdir -p "$ROOTFS$SID_DIR"
VER=$(sid_apt "$SID_DIR" apt-cache show --no-all-versions shellcheck |
	sed -n 's/^Version: //p')
# Its Depends, one package each: libc6, libffi8, libgmp10, ...
mapfile -t LIBS < <(sid_apt "$SID_DIR" apt-cache depends shellcheck |
	awk '$1 == "Depends:" && $2 !~ /^</ { print $2 }')
rmdir "$ROOTFS$SID_DIR"
[[ -n $VER ]] || { echo "no shellcheck in Debian unstable's index" >&2; exit 2; }
DIR=$CACHE/shellcheck-sid/$VER
if [[ ! -x $DIR/usr/bin/shellcheck ]]; then
	echo "# fetching Debian unstable's shellcheck $VER" >&2
	fetch || { echo "fetching shellcheck $VER failed" >&2; exit 2; }
fi
SC=("$DIR/usr/lib64/ld-linux-x86-64.so.2" --library-path
	"$DIR/usr/lib/x86_64-linux-gnu" "$DIR/usr/bin/shellcheck")
"${SC[@]}" --version | sed -n 's/^version: /# Debian unstable shellcheck /p'
exec "${SC[@]}" "$@"
