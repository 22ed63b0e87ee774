#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Deterministic timing of af_unix_send_perf, called by .ci/run (root, from
# the repository root, after ./vmtest.sh ran once) with three kernels
# built by build_kernel.sh from one tree: FIXED carries the fix of the
# unconfined send path, REGRESSED does not, and COSTLY is FIXED with a
# known cost of about 1% on every datagram send (.ci/cost).  With
# ./vmtest.sh --icount the guest clock counts instructions, so
#   (a) "run_perf.sh vm-record" records a baseline in five fresh boots of
#       FIXED, and the tolerance its spread gives is at most 0.8%,
#   (b) a boot of FIXED agrees with the first recording boot within
#       $PERF_MAX_DIFF % on the dgram/seqpacket ratio,
#   (c) the baseline passes "run_perf.sh check" on FIXED, on both
#       workloads,
#   (d) the same baseline makes that check FAIL on COSTLY and on
#       REGRESSED, on both workloads: exit status 1 and "not ok ...
#       exceeds baseline" verdict lines,
#   (e) with SIBLING, FIXED without a change that must cost nothing (the
#       stack revalidation fix of .ci/fixes, which no send path reaches):
#       the baseline passes SIBLING on both workloads, and the ratios
#       under the OLD- and NEW-ABI profiles of "run_perf.sh confined" on
#       SIBLING and FIXED agree within the recorded tolerance,
# and "run_perf.sh confined" runs: both profiles pass on FIXED, NEW-ABI
# SKIPs (kernel lacks ...) on Debian trixie's 6.12.
#
# Usage: .ci/perf.sh [--no-trixie] FIXED REGRESSED COSTLY [SIBLING]
# Exit 0 when all pass.  Five recording boots one after the other, then
# the others at once: FIXED, REGRESSED, COSTLY (and SIBLING) with -icount
# (TCG), and trixie.
# Logs and the guests' /output go to a directory named at the end.
# PERF_BENCH overrides the benchmark settings (one string, split on blanks);
# PERF_OUT names that directory.

set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
PERF_MAX_DIFF=${PERF_MAX_DIFF:-0.5}
# Reduced settings: 9 rounds of 32768 messages per socket type (5 x 16384
# let one disturbed round move the ratio by 0.4%).
read -r -a BENCH <<<"${PERF_BENCH:---workloads sendmmsg,io_uring --msgs 32768 --rounds 9 --warmup 3}"
# Recording boots: with five, a boot disturbed by chance widens the
# tolerance far less than with three (t99(4) * sqrt(6 / 5) = 4.1 spreads
# against 8.0); under -icount boots spread about 0.05%, so the 0.5% floor
# decides.
RECORD_BOOTS=5
MAX_TOL=0.8
CONFINED=(--workloads sendmmsg --msgs 2048 --rounds 2 --warmup 0)
TRIXIE=1
[[ ${1:-} == --no-trixie ]] && TRIXIE=0 && shift
if [[ $# -lt 3 || $# -gt 4 || ! -f ${1:-} || ! -f ${2:-} || ! -f ${3:-} ||
	($# -eq 4 && ! -f ${4:-}) ]]; then
	echo "usage: $0 [--no-trixie] FIXED_BZIMAGE REGRESSED_BZIMAGE COSTLY_BZIMAGE [SIBLING_BZIMAGE]" >&2
	exit 2
fi
FIXED=$1
REGRESSED=$2
COSTLY=$3
SIBLING=${4:-}
# The confined series compared between FIXED and SIBLING: measured as
# the unconfined ones are.  P: run_perf.sh confined's profile names.
SIDE=("${BENCH[@]}")
P=af_unix_send_perf
OUT=${PERF_OUT:-$(mktemp -d /tmp/apparmor-selftests-perf.XXXXXX)}
mkdir -p "$OUT" || exit 1
failed=0
start=$SECONDS

result()
{
	if [[ $1 -eq 0 ]]; then
		echo "ok - $2"
	else
		failed=$((failed + 1))
		echo "not ok - $2"
	fi
}

# vm NAME VMTEST_ARGS... -- CMD...: one boot, its log in $OUT/NAME.log and
# its /output in $OUT/NAME; returns vmtest.sh's exit status.
vm()
{
	local name=$1 rc=0

	shift
	mkdir -p "$OUT/$name"
	echo "# boot $name ($((SECONDS - start)) s)"
	./vmtest.sh -o "$OUT/$name" "$@" >"$OUT/$name.log" 2>&1 || rc=$?
	if [[ $rc -ne 0 ]]; then
		echo "# vmtest.sh exit status $rc, last lines of $OUT/$name.log:"
		tail -n 30 "$OUT/$name.log" | sed 's/^/#   /'
	fi
	return "$rc"
}

# rc FILE: the exit status a guest command left in FILE, or 255.
rc()
{
	local v

	v=$(cat "$1" 2>/dev/null) && [[ $v =~ ^[0-9]+$ ]] && echo "$v" ||
		echo 255
}

# ratio JSON [WORKLOAD]: "RATIO MEAN", the dgram/seqpacket ratio and the
# dgram ns/msg of a result's unconfined 128B series (sendmmsg).
ratio()
{
	jq -r --arg w "${2:-sendmmsg}" 'first(.series[] |
		select(.variant == "unconfined" and .workload == $w and
		.sock == "dgram" and .msg_size == 128)) | "\(.ratio) \(.mean)"' \
		"$1" 2>/dev/null
}

# In the guest: run CMD..., keep its output and exit status in /output/TAG.
# shellcheck disable=SC2016 # expanded by the guest's shell
readonly GUEST_RUN='run() { t=$1; shift; "$@" >/output/$t.tap 2>&1; echo $? >/output/$t.rc; cat /output/$t.tap; }'

# (a) the baseline, in fresh boots of the fixed kernel
echo "# recording in $RECORD_BOOTS boots ($((SECONDS - start)) s)"
rc1=0
./run_perf.sh vm-record -n "$RECORD_BOOTS" -o "$OUT/record" "$FIXED" -- \
	"${BENCH[@]}" >"$OUT/record.log" 2>&1 || rc1=$?
base=$OUT/record/baseline
grep -E '^(not )?ok [0-9]+ .*vs baseline' "$OUT/record/$RECORD_BOOTS.log" \
	2>/dev/null | sed 's/^/# /'
tols=$(grep -oE 'tolerance [0-9.]+%' "$OUT/record/$RECORD_BOOTS.log" 2>/dev/null |
	grep -oE '[0-9.]+' | sort -n | tail -n 1)
ok=0
[[ $rc1 -eq 0 && -s $base && -n $tols ]] &&
	awk -v t="$tols" -v m="$MAX_TOL" 'BEGIN { exit !(t <= m) }' || ok=1
[[ $ok -eq 0 ]] || tail -n 30 "$OUT/record.log" | sed 's/^/#   /'
result "$ok" "baseline recorded in $RECORD_BOOTS boots of the fixed kernel, tolerance at most ${tols:-none}% (max $MAX_TOL%)"

# (b)-(d): boots checking the baseline, and the trixie boot beside them
# (the guest clock of the others does not care).
# check_boot N KERNEL CONFINED: boot N checks the baseline on KERNEL, and
# runs the confined variants: briefly when CONFINED is 1, measured as the
# unconfined series are (into /output/side) when it is 2.
# shellcheck disable=SC2016
check_boot()
{
	vm "$1" -k "$2" --icount -- bash -c "$GUEST_RUN"'
	confined=$1
	printf "%s\n" "$2" >/tmp/base
	shift 2
	run check ./run_perf.sh check -- "$@" --baseline /tmp/base --json /output/r.json
	[ "$confined" != 1 ] || run confined ./run_perf.sh confined -- '"${CONFINED[*]}"'
	[ "$confined" != 2 ] || run side ./run_perf.sh confined -o /output/side -- '"${SIDE[*]}"'
	exit 0' bash "$3" "$(cat "$base")" "${BENCH[@]}"
}

rc2=1
rc3=1
rc4=1
rc5=0
rc6=1
# Boot 2 runs the fixed kernel's confined variants: measured as the
# unconfined series are, to compare with SIBLING's, or else briefly.
cmode=1
ctag=confined
[[ -z $SIBLING ]] || { cmode=2; ctag=side; }
if [[ -s $base ]]; then
	check_boot 2 "$FIXED" "$cmode" &
	pid2=$!
	check_boot 3 "$REGRESSED" 0 &
	pid3=$!
	check_boot 4 "$COSTLY" 0 &
	pid4=$!
	if [[ -n $SIBLING ]]; then
		check_boot 5 "$SIBLING" 2 &
		pid5=$!
	fi
fi
if [[ $TRIXIE -eq 1 ]]; then
	vm trixie -d trixie -- ./run_perf.sh confined -- "${CONFINED[@]}" &
	wait $!
	rc5=$?
fi
if [[ -s $base ]]; then
	wait "$pid2"
	rc2=$?
	wait "$pid3"
	rc3=$?
	wait "$pid4"
	rc4=$?
	if [[ -n $SIBLING ]]; then
		wait "$pid5"
		rc6=$?
	fi
fi

read -r r1 d1 < <(ratio "$OUT/record/1/result.json")
read -r r2 _ < <(ratio "$OUT/2/r.json")
echo "# recording boot 1 (fixed): ratio ${r1:-none}, dgram ${d1:-none} ns/msg"
for i in 2 3 4; do
	for w in sendmmsg io_uring; do
		read -r r d < <(ratio "$OUT/$i/r.json" "$w")
		echo "# boot $i ($(sed -n "$((i - 1))p" <<<$'fixed\nregressed\ncostly')) $w: ratio ${r:-none}, dgram ${d:-none} ns/msg"
	done
done
if [[ -n ${r1:-} && -n ${r2:-} ]]; then
	diff=$(awk -v a="$r1" -v b="$r2" 'BEGIN { d = (b / a - 1) * 100; printf "%.3f", d < 0 ? -d : d }')
	awk -v d="$diff" -v m="$PERF_MAX_DIFF" 'BEGIN { exit !(d <= m) }'
	result $? "two boots of the fixed kernel agree on the ratio: $r1 vs $r2, ${diff}% apart (max ${PERF_MAX_DIFF}%)"
else
	result 1 "two boots of the fixed kernel agree on the ratio (no result from boot 1 or 2)"
fi
if [[ $(rc "$OUT/2/$ctag.rc") -eq 0 ]] &&
	grep -Eq "^ok [0-9]+ $P.old-abi sendmmsg 128B: [0-9]+ messages validated" "$OUT/2/$ctag.tap" &&
	grep -Eq "^ok [0-9]+ $P.new-abi sendmmsg 128B: [0-9]+ messages validated" "$OUT/2/$ctag.tap"; then
	result 0 "fixed kernel: confined OLD-ABI and NEW-ABI variants pass"
else
	grep -E '^(not )?ok' "$OUT/2/$ctag.tap" 2>/dev/null | sed 's/^/#   /'
	result 1 "fixed kernel: confined OLD-ABI and NEW-ABI variants pass"
fi

# verdicts N: boot N's verdict lines against the baseline, one a workload.
verdicts()
{
	grep -E '^(not )?ok [0-9]+ unconfined (sendmmsg|io_uring) 128B vs baseline' \
		"$OUT/$1/check.tap" 2>/dev/null
}

# judged N VMTEST_RC WANT_RC PATTERN WHAT: boot N's check exited WANT_RC
# and both workloads' verdicts match PATTERN.
judged()
{
	local v l ok=0

	v=$(verdicts "$1")
	while IFS= read -r l; do
		echo "# $l"
	done <<<"${v:-no verdict}"
	[[ $2 -eq 0 && $(rc "$OUT/$1/check.rc") -eq $3 &&
		$(grep -Ec "$4" <<<"$v") -eq 2 ]] || ok=1
	result "$ok" "$5 (exit status $(rc "$OUT/$1/check.rc"))"
}

judged 2 "$rc2" 0 '^ok [0-9]+ .* within ' \
	"the baseline passes the fixed kernel, both workloads"
judged 4 "$rc4" 1 '^not ok [0-9]+ .* exceeds baseline ' \
	"the baseline FAILs the fixed kernel plus 24 instructions a send (+1%), both workloads"
judged 3 "$rc3" 1 '^not ok [0-9]+ .* exceeds baseline ' \
	"the baseline FAILs the regressed kernel, both workloads"

# vratio JSON VARIANT WORKLOAD: that series' dgram/seqpacket ratio.
vratio()
{
	jq -r --arg v "$2" --arg w "$3" 'first(.series[] |
		select(.variant == $v and .workload == $w and .sock == "dgram" and
		.msg_size == 128)) | .ratio' "$1" 2>/dev/null
}

if [[ -n $SIBLING ]]; then
	judged 5 "$rc6" 0 '^ok [0-9]+ .* within ' \
		"the baseline of the fixed kernel passes it without the stack fix, both workloads"
	ok=0
	for v in old-abi new-abi; do
		for w in sendmmsg io_uring; do
			a=$(vratio "$OUT/5/side/$P.$v.json" "$P.$v" "$w")
			b=$(vratio "$OUT/2/side/$P.$v.json" "$P.$v" "$w")
			d=$(awk -v a="$a" -v b="$b" 'BEGIN { if (a > 0 && b > 0) printf "%.3f", (b / a - 1) * 100 }')
			echo "# $v $w: ratio ${a:-none} without the stack fix, ${b:-none} with it: ${d:-none}% (tolerance ${tols:-none}% + 0.75%)"
			# A boot puts a confined ratio at one of two levels
			# 0.71% apart (new-abi sendmmsg 2.3806 or 2.3975: the
			# same two images, booted twice, swapped levels): a
			# single boot resolves no less than that on top.
			awk -v d="$d" -v t="$tols" 'BEGIN { if (t == "") exit 1
				t += 0.75; exit !(d != "" && d <= t && -d <= t) }' ||
				ok=1
		done
	done
	result "$ok" "confined variants: the stack fix costs nothing within the recorded tolerance + 0.75%"
fi

# Debian trixie's 6.12 lacks network_v9/af_unix: NEW-ABI SKIPs, OLD passes.
if [[ $TRIXIE -eq 1 ]]; then
	log=$OUT/trixie.log
	grep -E "^(not )?ok [0-9]+ $P.old-abi|SKIP $P.new-abi" "$log" | sed 's/^/# /'
	[[ $rc5 -eq 0 ]] &&
		grep -Eq "^ok [0-9]+ $P.old-abi sendmmsg 128B: [0-9]+ messages validated" "$log" &&
		grep -Eq "SKIP $P.new-abi: kernel lacks .*network_v9/af_unix" "$log"
	result $? "Debian trixie: OLD-ABI variant passes, NEW-ABI SKIPs with the reason"
fi

echo "# logs and results in $OUT; $((SECONDS - start)) s"
[[ $failed -eq 0 ]]
