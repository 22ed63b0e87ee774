#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Maintainer front end for af_unix_send_perf, kept out of the default
# kselftest run (TEST_PROGS_EXTENDED): timing needs a quiet machine.
#
#   run_perf.sh record [-- BENCH_ARGS]   measure, store this machine's baseline
#   run_perf.sh check  [-- BENCH_ARGS]   measure, compare with the baseline
#   run_perf.sh compare [REPORT_ARGS] A B A2
#       A/B/A report over results from fresh boots (parent, child, parent):
#       JSON files from "af_unix_send_perf --json" or ns/msg numbers.
#       Exits 1 when B is slower than --threshold PCT (default 5).
#   run_perf.sh vm-aba [-t PCT] [-o DIR] IMG_A IMG_B [-- BENCH_ARGS]
#       boots IMG_A, IMG_B, IMG_A through ./vmtest.sh --icount and compares.
#
# Exit status: kselftest codes (4 = skip) for record/check, perf_report's
# for compare (0 ok, 1 regression, 2 bad input).
set -euo pipefail

readonly ksft_skip=4
dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly dir

usage() {
	sed -n '4,17s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
}

need() {
	if [ ! -x "$dir/$1" ]; then
		echo "run_perf.sh: $dir/$1 not built (make -C $dir)" >&2
		exit 1
	fi
}

if [ "${KSFT_MACHINE_SLOW:-}" = yes ]; then
	echo "run_perf.sh: SKIP: KSFT_MACHINE_SLOW=yes, timing is meaningless" >&2
	exit "$ksft_skip"
fi

# Optional "--" before benchmark arguments.
bench_args() {
	if [ "${1:-}" = -- ]; then
		shift
	fi
	printf '%s\0' "$@"
}

vm_aba() {
	local thr=5 out imga imgb i img
	local -a args=()

	out=$(mktemp -d /tmp/aa_send_perf_aba.XXXXXX)
	while getopts "t:o:" opt; do
		case $opt in
		t) thr=$OPTARG ;;
		o) out=$OPTARG ;;
		*) usage >&2; exit 2 ;;
		esac
	done
	shift $((OPTIND - 1))
	if [ $# -lt 2 ]; then
		usage >&2
		exit 2
	fi
	imga=$1
	imgb=$2
	shift 2
	if [ "${1:-}" = -- ]; then
		shift
		args=("$@")
	fi
	if [ ! -x "$dir/vmtest.sh" ]; then
		echo "run_perf.sh: vmtest.sh not found next to $0" >&2
		exit 2
	fi
	i=0
	for img in "$imga" "$imgb" "$imga"; do
		i=$((i + 1))
		mkdir -p "$out/$i"
		"$dir/vmtest.sh" -k "$img" --icount -o "$out/$i" -- \
			./af_unix_send_perf --variants unconfined \
			--json /output/result.json "${args[@]}" || true
		if [ ! -s "$out/$i/result.json" ]; then
			echo "run_perf.sh: boot $i ($img) gave no result.json" >&2
			exit 2
		fi
	done
	exec "$dir/perf_report" --threshold "$thr" \
		"$out/1/result.json" "$out/2/result.json" "$out/3/result.json"
}

cmd=${1:-}
if [ $# -gt 0 ]; then
	shift
fi
case $cmd in
record)
	need af_unix_send_perf
	mapfile -d '' -t args < <(bench_args "$@")
	exec "$dir/af_unix_send_perf" --variants unconfined --record \
		"${args[@]}"
	;;
check)
	need af_unix_send_perf
	mapfile -d '' -t args < <(bench_args "$@")
	exec "$dir/af_unix_send_perf" --variants unconfined "${args[@]}"
	;;
compare)
	need perf_report
	exec "$dir/perf_report" "$@"
	;;
vm-aba)
	need perf_report
	vm_aba "$@"
	;;
-h | --help | help)
	usage
	;;
*)
	usage >&2
	exit 2
	;;
esac
