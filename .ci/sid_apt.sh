# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by the CI scripts that fetch from Debian unstable without
# installing anything on the host (lava_test.sh, shellcheck_sid.sh).

# sid_apt DIR TOOL ARGS...: as vmtest.sh's chroot_apt, TOOL with Debian
# unstable's index inside vmtest.sh's root filesystem $ROOTFS, run in its
# directory DIR (made if need be), where downloads land.
sid_apt()
{
	local dir=$1 tool=$2

	shift 2
	mkdir -p "$ROOTFS$dir"
	chroot "$ROOTFS" env -C "$dir" "$tool" -q \
		-o APT::Sandbox::User=root -o Acquire::Check-Valid-Until=false \
		-o Dir::Etc::SourceList=/etc/apt/vmtest-sid.list \
		-o Dir::Etc::SourceParts=/etc/apt/vmtest-empty.d \
		-o Dir::State::Lists=/var/lib/apt/vmtest-lists-sid \
		-o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= "$@"
}
