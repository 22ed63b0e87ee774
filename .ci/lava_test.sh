#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A kselftest tarball run as a LAVA job, the way the KernelCI and LKFT labs
# run kselftests, with Debian's own lava-dispatcher (lava-run), offline:
# .ci/lava/kselftest-apparmor.yaml on the device .ci/lava/qemu-tcg.jinja2
# (qemu x86_64, TCG), the kernel and vmtest.sh's Debian unstable root
# filesystem (plus .ci/lava/init) as file:// URLs, the tarball as an
# overlay.  The verdict is LAVA's: lava-run's exit status and the test
# cases recorded in its log.
#
# Usage: .ci/lava_test.sh OUTDIR TARBALL KERNEL
#
# lava-dispatcher, lava-common and (for its device-type templates)
# lava-server come from Debian unstable through vmtest.sh's apt index in
# its root filesystem and are unpacked under $VMTEST_CACHE/lava, once.
# What they depend on is installed with the host's apt, the Python modules
# for its Debian python3 (/usr/bin/python3, not a python3 earlier in
# PATH): some are compiled per Python version.

set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
TOP=$(pwd)
CACHE=${VMTEST_CACHE:-$HOME/.cache/apparmor-selftests}
LAVA=$CACHE/lava
PY=/usr/bin/python3

[[ $# -eq 3 ]] || { echo "usage: $0 OUTDIR TARBALL KERNEL" >&2; exit 2; }
OUT=$(realpath -m "$1")
TARBALL=$(realpath "$2")
KERNEL=$(realpath "$3")
ROOTFS=""
for d in "$CACHE"/rootfs-sid-*/; do
	[[ -f ${d%/}.cpio ]] && ROOTFS=${d%/}
done
[[ -n $ROOTFS ]] ||
	{ echo "no vmtest.sh root filesystem in $CACHE: run vmtest.sh first" >&2; exit 2; }

# shellcheck source=.ci/sid_apt.sh
. "$TOP/.ci/sid_apt.sh"
SID_DIR=/var/cache/lava-ci

# What lava-dispatcher and lava-common depend on, installed with the
# host's apt: python3 and the python3-* packages as its archive builds them
# for that python3 (apt adds their own dependencies), and the tools
# lava-run calls (ip from iproute2, ...).  Not lava-common, unpacked here,
# nor systemd-sysv, a LAVA worker's init; and only what the host's archive
# has (Debian 12 has no bmaptool).  The apt output goes to $OUT/apt.log.
deps()
{
	local p want=() pkgs=(python3)

	mapfile -t want < <(sid_apt "$SID_DIR" apt-cache depends lava-dispatcher \
		lava-common | awk '$1 ~ /Depends:$/ &&
			$2 !~ /^(<|lava-|systemd-sysv$)/ { print $2 }' | sort -u)
	rmdir "$ROOTFS$SID_DIR" 2>/dev/null
	[[ ${#want[@]} -gt 0 ]] || return 1
	export DEBIAN_FRONTEND=noninteractive
	apt-cache show python3 >/dev/null 2>&1 ||
		apt-get update -q >"$OUT/apt.log" 2>&1
	for p in "${want[@]}"; do
		apt-cache show --no-all-versions "$p" >/dev/null 2>&1 &&
			pkgs+=("$p")
	done
	echo "# installing on the host: ${pkgs[*]}"
	apt-get install -y -q --no-install-recommends "${pkgs[@]}" \
		>>"$OUT/apt.log" 2>&1 ||
		{ tail -n 20 "$OUT/apt.log" >&2; return 1; }
}

fetch()
{
	local tmp=$LAVA.tmp d

	[[ -f $LAVA/.done ]] && return 0
	rm -rf "$tmp" "$ROOTFS$SID_DIR" && mkdir -p "$tmp/debs" &&
		sid_apt "$SID_DIR" apt-get download lava-dispatcher lava-common lava-server &&
		mv "$ROOTFS$SID_DIR"/*.deb "$tmp/debs/" || return 1
	rm -rf "$ROOTFS$SID_DIR"
	for d in "$tmp"/debs/*.deb; do
		[[ $d == */lava-server_* ]] && continue
		dpkg-deb -x "$d" "$tmp/root" || return 1
	done
	mkdir -p "$tmp/device-types"
	dpkg-deb --fsys-tarfile "$tmp"/debs/lava-server_*.deb |
		tar -x -C "$tmp/device-types" --strip-components=5 \
			./usr/share/lava-server/device-types || return 1
	rm -rf "$LAVA" && mv "$tmp" "$LAVA" && touch "$LAVA/.done"
}

# One cpio archive (LAVA unpacks the ramdisk with cpio, which stops at the
# first archive): the root filesystem and a /init that gives LAVA a shell.
ramdisk()
{
	local dir

	dir=$(mktemp -d "$OUT/ramdisk.XXXXXX") &&
		(cd "$dir" && cpio -i -d -m --quiet <"$ROOTFS.cpio") &&
		install -m 755 .ci/lava/init "$dir/init" &&
		(cd "$dir" && find . -print0 | cpio -o -0 -H newc -R 0:0 --quiet) \
			>"$OUT/ramdisk.cpio"
	local rc=$?

	rm -rf "$dir"
	return $rc
}

rm -rf "$OUT" && mkdir -p "$OUT/tmp" "$OUT/job"
fetch || { echo "fetching lava-dispatcher failed" >&2; exit 1; }
deps || { echo "installing lava-dispatcher's dependencies failed" >&2; exit 1; }
ramdisk || { echo "making the ramdisk failed" >&2; exit 1; }
export PYTHONPATH=$LAVA/root/usr/lib/python3/dist-packages LAVA_TMP=$OUT/tmp
sed -e "s|@KERNEL@|$KERNEL|" -e "s|@RAMDISK@|$OUT/ramdisk.cpio|" \
	-e "s|@TARBALL@|$TARBALL|" .ci/lava/kselftest-apparmor.yaml >"$OUT/job.yaml"
printf 'dispatcher_download_dir: %s\n' "$LAVA_TMP" >"$OUT/dispatcher.yaml"
"$PY" .ci/lava/render_device.py "$TOP/.ci/lava/qemu-tcg.jinja2" \
	"$LAVA/device-types" "$OUT/job.yaml" >"$OUT/device.yaml" || exit 1
echo "# lava-run $(PYTHONPATH=$PYTHONPATH "$PY" -c \
	'import lava_common.version as v; print(v.__version__)' 2>/dev/null)"
start=$SECONDS
"$PY" .ci/lava/lava_run.py --job-id 1 --output-dir "$OUT/job" \
	--device "$OUT/device.yaml" --dispatcher "$OUT/dispatcher.yaml" \
	"$OUT/job.yaml" 2>"$OUT/job/stderr.log"
rc=$?
echo "# lava-run exit status $rc after $((SECONDS - start)) s"
grep -E '^(result|error_msg|error_type):' "$OUT/job/result.yaml" 2>/dev/null |
	sed 's/^/# job /'
"$PY" .ci/lava/results.py "$OUT/job/logs.yaml" >"$OUT/results.txt"
res=$?
grep -v ' pass$' "$OUT/results.txt"
rm -f "$OUT/ramdisk.cpio"
for prog in aa_unix_mediation unix_fixes_test af_unix_send_perf; do
	grep -Eqx "[0-9]*_?kselftest-apparmor/apparmor_$prog pass" "$OUT/results.txt" ||
		{ echo "# no LAVA pass for $prog"; res=1; }
done
[[ $rc -eq 0 && $res -eq 0 ]]
