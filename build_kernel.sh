#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build a minimal x86_64 kernel for the AppArmor selftests from a kernel
# tree plus an optional series of patches: tinyconfig + ./config (what the
# tests need) + ./config.vm (what it takes to boot under qemu with an
# initramfs and a serial console, less tinyconfig's defaults that neither
# uses).
#
# The tree itself is never written to.  It is mirrored with hard links
# into a work directory per (tree, config); the patched files are real
# copies there, so switching between patch series only rebuilds what the
# patches touch.  Each (tree, config, patches) image is kept, and handed
# out again while the tree has not changed.

set -euo pipefail

usage() {
	cat <<EOF
Usage: ${0##*/} [-h] [-d] [-p PATCH]... KERNEL_SRC [BUILD_DIR]

Build a bzImage from KERNEL_SRC with the patches applied in the order
given (patch -p1, "git format-patch" output works), print its path on
the last line of stdout, and a description of the build next to it
(kernel version, config fragments, patches).

  -d         the debug kernel: ./config.debug too (KASAN, kmemleak,
             lockdep, might_sleep(), WARN())
  -p PATCH   apply PATCH (repeatable; order matters)
  BUILD_DIR  work directories and images (default: \$VMTEST_CACHE/kbuild
             or ~/.cache/apparmor-selftests/kbuild)

Exit status: 0 built (or already built), 2 bad usage, 125 the kernel
cannot be built here (a patch does not apply, an option requested by the
fragments was dropped, the build failed): "git bisect run" skips it.
A patch that does not apply is named, and nothing is changed.
EOF
}

die() {
	echo "${0##*/}: $*" >&2
	exit 125
}

patches=()
debug=0
while getopts "hdp:" opt; do
	case $opt in
	h) usage; exit 0 ;;
	d) debug=1 ;;
	p) patches+=("$(realpath -e -- "$OPTARG")") || exit 2 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [[ $# -lt 1 || $# -gt 2 ]]; then
	usage >&2
	exit 2
fi

ksrc=$(realpath -e -- "$1")
[[ -f $ksrc/Makefile && -d $ksrc/arch/x86 ]] ||
	{ echo "${0##*/}: $ksrc is not a kernel source tree" >&2; exit 2; }
cache=${VMTEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/apparmor-selftests}
mkdir -p -- "${2:-$cache/kbuild}"
top=$(realpath -e -- "${2:-$cache/kbuild}")
here=$(dirname -- "$(realpath -e -- "${BASH_SOURCE[0]}")")
frags=("$here/config" "$here/config.vm")
[[ $debug -eq 0 ]] || frags+=("$here/config.debug")

sha() {
	sha256sum | cut -c1-16
}

# One work directory per tree and config: src (the mirror), obj (O=).
work=$top/$( { echo "$ksrc"; cat -- "${frags[@]}"; } | sha)
key=$(for p in "${patches[@]}"; do sha256sum <"$p"; done | sha)
src=$work/src
obj=$work/obj
img=$work/images/$key
mkdir -p -- "$work/images"
exec 9>"$work/lock"
flock 9

# Stage the series on copies of the files it touches, so that a patch
# that does not apply changes nothing, neither the tree nor the mirror.
stage=$(mktemp -d "$work/stage.XXXXXX")
trap 'rm -rf -- "$stage"' EXIT
touched=()
for p in "${patches[@]}"; do
	while IFS= read -r f; do
		[[ -e $stage/tree/$f || ! -f $ksrc/$f ]] ||
			install -D -m "$(stat -c %a -- "$ksrc/$f")" -- \
				"$ksrc/$f" "$stage/tree/$f"
		touched+=("$f")
	done < <(sed -n -E 's#^(---|\+\+\+) [^/ 	]+/([^ 	]+).*#\2#p' -- "$p" |
		 sort -u)
done
mkdir -p -- "$stage/tree"
for p in "${patches[@]}"; do
	if ! out=$(patch -d "$stage/tree" -p1 --batch --forward \
		--no-backup-if-mismatch -r - <"$p" 2>&1); then
		printf '%s\n' "$out" >&2
		die "patch ${p##*/} does not apply to $ksrc; nothing was changed"
	fi
done
mapfile -t touched < <(printf '%s\n' "${touched[@]}" | sort -u | grep .)

# Mirror the tree.  Left out: what makes kbuild refuse an O= build (a
# tree with "make headers" or a configuration in it) and version control.
# rsync replaces the previous series' files by links to the originals,
# whose old times would hide them from make: those become fresh copies.
mapfile -t applied < <(grep . -- "$work/applied" 2>/dev/null || true)
mkdir -p -- "$src" "$obj"
# Has the tree changed since the last run?  A file edited in place is
# seen by its time (the mirror shares it), one replaced by another by
# rsync.  The selftests are not part of the kernel: left out.  When no
# file was edited and no entry added, removed or renamed (each moves its
# directory's inode time on, which tar's restored times do not undo),
# the mirror is as rsync would leave it: rsync, a walk of both trees, is
# skipped.
changed=first
resync=1
if [[ -f $work/synced ]]; then
	changed=$(find "$ksrc" \( -path "$ksrc/.git" -o \
		-path "$ksrc/tools/testing/selftests" \) -prune -o \
		-newer "$work/synced" -print -quit)
	[[ -n $changed || -n $(find "$ksrc" -path "$ksrc/.git" -prune -o \
		-type d -cnewer "$work/synced" -print -quit) ]] || resync=0
fi
if [[ $resync -eq 1 ]]; then
	touch -- "$work/synced"
	# rsync's itemized changes (path from column 13), less those files,
	# the times of directories and the selftests.
	changed+=$(rsync -a --delete --itemize-changes --link-dest="$ksrc" \
		--exclude=/.git --exclude=/.config --exclude=/include/config/ \
		--exclude=/include/generated/ \
		--exclude='/arch/*/include/generated/' "$ksrc/" "$src/" |
		awk 'NR == FNR { a[$0]; next } /^\.d/ { next }
		     { p = substr($0, 13) }
		     !(p in a) && index(p, "tools/testing/selftests/") != 1' \
			<(printf '%s\n' "${applied[@]}") -)
else
	echo "${0##*/}: $ksrc unchanged since the mirror's last sync" >&2
fi
rm -f -- "$work/applied"
for f in "${applied[@]}"; do
	[[ -f $ksrc/$f ]] && cp --remove-destination -- "$ksrc/$f" "$src/$f"
	[[ -f $ksrc/$f ]] || rm -f -- "$src/$f"
done
for f in "${touched[@]}"; do
	if [[ -f $stage/tree/$f ]]; then
		install -D -m "$(stat -c %a -- "$stage/tree/$f")" -- \
			"$stage/tree/$f" "$src/$f.new"
		mv -f -- "$src/$f.new" "$src/$f"
	else
		rm -f -- "$src/$f"
	fi
done
# Files that may differ from what obj was built from: the series' files,
# and until the next make also the previous series' (a cached image skips
# make, and rsync would give them back their old times).
printf '%s\n' "${touched[@]}" "${applied[@]}" | grep . | sort -u \
	>"$work/applied" || true
if [[ -n ${changed//[[:space:]]/} ]]; then
	# Another tree: no earlier image of this work directory holds.
	rm -rf -- "$work/images"
	mkdir -p -- "$work/images"
fi

kmake() {
	nice make -C "$src" O="$obj" "$@"
}

describe() {
	echo "tree: $ksrc"
	echo "version: $(kmake -s kernelversion)"
	echo "config: tinyconfig ${frags[*]}"
	for p in "${patches[@]}"; do
		echo "patch: ${p##*/} $(sed -n 's/^Subject: //p' -- "$p" | head -n1)"
	done
	[[ ${#patches[@]} -gt 0 ]] || echo "patch: none"
}

if [[ -f $img/bzImage ]]; then
	echo "${0##*/}: $key already built from this tree" >&2
	echo "$img/bzImage"
	exit 0
fi

if [[ ! -f $work/configured ]]; then
	kmake tinyconfig || die "make tinyconfig failed"
	# merge_config.sh writes its temporary file in the current directory.
	# -m: only merge, olddefconfig below fills in the dependencies.
	(cd "$obj" && env -u KCONFIG_CONFIG \
		"$src/scripts/kconfig/merge_config.sh" -m .config "${frags[@]}") ||
		die "merging ${frags[*]} failed"
	kmake olddefconfig || die "make olddefconfig failed"

	# olddefconfig silently drops options whose dependencies are not
	# met; merge_config.sh -m does not check (last fragment wins).
	declare -A want=()
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			want[${line%%=*}]=$line ;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }
			want[${sym%% *}]="${sym%% *}=n" ;;
		esac
	done < <(cat -- "${frags[@]}")
	# A symbol this tree's Kconfig does not define is another version's
	# (7.3 names 7.2's PROC_SYSCTL SYSCTL): the fragments name both.
	declare -A known=()
	while IFS= read -r sym; do
		known[CONFIG_$sym]=1
	done < <(grep -rhoE --include='Kconfig*' '^[[:space:]]*(menu)?config [A-Z0-9_]+' \
		"$src" | awk '{ print $2 }')
	dropped=()
	for sym in "${!want[@]}"; do
		[[ -n ${known[$sym]:-} ]] || continue
		line=${want[$sym]}
		if [[ $line == *=n ]]; then
			grep -q "^$sym=" "$obj/.config" || continue
		else
			grep -qxF -- "$line" "$obj/.config" && continue
		fi
		got=$(grep -m1 -e "^$sym=" -e "^# $sym is not set" \
			"$obj/.config" || true)
		dropped+=("$line (got: ${got:-absent})")
	done
	if [[ ${#dropped[@]} -ne 0 ]]; then
		echo "ERROR: options dropped from $obj/.config:" >&2
		printf '  %s\n' "${dropped[@]}" | sort >&2
		exit 125
	fi
	touch "$work/configured"
fi

kmake -j"$(nproc)" bzImage || die "building $key failed (log above)"
printf '%s\n' "${touched[@]}" | grep . >"$work/applied" || true
mkdir -p -- "$img.tmp"
cp -- "$obj/arch/x86/boot/bzImage" "$obj/.config" "$img.tmp/"
describe >"$img.tmp/build-info"
rm -rf -- "$img"
mv -- "$img.tmp" "$img"
echo "$img/bzImage"
