#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Deterministic timing of af_unix_send_perf, called by .ci/run (root, from
# the repository root, after ./vmtest.sh ran once) with two kernels built
# by build_kernel.sh from one tree: FIXED carries the fix of the unconfined
# send path, REGRESSED does not.  With ./vmtest.sh --icount the guest
# clock counts instructions, so
#   (a) two boots of FIXED agree within $PERF_MAX_DIFF % on the
#       dgram/seqpacket ratio,
#   (b) a baseline recorded in boot 1 (FIXED) passes "run_perf.sh check"
#       in boot 2 (FIXED),
#   (c) the same baseline makes that check FAIL in boot 3 (REGRESSED):
#       exit status 1 and a "not ok ... exceeds baseline" verdict line,
# and the confined OLD-/NEW-ABI variants run: both pass on FIXED, NEW-ABI
# SKIPs (kernel lacks ...) on Debian trixie's 6.12.
#
# Usage: .ci/perf.sh [--no-trixie] FIXED REGRESSED   exit 0 when all pass
# Four boots, three with -icount (TCG); boots 2, 3 and trixie run at once.
# Logs and the guests' /output go to a directory named at the end.
# PERF_BENCH overrides the benchmark settings (one string, split on blanks).

set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
PERF_MAX_DIFF=${PERF_MAX_DIFF:-0.5}
# Reduced settings: one workload, 9 rounds of 32768 messages per socket
# type (5 x 16384 let one disturbed round move the ratio by 0.4%).
read -r -a BENCH <<<"${PERF_BENCH:---workloads sendmmsg --msgs 32768 --rounds 9 --warmup 3}"
CONFINED=(--variants "old-abi,new-abi" --workloads sendmmsg --msgs 2048
	--rounds 2 --warmup 0)
TRIXIE=1
[[ ${1:-} == --no-trixie ]] && TRIXIE=0 && shift
if [[ $# -ne 2 || ! -f ${1:-} || ! -f ${2:-} ]]; then
	echo "usage: $0 [--no-trixie] FIXED_BZIMAGE REGRESSED_BZIMAGE" >&2
	exit 2
fi
FIXED=$1
REGRESSED=$2
OUT=$(mktemp -d /tmp/apparmor-selftests-perf.XXXXXX)
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

# ratio JSON: "RATIO MEAN", the dgram/seqpacket ratio and the dgram
# ns/msg of a result's unconfined sendmmsg 128B series.
ratio()
{
	jq -r 'first(.series[] | select(.variant == "unconfined" and
		.workload == "sendmmsg" and .sock == "dgram" and
		.msg_size == 128)) | "\(.ratio) \(.mean)"' "$1" 2>/dev/null
}

# In the guest: run CMD..., keep its output and exit status in /output/TAG.
# shellcheck disable=SC2016 # expanded by the guest's shell
readonly GUEST_RUN='run() { t=$1; shift; "$@" >/output/$t.tap 2>&1; echo $? >/output/$t.rc; cat /output/$t.tap; }'

# Boot 1: record a baseline (and a JSON result), run the confined variants.
# shellcheck disable=SC2016
vm 1 -k "$FIXED" --icount -- bash -c "$GUEST_RUN"'
	run record ./run_perf.sh record -- "$@" --baseline /output/base --json /output/r.json
	run confined ./af_unix_send_perf '"${CONFINED[*]}"'
	exit 0' bash "${BENCH[@]}"
rc1=$?
base=$OUT/1/base
if [[ $rc1 -eq 0 && $(rc "$OUT/1/record.rc") -eq 0 && -s $base ]]; then
	result 0 "boot 1: baseline recorded ($(grep '^entry=' "$base"))"
else
	result 1 "boot 1: baseline recorded (vmtest.sh $rc1, run_perf.sh record $(rc "$OUT/1/record.rc"), see $OUT/1.log)"
fi
if [[ $(rc "$OUT/1/confined.rc") -eq 0 ]] &&
	grep -Eq '^ok [0-9]+ old-abi sendmmsg 128B: [0-9]+ messages validated' "$OUT/1/confined.tap" &&
	grep -Eq '^ok [0-9]+ new-abi sendmmsg 128B: [0-9]+ messages validated' "$OUT/1/confined.tap"; then
	result 0 "fixed kernel: confined OLD-ABI and NEW-ABI variants pass"
else
	grep -E '^(not )?ok' "$OUT/1/confined.tap" 2>/dev/null | sed 's/^/#   /'
	result 1 "fixed kernel: confined OLD-ABI and NEW-ABI variants pass"
fi

# Boots 2 (fixed) and 3 (regressed) check boot 1's baseline; the trixie
# boot runs beside them (the guest clock of the others does not care).
# shellcheck disable=SC2016
check_boot()
{
	vm "$1" -k "$2" --icount -- bash -c "$GUEST_RUN"'
	printf "%s\n" "$1" >/tmp/base
	shift
	run check ./run_perf.sh check -- "$@" --baseline /tmp/base --json /output/r.json
	exit 0' bash "$(cat "$base")" "${BENCH[@]}"
}

rc2=1
rc3=1
rc4=0
if [[ -s $base ]]; then
	check_boot 2 "$FIXED" &
	pid2=$!
	check_boot 3 "$REGRESSED" &
	pid3=$!
fi
if [[ $TRIXIE -eq 1 ]]; then
	vm trixie -d trixie -- ./af_unix_send_perf "${CONFINED[@]}" &
	wait $!
	rc4=$?
fi
if [[ -s $base ]]; then
	wait "$pid2"
	rc2=$?
	wait "$pid3"
	rc3=$?
fi

read -r r1 d1 < <(ratio "$OUT/1/r.json")
read -r r2 d2 < <(ratio "$OUT/2/r.json")
read -r r3 d3 < <(ratio "$OUT/3/r.json")
echo "# boot 1 (fixed): ratio ${r1:-none}, dgram ${d1:-none} ns/msg"
echo "# boot 2 (fixed): ratio ${r2:-none}, dgram ${d2:-none} ns/msg"
echo "# boot 3 (regressed): ratio ${r3:-none}, dgram ${d3:-none} ns/msg"
if [[ -n ${r1:-} && -n ${r2:-} ]]; then
	diff=$(awk -v a="$r1" -v b="$r2" 'BEGIN { d = (b / a - 1) * 100; printf "%.3f", d < 0 ? -d : d }')
	awk -v d="$diff" -v m="$PERF_MAX_DIFF" 'BEGIN { exit !(d <= m) }'
	result $? "two boots of the fixed kernel agree on the ratio: $r1 vs $r2, ${diff}% apart (max ${PERF_MAX_DIFF}%)"
else
	result 1 "two boots of the fixed kernel agree on the ratio (no result from boot 1 or 2)"
fi

# verdict N: boot N's verdict line against the baseline.
verdict()
{
	grep -E '^(not )?ok [0-9]+ unconfined sendmmsg 128B vs baseline' \
		"$OUT/$1/check.tap" 2>/dev/null
}

v=$(verdict 2)
echo "# fixed: ${v:-no verdict}"
# ok holds the test's status: a bare $? after [[ ]] is easily lost (SC2319).
ok=0
[[ $rc2 -eq 0 && $(rc "$OUT/2/check.rc") -eq 0 && $v == "ok "*" within "* ]] || ok=1
result "$ok" "boot 1's baseline passes on the fixed kernel (exit status $(rc "$OUT/2/check.rc"))"

v=$(verdict 3)
echo "# regressed: ${v:-no verdict}"
ok=0
[[ $rc3 -eq 0 && $(rc "$OUT/3/check.rc") -eq 1 && $v == "not ok "*" exceeds baseline "* ]] || ok=1
result "$ok" "the same baseline FAILs the regressed kernel (exit status $(rc "$OUT/3/check.rc"))"

# Debian trixie's 6.12 lacks network_v9/af_unix: NEW-ABI SKIPs, OLD passes.
if [[ $TRIXIE -eq 1 ]]; then
	log=$OUT/trixie.log
	grep -E '^(not )?ok [0-9]+ (# SKIP )?(old|new)-abi' "$log" | sed 's/^/# /'
	[[ $rc4 -eq 0 ]] &&
		grep -Eq '^ok [0-9]+ old-abi sendmmsg 128B: [0-9]+ messages validated' "$log" &&
		grep -Eq '^ok [0-9]+ # SKIP new-abi sendmmsg 128B: kernel lacks .*network_v9/af_unix' "$log"
	result $? "Debian trixie: OLD-ABI variant passes, NEW-ABI SKIPs with the reason"
fi

echo "# logs and results in $OUT; $((SECONDS - start)) s"
[[ $failed -eq 0 ]]
