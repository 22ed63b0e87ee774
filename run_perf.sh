#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Maintainer front end for af_unix_send_perf; timing needs a quiet machine.
#
#   run_perf.sh record [-n RUNS] [-- BENCH_ARGS]
#       measure RUNS runs (default 20), each in a process of its own, and
#       store them as this machine's baseline: later checks take their
#       tolerance from how far the runs spread
#   run_perf.sh vm-record [-n RUNS] [-o DIR] KERNEL [-- BENCH_ARGS]
#       the same in RUNS fresh boots of KERNEL (default 3) with
#       ./vmtest.sh --icount, one run each; writes DIR/baseline, for
#       "af_unix_send_perf --baseline" in guests of ./vmtest.sh --icount
#   run_perf.sh check  [-- BENCH_ARGS]   measure, compare with the baseline
#   run_perf.sh sweep  [-- BENCH_ARGS]
#       unconfined sends of 64, 128, 256, 512 and 1024 B, the range of the
#       2018 DEFINE_AUDIT_SK report, as one table (needs jq)
#   run_perf.sh compare [REPORT_ARGS] A B A2
#       A/B/A numbers over results from fresh boots (parent, child, parent):
#       JSON files from "af_unix_send_perf --json" or ns/msg numbers.
#       Exits 1 when B is slower than --threshold PCT (default 5).
#   run_perf.sh report [-t PCT] [-a DESC] [-b DESC] [-o DIR] A B A2
#       the plain-text A/B/A report a maintainer can paste into a reply,
#       every workload and size of three JSON files (aba_report.sh)
#   run_perf.sh vm-aba [-t PCT] [-o DIR] [-j N] [-a ARGS] [-b ARGS]
#                      KERNEL_A KERNEL_B [-- BENCH_ARGS]
#       boots KERNEL_A, KERNEL_B, KERNEL_A with ./vmtest.sh --icount, up
#       to N guests at once (default 3; the guest clock counts
#       instructions, so load on the host does not change the figures),
#       runs af_unix_send_perf --variants unconfined BENCH_ARGS in each and
#       writes the report to DIR/report.txt.  KERNEL: a bzImage (patch
#       names from the build-info beside it, see build_kernel.sh), or
#       debian:SUITE for Debian's kernel of SUITE (vmtest.sh -d).  -a, -b:
#       kernel command line for A or B (e.g. -b lsm=capability).
#
# Exit status: kselftest codes (4 = skip) for record/check, perf_report's
# for compare, report and vm-aba (0 ok, 1 regression, 2 bad input or a
# failed boot); vm-record: the last run's, 2 for a failed boot.
# perf_report: $PERF_REPORT, else perf_report.py next to this script
# (needs python3).
set -euo pipefail

dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly dir

usage() {
	sed -n '4,42s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
}

need() {
	if [ ! -x "$dir/$1" ]; then
		echo "run_perf.sh: $dir/$1 not built (make -C $dir)" >&2
		exit 1
	fi
}

# Sets $report: $PERF_REPORT, else perf_report.py next to this script.
find_report() {
	if [ -n "${PERF_REPORT:-}" ]; then
		report=$PERF_REPORT
		return
	fi
	report=$dir/perf_report.py
	if [ ! -x "$report" ]; then
		echo "run_perf.sh: no executable perf_report.py next to $0" \
			"(or set PERF_REPORT)" >&2
		exit 2
	fi
	if ! command -v python3 >/dev/null; then
		echo "run_perf.sh: perf_report.py needs python3" \
			"(Debian: apt-get install python3)" >&2
		exit 2
	fi
}

# Optional "--" before benchmark arguments.
bench_args() {
	if [ "${1:-}" = -- ]; then
		shift
	fi
	printf '%s\0' "$@"
}

# Workload, size, dgram ns/msg and ratio of each unconfined dgram series.
json_summary() {
	jq -r '[.series[] | select(.variant == "unconfined" and .sock == "dgram") |
		"\(.workload) \(.msg_size)B: dgram \(.mean) ns/msg, ratio \(.ratio)"] |
		join("; ")' "$1" 2>/dev/null || echo "(unreadable result)"
}

# kernel_args KERNEL CMDLINE: sets kern, vmtest.sh's arguments for them.
kernel_args() {
	case $1 in
	debian:*) kern=(-d "${1#debian:}") ;;
	*) kern=(-k "$1") ;;
	esac
	[ -z "$2" ] || kern+=(-a "$2")
}

# need_kernel KERNEL: a bzImage that exists, or debian:SUITE.
need_kernel() {
	case $1 in
	debian:?*) ;;
	*)
		if [ ! -f "$1" ]; then
			echo "run_perf.sh: no such kernel image: $1" >&2
			exit 2
		fi
		;;
	esac
}

# need_vmtest: vm-aba and vm-record boot guests with vmtest.sh.
need_vmtest() {
	if [ ! -x "$dir/vmtest.sh" ]; then
		echo "run_perf.sh: $1 needs vmtest.sh next to $0" \
			"(run it from the source directory)" >&2
		exit 2
	fi
}

# vm_record [-n RUNS] [-o DIR] KERNEL [-- BENCH_ARGS]: record in fresh
# boots, one after the other, each handed the baseline so far.
vm_record() {
	local n=3 out="" k i rc opt prev
	local -a args=() kern

	OPTIND=1
	while getopts "n:o:" opt; do
		case $opt in
		n) n=$OPTARG ;;
		o) out=$OPTARG ;;
		*) usage >&2; exit 2 ;;
		esac
	done
	shift $((OPTIND - 1))
	if [ $# -lt 1 ] || ! [[ $n =~ ^[1-9][0-9]*$ ]] ||
		{ [ $# -gt 1 ] && [ "$2" != -- ]; }; then
		usage >&2
		exit 2
	fi
	k=$1
	shift
	[ $# -eq 0 ] || shift
	args=("$@")
	need_vmtest vm-record
	need_kernel "$k"
	kernel_args "$k" ""
	[ -n "$out" ] || out=$(mktemp -d /tmp/aa_send_perf_record.XXXXXX)
	mkdir -p "$out"
	prev=""
	for ((i = 1; i <= n; i++)); do
		rm -rf "${out:?}/$i"
		mkdir -p "$out/$i"
		echo "run_perf.sh: boot $i of $n: $k" >&2
		rc=0
		# shellcheck disable=SC2016 # expanded by the guest's shell
		"$dir/vmtest.sh" "${kern[@]}" --icount -o "$out/$i" -- bash -c '
			[ -z "$1" ] || printf "%s\n" "$1" >/tmp/base
			shift
			rc=0
			./af_unix_send_perf --variants unconfined --baseline /tmp/base \
				--json /output/result.json "$@" || rc=$?
			cp /tmp/base /output/baseline 2>/dev/null
			exit "$rc"' bash "$prev" --add-run --runs "$n" "${args[@]}" \
			>"$out/$i.log" 2>&1 || rc=$?
		grep -E '^(not )?ok [0-9]+ .*vs baseline' "$out/$i.log" >&2 || true
		if [ ! -s "$out/$i/baseline" ] || [ "$rc" -ge 124 ] ||
			{ [ "$rc" -ne 0 ] && [ "$i" -lt "$n" ]; }; then
			tail -n 20 "$out/$i.log" >&2
			echo "run_perf.sh: boot $i ($k) failed (vmtest.sh exit" \
				"status $rc); log: $out/$i.log" >&2
			exit 2
		fi
		prev=$(cat "$out/$i/baseline")
	done
	cp "$out/$n/baseline" "$out/baseline"
	echo "run_perf.sh: baseline of $n boots in $out/baseline" >&2
	exit "$rc"
}

# boot I KERNEL CMDLINE OUT BENCH_ARGS...: boot I of an A/B/A, its
# result in OUT/I.
boot() {
	local i=$1 k=$2 cmdline=$3 out=$4 rc=0
	local -a kern

	shift 4
	kernel_args "$k" "$cmdline"
	rm -rf "${out:?}/$i"
	mkdir -p "$out/$i"
	case $k in
	debian:*) echo "patch: none (Debian's kernel of ${k#debian:})" ;;
	*) cat "$(dirname -- "$k")/build-info" 2>/dev/null || true ;;
	esac >"$out/$i/build-info"
	[ -z "$cmdline" ] || echo "cmdline: $cmdline" >>"$out/$i/build-info"
	echo "run_perf.sh: boot $i of 3: $k $cmdline" >&2
	"$dir/vmtest.sh" "${kern[@]}" --icount -o "$out/$i" -- \
		./af_unix_send_perf --variants unconfined \
		--json /output/result.json "$@" >"$out/$i.log" 2>&1 || rc=$?
	# 1: a benchmark FAIL or a kernel splat; the JSON still counts.
	if [ "$rc" -ge 124 ] || [ ! -s "$out/$i/result.json" ]; then
		tail -n 20 "$out/$i.log" >&2
		echo "run_perf.sh: boot $i ($k) failed (vmtest.sh exit status" \
			"$rc), no result; log: $out/$i.log" >&2
		return 2
	fi
	echo "run_perf.sh: boot $i: $(json_summary "$out/$i/result.json")" \
		"(vmtest.sh exit status $rc)" >&2
}

vm_aba() {
	local thr=5 out="" jobs=3 i k opt failed=0
	local -a args=() names=() pids=() cmdlines=("" "" "")

	OPTIND=1
	while getopts "t:o:j:a:b:" opt; do
		case $opt in
		a) cmdlines[0]=$OPTARG; cmdlines[2]=$OPTARG ;;
		b) cmdlines[1]=$OPTARG ;;
		t) thr=$OPTARG ;;
		o) out=$OPTARG ;;
		j) jobs=$OPTARG ;;
		*) usage >&2; exit 2 ;;
		esac
	done
	shift $((OPTIND - 1))
	if [ $# -lt 2 ] || ! [[ $jobs =~ ^[1-9][0-9]*$ ]]; then
		usage >&2
		exit 2
	fi
	names=("$1" "$2" "$1")
	shift 2
	if [ $# -gt 0 ]; then
		if [ "$1" != -- ]; then
			usage >&2
			exit 2
		fi
		shift
		args=("$@")
	fi
	need_vmtest vm-aba
	for k in "${names[@]:0:2}"; do
		need_kernel "$k"
	done
	find_report
	[ -n "$out" ] || out=$(mktemp -d /tmp/aa_send_perf_aba.XXXXXX)
	for i in 1 2 3; do
		if [ "${#pids[@]}" -ge "$jobs" ]; then
			wait "${pids[0]}" || failed=1
			pids=("${pids[@]:1}")
		fi
		boot "$i" "${names[$((i - 1))]}" "${cmdlines[$((i - 1))]}" \
			"$out" "${args[@]}" &
		pids+=($!)
	done
	for i in "${pids[@]}"; do
		wait "$i" || failed=1
	done
	if [ "$failed" -ne 0 ]; then
		exit 2
	fi
	run_report_script -t "$thr" -o "$out" \
		"$out/1/result.json" "$out/2/result.json" "$out/3/result.json"
}

# sweep BENCH_ARGS...: the sizes of the netperf-like sweep, one table.
sweep() {
	local tmp rc=0

	if ! command -v jq >/dev/null; then
		echo "run_perf.sh: sweep needs jq (Debian: apt-get install jq)" >&2
		exit 2
	fi
	tmp=$(mktemp -d /tmp/aa_send_perf_sweep.XXXXXX)
	"$dir/af_unix_send_perf" --variants unconfined \
		--sizes 64,128,256,512,1024 "$@" --json "$tmp/r.json" || rc=$?
	echo
	if [ -s "$tmp/r.json" ]; then
		jq -r '(.kernel + ", " + .cpu_model), "",
			"workload   size  dgram ns/msg  seqpacket ns/msg  ratio [95% interval]",
			(.series | group_by([.workload, .msg_size]) | .[] |
			 (map(select(.sock == "dgram"))[0]) as $d |
			 (map(select(.sock == "seqpacket"))[0]) as $s |
			 [$d.workload, $d.msg_size, $d.mean, $s.mean, $d.ratio,
			  $d.ratio_lo, $d.ratio_hi] | map(tostring) | join("\t")),
			(.not_run[] | "\(.workload) \(.msg_size) B: \(.status): \(.reason)")' \
			"$tmp/r.json" | awk -F'\t' 'NF == 7 {
				printf "%-9s %5s %13.1f %17.1f  %.4f [%.4f, %.4f]\n",
					$1, $2, $3, $4, $5, $6, $7; next } { print }'
	fi
	rm -rf -- "$tmp"
	exit "$rc"
}

# Runs aba_report.sh with the perf_report find_report chose.
run_report_script() {
	PERF_REPORT=$report exec "$dir/aba_report.sh" "$@"
}

cmd=${1:-}
if [ $# -gt 0 ]; then
	shift
fi
case $cmd in
record)
	need af_unix_send_perf
	runs=20
	if [ "${1:-}" = -n ]; then
		runs=${2:-}
		shift 2 || { usage >&2; exit 2; }
	fi
	mapfile -d '' -t args < <(bench_args "$@")
	exec "$dir/af_unix_send_perf" --variants unconfined --record \
		--runs "$runs" "${args[@]}"
	;;
vm-record)
	vm_record "$@"
	;;
check)
	need af_unix_send_perf
	mapfile -d '' -t args < <(bench_args "$@")
	exec "$dir/af_unix_send_perf" --variants unconfined "${args[@]}"
	;;
sweep)
	need af_unix_send_perf
	mapfile -d '' -t args < <(bench_args "$@")
	sweep "${args[@]}"
	;;
compare)
	find_report
	exec "$report" "$@"
	;;
report)
	find_report
	run_report_script "$@"
	;;
vm-aba)
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
