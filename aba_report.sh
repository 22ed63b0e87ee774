#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A/B/A report, plain text that survives email, from three results of
# "af_unix_send_perf --json" taken on fresh boots: parent (A), child (B),
# parent again (A').  It names both kernels (uname -r and, from a
# build-info file next to a result as build_kernel.sh writes it, their
# patches); then per workload and message size the parent, child and
# parent-again dgram ns/msg, their dgram/seqpacket ratios, B's slowdown
# against the parents' midpoint, the parents' drift, the largest CV and
# perf_report.py's verdict; then a per-round plot drawn by gnuplot's dumb
# terminal (and an SVG beside it with -o).  Without gnuplot the plot is
# replaced by a note.
#
# Usage: aba_report.sh [-t PCT] [-a DESC] [-b DESC] [-o DIR] A B A2
#   -t PCT   slowdown that counts as a regression (default 5)
#   -a, -b   describe A or B instead of their build-info
#   -o DIR   also write report.txt and the SVG plots to DIR
# Needs jq and python3; perf_report.py: $PERF_REPORT, else next to this script.
# Exit status: the worst of perf_report's: 0 no regression, 1 regression
# or validation failure, 2 bad input.

set -euo pipefail

usage() {
	sed -n '15,21s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
}

die() {
	echo "aba_report.sh: $*" >&2
	exit 2
}

thr=5
desc_a=""
desc_b=""
outdir=""
while getopts "t:a:b:o:h" opt; do
	case $opt in
	t) thr=$OPTARG ;;
	a) desc_a=$OPTARG ;;
	b) desc_b=$OPTARG ;;
	o) outdir=$OPTARG ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[[ $# -eq 3 ]] || { usage >&2; exit 2; }
command -v jq >/dev/null || die "needs jq (Debian: apt-get install jq)"
report=${PERF_REPORT:-$(dirname -- "${BASH_SOURCE[0]}")/perf_report.py}
[[ -x $report ]] || die "no executable perf_report at $report (or set PERF_REPORT)"
[[ -n ${PERF_REPORT:-} ]] || command -v python3 >/dev/null ||
	die "perf_report.py needs python3 (Debian: apt-get install python3)"
for f in "$@"; do
	jq -e '.format == "af_unix_send_perf/2"' "$f" >/dev/null 2>&1 ||
		die "$f is not a result of af_unix_send_perf --json"
done

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

# rounds JSON WORKLOAD SIZE: the dgram ns/msg of each round.
rounds() {
	jq -r --arg w "$2" --argjson s "$3" '.series[] |
		select(.variant == "unconfined" and .workload == $w and
		       .sock == "dgram" and .msg_size == $s) | .ns_per_msg[]' "$1"
}

# gp DATA TITLE: the gnuplot commands that draw DATA's three columns.
gp() {
	# Tabs: a run with fewer rounds leaves empty fields, not fewer columns.
	cat <<EOF
set datafile separator "\t"
set title "$2"
set xlabel "round"
set key outside bottom center horizontal
set offsets 0, 0, graph 0.1, graph 0.1
plot '$1' using 1:2 with linespoints title "A", \\
     '' using 1:3 with linespoints title "B", \\
     '' using 1:4 with linespoints title "A'"
EOF
}

# plot WORKLOAD SIZE: per-round dgram ns/msg of A, B and A'.
plot() {
	local dat n k f title="$1 $2 B: dgram ns/msg per measured round"

	echo
	if ! command -v gnuplot >/dev/null; then
		echo "  (no per-round plot: gnuplot is not installed)"
		return
	fi
	# The benchmark measures until it can decide: the runs may differ in
	# the number of rounds.
	n=0
	for f in "$a" "$b" "$a2"; do
		k=$(rounds "$f" "$1" "$2" | wc -l)
		if ((k > n)); then
			n=$k
		fi
	done
	dat=$(mktemp)
	paste <(seq 1 "$n") \
		<(rounds "$a" "$1" "$2") <(rounds "$b" "$1" "$2") \
		<(rounds "$a2" "$1" "$2") >"$dat"
	# Form feeds, trailing blanks and empty lines do not survive mail.
	{ echo "set terminal dumb size 76,18"; gp "$dat" "$title"; } |
		gnuplot 2>&1 | tr -d '\f' | sed 's/ *$//' | grep . ||
		echo "  (gnuplot drew nothing)"
	if [[ -n $outdir ]]; then
		{ echo "set terminal svg size 800,480"
		  echo "set output '$outdir/aba-$1-$2.svg'"
		  gp "$dat" "$title"; } | gnuplot ||
			echo "  (gnuplot failed: no SVG)"
	fi
	rm -f -- "$dat"
}

# row WORKLOAD SIZE: perf_report's figures for one workload and size.
row() {
	local out rc=0

	out=$("$report" --threshold "$thr" --workload "$1" --size "$2" \
		"$a" "$b" "$a2" 2>&1) || rc=$?
	if [[ $rc -ge 2 ]]; then
		printf '%s %s B: perf_report failed:\n%s\n' "$1" "$2" "$out"
		return "$rc"
	fi
	printf '%s\n' "$out" | awk -v w="$1" -v s="$2" '
	($1 == "A" || $1 == "B" || $1 == "A'\''") && $2 ~ /^[0-9.]+$/ {
		ns[$1] = $2; ratio[$1] = $6
	}
	/^B slowdown vs midpoint/ { slow = $NF }
	/^B ratio slowdown vs midpoint/ { rslow = $NF }
	/^parent drift/ { drift = $NF }
	/^parent ratio drift/ { rdrift = $NF }
	/^max CV:/ { cv = $3 }
	/^verdict:/ {
		sub(/^verdict: /, ""); sub(/dgram\/seqpacket ratio/, "ratio")
		verdict = verdict sep $0; sep = "; "
	}
	END {
		printf "%s %s B%25s %12s %12s\n", w, s, "A (parent)", "B (child)", "A'\'' (parent)"
		printf "  %-28s %12s %12s %12s\n", "dgram ns/msg", ns["A"], ns["B"], ns["A'\''"]
		printf "  %-28s %12s %12s %12s\n", "dgram/seqpacket ratio",
			ratio["A"], ratio["B"], ratio["A'\''"]
		printf "  %-28s %12s  (dgram ns/msg)\n", "B vs midpoint of A and A'\''", slow
		if (rslow != "")
			printf "  %-28s %12s  (ratio)\n", "", rslow
		printf "  %-28s %12s  (dgram ns/msg)\n", "parent drift (A'\'' vs A)", drift
		if (rdrift != "")
			printf "  %-28s %12s  (ratio)\n", "", rdrift
		printf "  %-28s %12s\n", "max CV of a series", cv
		printf "  verdict: %s\n", verdict
	}'
	return "$rc"
}

main() {
	local combos w s rc=0 r

	echo "A/B/A: unconfined AF_UNIX datagram sends, af_unix_send_perf"
	echo "(each point a fresh boot; B is compared with the midpoint of A and A')"
	echo
	echo "  A, A'  ${desc_a:-$(describe "$a")}"
	echo "  B      ${desc_b:-$(describe "$b")}"
	[[ $(jq -r .kernel "$a") == "$(jq -r .kernel "$a2")" ]] ||
		echo "  warning: A' runs $(jq -r .kernel "$a2")"
	echo "  A:  $(settings "$a")"
	for f in "$b" "$a2"; do
		[[ $(settings "$f") == "$(settings "$a")" ]] ||
			echo "  warning: ${f} ran with other settings: $(settings "$f")"
	done
	echo "  threshold: B more than ${thr}% slower is a regression"
	combos=$(jq -r '.series[] | select(.variant == "unconfined" and
		.sock == "dgram") | "\(.workload) \(.msg_size)"' "$a")
	[[ -n $combos ]] || die "$a holds no unconfined dgram series"
	while read -r w s; do
		echo
		r=0
		row "$w" "$s" || r=$?
		((r > rc)) && rc=$r
		plot "$w" "$s"
	done <<<"$combos"
	return "$rc"
}

a=$1
b=$2
a2=$3
if [[ -n $outdir ]]; then
	mkdir -p -- "$outdir"
	rc=0
	main | tee "$outdir/report.txt" || rc=$?
	exit "$rc"
fi
main
