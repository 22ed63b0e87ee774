#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build a minimal x86_64 kernel for the AppArmor selftests:
# tinyconfig + ./config (what the tests need) + ./config.vm (what it takes to
# boot under qemu with an initramfs and a serial console).

set -euo pipefail

usage() {
	cat <<EOF
Usage: ${0##*/} [-h] KERNEL_SRC OUTPUT_DIR

Configure (tinyconfig + config + config.vm) and build a bzImage from
KERNEL_SRC out of tree in OUTPUT_DIR, then print the bzImage path.
Fails, listing them, if any option requested by the fragments was dropped.
EOF
}

if [[ ${1:-} == -h ]]; then
	usage
	exit 0
fi
if [[ $# -ne 2 ]]; then
	usage >&2
	exit 2
fi

ksrc=$(realpath -e -- "$1")
mkdir -p -- "$2"
# make -C changes directory before it looks at O=, so O= must be absolute.
out=$(realpath -e -- "$2")
here=$(dirname -- "$(realpath -e -- "${BASH_SOURCE[0]}")")
frags=("$here/config" "$here/config.vm")

kmake() {
	make -C "$ksrc" O="$out" "$@"
}

kmake tinyconfig
# Run merge_config.sh inside $out: it creates its temporary file in the
# current directory, and the kernel source tree must stay untouched.
# -m: only merge, olddefconfig below fills in the dependencies.
(cd "$out" && env -u KCONFIG_CONFIG \
	"$ksrc/scripts/kconfig/merge_config.sh" -m .config "${frags[@]}")
kmake olddefconfig

# olddefconfig silently drops options whose dependencies are not met;
# merge_config.sh -m does not check, so compare by hand (last fragment wins).
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

dropped=()
for sym in "${!want[@]}"; do
	line=${want[$sym]}
	if [[ $line == *=n ]]; then
		grep -q "^$sym=" "$out/.config" || continue
	else
		grep -qxF -- "$line" "$out/.config" && continue
	fi
	got=$(grep -m1 -e "^$sym=" -e "^# $sym is not set" "$out/.config" || true)
	dropped+=("$line (got: ${got:-absent})")
done
if [[ ${#dropped[@]} -ne 0 ]]; then
	echo "ERROR: options dropped from $out/.config:" >&2
	printf '  %s\n' "${dropped[@]}" | sort >&2
	exit 1
fi

kmake -j"$(nproc)" bzImage
echo "$out/arch/x86/boot/bzImage"
