#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Maintainer front end for af_unix_send_perf; timing needs a quiet machine.
#
#   run_perf.sh record [-n RUNS] [-- BENCH_ARGS]
#       measure RUNS runs (default 20), each in a process of its own, as
#       this machine's new baseline: later checks take their tolerance
#       from how far the runs spread.  A run that fails stops it, leaving
#       the runs before it.
#   run_perf.sh vm-record [-n RUNS] [-o DIR] KERNEL [-- BENCH_ARGS]
#       the same in RUNS fresh boots of KERNEL (default 3) with
#       ./vmtest.sh --icount, one run each; writes DIR/baseline, for
#       "af_unix_send_perf --baseline" in guests of ./vmtest.sh --icount
#   run_perf.sh check  [-- BENCH_ARGS]   measure, compare with the baseline
#   run_perf.sh confined [-o DIR] [-- BENCH_ARGS]
#       the same series under an OLD-ABI ("network unix") and a NEW-ABI
#       ("unix") profile, loaded for the run (root): what confinement
#       costs, never judged.  -o: each profile's JSON in DIR/PROFILE.json.
#   run_perf.sh sweep  [-- BENCH_ARGS]
#       unconfined sends of 64, 128, 256, 512 and 1024 B, the range of the
#       2018 DEFINE_AUDIT_SK report, as one table (needs jq)
#   run_perf.sh report [-t PCT] [-a DESC] [-b DESC] [-o DIR] A B A2
#       the plain-text A/B/A report a maintainer can paste into a reply,
#       over results from fresh boots (parent, child, parent again): JSON
#       files of "af_unix_send_perf --json" (every unconfined workload and
#       size: dgram ns/msg, the dgram/seqpacket ratio, which the verdict
#       is on, and each round) or three ns/msg numbers.  Exits 1 when B
#       is more than PCT (default 5) slower than the midpoint of A and
#       A2.  -a, -b: describe A or B instead of the build-info beside
#       their JSON; -o: also write DIR/report.txt.  "compare": the same.
#   run_perf.sh vm-aba [-t PCT] [-o DIR] [-j N] [-a ARGS] [-b ARGS]
#                      KERNEL_A KERNEL_B [-- BENCH_ARGS]
#       boots KERNEL_A, KERNEL_B, KERNEL_A with ./vmtest.sh --icount, up
#       to N guests at once (default 3; the guest clock counts
#       instructions, so load on the host does not change the figures),
#       runs af_unix_send_perf BENCH_ARGS in each and
#       writes the report to DIR/report.txt.  KERNEL: a bzImage (patch
#       names from the build-info beside it, see build_kernel.sh), or
#       debian:SUITE for Debian's kernel of SUITE (vmtest.sh -d).  -a, -b:
#       kernel command line for A or B (e.g. -b lsm=capability).
#
# Exit status: kselftest codes (4 = skip) for record, check and
# confined; for report and vm-aba 0 ok, 1 regression or a message that
# arrived damaged, 2 bad input or a failed boot; vm-record: the last
# run's, 2 for a failed boot.
# sweep, report and vm-aba need jq.
set -euo pipefail

dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly dir

usage() {
	sed -n '4,/^set -euo/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
}

need() {
	if [ ! -x "$dir/$1" ]; then
		echo "run_perf.sh: $dir/$1 not built (make -C $dir)" >&2
		exit 1
	fi
}

need_jq() {
	if ! command -v jq >/dev/null; then
		echo "run_perf.sh: $1 needs jq (Debian: apt-get install jq)" >&2
		exit 2
	fi
}

# Optional "--" before benchmark arguments.
bench_args() {
	if [ "${1:-}" = -- ]; then
		shift
	fi
	# printf with no arguments would still print one, empty
	[ $# -eq 0 ] || printf '%s\0' "$@"
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
			./af_unix_send_perf --baseline /tmp/base \
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
		./af_unix_send_perf --json /output/result.json "$@" \
		>"$out/$i.log" 2>&1 || rc=$?
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
	need_jq vm-aba
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
	aba_report -t "$thr" -o "$out" \
		"$out/1/result.json" "$out/2/result.json" "$out/3/result.json"
}

# confined [-o DIR] [-- BENCH_ARGS]: see the usage.
confined() {
	local out="" abi name rules rc=0 r prof t
	local af=/sys/kernel/security/apparmor/features/network_v9/af_unix
	local -a args

	if [ "${1:-}" = -o ]; then
		out=${2:-}
		shift 2 || { usage >&2; exit 2; }
	fi
	mapfile -d '' -t args < <(bench_args "$@")
	for t in apparmor_parser aa-exec; do
		if ! command -v "$t" >/dev/null; then
			echo "run_perf.sh: SKIP confined: $t not found" >&2
			exit 4
		fi
	done
	prof=$(mktemp /tmp/aa_send_perf_profile.XXXXXX)
	for abi in old new; do
		name=af_unix_send_perf.$abi-abi
		rules="network unix"
		if [ $abi = new ]; then
			rules=unix
			if ! grep -q '^yes' "$af" 2>/dev/null; then
				echo "run_perf.sh: SKIP $name: kernel lacks" \
					"$af (the NEW ABI's unix rules, 6.17+)"
				continue
			fi
		fi
		printf 'abi <abi/%s>,\nprofile %s {\n  file,\n  %s,\n}\n' \
			"$([ $abi = old ] && echo 4.0 || echo 5.0)" "$name" \
			"$rules" >"$prof"
		if ! apparmor_parser -r "$prof"; then
			echo "run_perf.sh: loading $name failed" >&2
			rc=1
			continue
		fi
		[ -z "$out" ] || mkdir -p -- "$out"
		r=0
		aa-exec -p "$name" -- "$dir/af_unix_send_perf" "${args[@]}" \
			${out:+--json "$out/$name.json"} || r=$?
		[ "$r" -eq 0 ] || rc=1
		apparmor_parser -R "$prof" || rc=1
	done
	rm -f -- "$prof"
	exit "$rc"
}

# sweep BENCH_ARGS...: the sizes of the netperf-like sweep, one table.
sweep() {
	local tmp rc=0

	need_jq sweep
	tmp=$(mktemp -d /tmp/aa_send_perf_sweep.XXXXXX)
	"$dir/af_unix_send_perf" --sizes 64,128,256,512,1024 "$@" \
		--json "$tmp/r.json" || rc=$?
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

# describe JSON: uname -r, and the patches listed in its build-info.
describe() {
	local info patches

	info=$(dirname -- "$1")/build-info
	patches=$(sed -n 's/^patch: \([^ ]*\).*/\1/p' "$info" 2>/dev/null |
		sed 's/^none$/(no patches)/; s/^/         + /; s/+ (no/(no/')
	printf '%s%s\n%s' "$(jq -r .kernel "$1")" \
		"$(sed -n 's/^cmdline: \(.*\)/, booted with \1/p' "$info" 2>/dev/null)" \
		"${patches:-         (patches unknown: no build-info)}"
}

# settings JSON: what the benchmark ran, for the reader to compare.
settings() {
	jq -r '"\(.rounds) rounds x \(.msgs_per_round) messages, " +
		"warm-up \(.warmup), batch \(.batch),\n      " +
		(if .icount then "qemu -icount (time counts instructions)"
		 else "clocksource \(.clocksource)" end)' "$1"
}

# series I JSON: a line per unconfined series of point I: workload, size,
# socket type, messages validated and failed, then its rounds' ns/msg.
series() {
	jq -r --arg i "$1" '.series[] | select(.variant == "unconfined") |
		[$i, .workload, .msg_size, .sock, .validated_msgs,
		 .validation_failures,
		 (.ns_per_msg | map(if type == "number" then tostring
				    else "(\(type))" end) | join(" "))] |
		map(tostring) | join("\t")' "$2"
}

# The figures of the report from series() of A, B and A' (points 1, 2
# and 3) or, with num=1, from three numbers.  B is judged against the
# midpoint of A and A', so that linear drift between boots cancels; with
# JSON on the dgram/seqpacket ratio, whose control takes the same send
# path minus the LSM hook and so cancels what moves both with the boot
# (under qemu -icount two boots of one 7.2 tinyconfig kernel differed by
# 1.2% in dgram ns/msg and by 0.07% in the ratio).
# shellcheck disable=SC2016 # awk's own $ fields
aba_figures='
function bad(msg) {
	print "run_perf.sh: " msg > "/dev/stderr"
	rc = 2
	exit 2
}
function pct(x) { return sprintf("%+.3f%%", x) }
function aba(a, b, a2) {
	slow = (b / ((a + a2) / 2) - 1) * 100
	drift = (a2 / a - 1) * 100
}
BEGIN { FS = "\t"; name[1] = "A"; name[2] = "B"; name[3] = "A'\''" }
{
	k = $2 " " $3
	if ($1 == 1 && $4 == "dgram")
		keys[++nk] = k
	if ($5 !~ /^[0-9]+$/ || $6 !~ /^[0-9]+$/)
		bad(name[$1] ": " k " B " $4 ": message counts not integers")
	n = split($7, v, " ")
	if (n < 2 - num)
		bad(name[$1] ": " k " B " $4 ": fewer than 2 rounds")
	sum = 0
	for (j = 1; j <= n; j++) {
		# finite numbers > 0 only: awk would take "nan" or "1e999"
		if (v[j] !~ /^[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$/ ||
		    !(v[j] + 0 > 0) || v[j] + 0 > 1e300)
			bad(name[$1] ": " k " B " $4 ": \"" v[j] "\" is not ns/msg")
		sum += v[j]
		if ($4 == "dgram")
			r[$1, k, j] = v[j]
	}
	id = $1 SUBSEP k SUBSEP $4
	if (id in rounds)
		bad(name[$1] ": two unconfined " k " B " $4 " series")
	rounds[id] = n
	mean[id] = sum / n
	ss = 0
	for (j = 1; j <= n; j++)
		ss += (v[j] - mean[id]) ^ 2
	cv[id] = n > 1 ? sqrt(ss / (n - 1)) / mean[id] : 0
	sum = 0
	for (j = 2; j <= n; j++)
		sum += v[j]
	drop1[id] = n > 1 ? sum / (n - 1) : 0
	ok[$1, k] += $5
	fails[$1, k] += $6
}
# a round of point i, or blank where it measured fewer
function cell(i, k, j) {
	return (i, k, j) in r ? sprintf("%.3f", r[i, k, j]) : ""
}
function row(what, x1, x2, x3, f) {
	printf "  %-28s " f " " f " " f "\n", what, x1, x2, x3
}
function block(k, i, w, maxcv, n, j, fails_k, ok_k, judged, what,
	       nslow, ndrift) {
	for (i = 1; i <= 3; i++)
		for (w = 1; w <= 2 - num; w++)
			if (!((i, k, sock[w]) in rounds))
				bad(name[i] " holds no unconfined " k " B " sock[w] " series")
	for (i = 1; i <= 3; i++) {
		if (!num && rounds[i, k, "dgram"] != rounds[i, k, "seqpacket"])
			bad(name[i] ": " k " B: dgram and seqpacket differ in rounds")
		ratio[i] = num ? 0 : mean[i, k, "dgram"] / mean[i, k, "seqpacket"]
		for (w = 1; w <= 2 - num; w++)
			if (cv[i, k, sock[w]] > maxcv)
				maxcv = cv[i, k, sock[w]]
		ok_k += ok[i, k]
		fails_k += fails[i, k]
	}
	printf "%-30s %12s %12s %12s\n", (num ? "three numbers" : k " B"),
		"A (parent)", "B (child)", "A'\'' (parent)"
	row(num ? "ns/msg" : "dgram ns/msg", mean[1, k, "dgram"],
	    mean[2, k, "dgram"], mean[3, k, "dgram"], "%12.3f")
	aba(mean[1, k, "dgram"], mean[2, k, "dgram"], mean[3, k, "dgram"])
	nslow = slow
	ndrift = drift
	what = num ? "ns/msg" : "dgram ns/msg"
	if (!num) {
		row("without round 1", drop1[1, k, "dgram"],
		    drop1[2, k, "dgram"], drop1[3, k, "dgram"], "%12.3f")
		row("dgram/seqpacket ratio", ratio[1], ratio[2], ratio[3],
		    "%12.4f")
		aba(ratio[1], ratio[2], ratio[3])
	}
	printf "  %-28s %12s  (%s)\n", "B vs midpoint of A and A'\''", pct(nslow), what
	if (!num)
		printf "  %-28s %12s  (ratio)\n", "", pct(slow)
	printf "  %-28s %12s  (%s)\n", "parent drift (A'\'' vs A)", pct(ndrift), what
	if (!num) {
		printf "  %-28s %12s  (ratio)\n", "", pct(drift)
		printf "  %-28s %11.3f%%\n", "max CV of a series", maxcv * 100
		printf "  validation: %d messages ok, %d failures\n", ok_k, fails_k
		what = "dgram/seqpacket ratio"
	}
	judged = num ? nslow : slow
	if (fails_k) {
		print "  verdict: messages arrived damaged"
		rc = rc > 1 ? rc : 1
	}
	if (judged > thr) {
		printf "  verdict: B is %.3f%% slower (%s), above the %.3f%% threshold\n",
			judged, what, thr
		rc = rc > 1 ? rc : 1
	} else {
		printf "  verdict: B within the %.3f%% threshold (%s)\n", thr, what
	}
	if (num)
		return
	print ""
	print "  dgram ns/msg per measured round"
	printf "  %5s %12s %12s %12s\n", "round", "A", "B", "A'\''"
	n = rounds[1, k, "dgram"]
	for (i = 2; i <= 3; i++)
		if (rounds[i, k, "dgram"] > n)
			n = rounds[i, k, "dgram"]
	for (j = 1; j <= n; j++)
		printf "  %5d %12s %12s %12s\n", j, cell(1, k, j),
			cell(2, k, j), cell(3, k, j)
}
END {
	if (rc)
		exit rc
	sock[1] = "dgram"
	sock[2] = "seqpacket"
	if (!nk)
		bad("A holds no unconfined dgram series")
	for (i = 1; i <= nk; i++) {
		print ""
		block(keys[i])
	}
	exit rc
}'

# aba_text A B A2: the report, from $data; its exit status is the
# verdict's.
aba_text() {
	local f

	echo "A/B/A: unconfined AF_UNIX datagram sends, af_unix_send_perf"
	echo "(each point a fresh boot; B is compared with the midpoint of A and A')"
	if [ "$num" -eq 0 ]; then
		echo
		echo "  A, A'  ${desc_a:-$(describe "$1")}"
		echo "  B      ${desc_b:-$(describe "$2")}"
		[ "$(jq -r .kernel "$1")" = "$(jq -r .kernel "$3")" ] ||
			echo "  warning: A' runs $(jq -r .kernel "$3")"
		echo "  A:  $(settings "$1")"
		for f in "$2" "$3"; do
			[ "$(settings "$f")" = "$(settings "$1")" ] ||
				echo "  warning: $f ran with other settings: $(settings "$f")"
		done
	fi
	echo "  threshold: B more than ${thr}% slower is a regression"
	printf '%s\n' "$data" | awk -v thr="$thr" -v num="$num" "$aba_figures"
}

# aba_report [-t PCT] [-a DESC] [-b DESC] [-o DIR] A B A2: see usage.
aba_report() {
	local thr=5 desc_a="" desc_b="" out="" opt f k num=1 data rc=0
	local -a vals

	OPTIND=1
	while getopts "t:a:b:o:" opt; do
		case $opt in
		t) thr=$OPTARG ;;
		a) desc_a=$OPTARG ;;
		b) desc_b=$OPTARG ;;
		o) out=$OPTARG ;;
		*) usage >&2; exit 2 ;;
		esac
	done
	shift $((OPTIND - 1))
	if [ $# -ne 3 ]; then
		usage >&2
		exit 2
	fi
	if ! [[ $thr =~ ^[0-9]+(\.[0-9]+)?$ ]] ||
		awk -v t="$thr" 'BEGIN { exit !(t > 1000) }'; then
		echo "run_perf.sh: -t $thr: not a number in 0..1000" >&2
		exit 2
	fi
	for f in "$@"; do
		[[ $f =~ ^[0-9]*\.?[0-9]+$ ]] || num=0
	done
	if [ "$num" -eq 0 ]; then
		need_jq report
		for f in "$@"; do
			if ! jq -e '.format == "af_unix_send_perf/2"' "$f" \
				>/dev/null 2>&1; then
				echo "run_perf.sh: $f is not a result of" \
					"af_unix_send_perf --json" >&2
				exit 2
			fi
		done
		# The kernel differs on purpose, the rounds may: the
		# benchmark measures until it can decide.
		for k in machine_id cpu_model batch msgs_per_round warmup icount; do
			vals=()
			for f in "$@"; do
				vals+=("$(jq -c ".$k" "$f")")
			done
			if [ "${vals[0]}" != "${vals[1]}" ] ||
				[ "${vals[0]}" != "${vals[2]}" ]; then
				echo "run_perf.sh: A/B/A inputs differ in $k:" \
					"A=${vals[0]}, B=${vals[1]}, A'=${vals[2]}" >&2
				exit 2
			fi
		done
	fi
	data=$(
		i=0
		for f in "$@"; do
			i=$((i + 1))
			if [ "$num" -eq 1 ]; then
				printf '%s\t-\t-\tdgram\t0\t0\t%s\n' "$i" "$f"
			elif ! series "$i" "$f"; then
				echo "run_perf.sh: $f: series not as" \
					"af_unix_send_perf writes them" >&2
				exit 2
			fi
		done
	) || exit 2
	if [ -z "$out" ]; then
		aba_text "$@" || rc=$?
	else
		mkdir -p -- "$out"
		aba_text "$@" | tee "$out/report.txt" || rc=$?
	fi
	exit "$rc"
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
	[[ $runs =~ ^[0-9]+$ ]] || { usage >&2; exit 2; }
	mapfile -d '' -t args < <(bench_args "$@")
	rec=--record
	for ((i = 1; i <= runs; i++)); do
		echo "run_perf.sh: run $i of $runs" >&2
		"$dir/af_unix_send_perf" "$rec" --runs "$runs" "${args[@]}" ||
			exit
		rec=--add-run
		# without AppArmor a run records nothing: it says so once
		grep -qx Y /sys/module/apparmor/parameters/enabled 2>/dev/null ||
			break
	done
	;;
vm-record)
	vm_record "$@"
	;;
check)
	need af_unix_send_perf
	mapfile -d '' -t args < <(bench_args "$@")
	exec "$dir/af_unix_send_perf" "${args[@]}"
	;;
confined)
	need af_unix_send_perf
	confined "$@"
	;;
sweep)
	need af_unix_send_perf
	mapfile -d '' -t args < <(bench_args "$@")
	sweep "${args[@]}"
	;;
compare | report)
	aba_report "$@"
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
