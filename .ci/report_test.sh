#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Checks of "run_perf.sh report": the figures and verdicts it prints on
# hand-made af_unix_send_perf/2 results and on three numbers, in the block
# format .ci/run's aba_figure() reads, exit status 2 with a message for
# every input it must refuse, and the same report on three short runs of
# af_unix_send_perf on this host (the timings mean nothing here, only
# the report's shape); vm-aba, its three boots run on this host by a
# stand-in vmtest.sh; and the benchmark arguments check passes on.
# Usage: .ci/report_test.sh BINDIR, where BINDIR holds af_unix_send_perf.
# Needs jq.  Prints TAP.

set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=$(cd "$1" && pwd) || exit 1
tmp=$(mktemp -d /tmp/report_test.XXXXXX)
trap 'rm -rf -- "$tmp"' EXIT
# shellcheck source=.ci/tap.sh
. "$here/.ci/tap.sh"
cd "$tmp" || exit 1
report=("$here/run_perf.sh" report)

# gen FILE DGRAM SEQPACKET [KERNEL]: a result whose unconfined sendmmsg
# 128 B series have the comma-separated ns/msg DGRAM and SEQPACKET, the
# io_uring ones 1000 more, and a new-abi decoy 3000 more.
gen() {
	jq -n --argjson d "[$2]" --argjson s "[$3]" --arg k "${4:-7.2.0-a}" '
		def ser(v; w; sock; ns): {variant: v, workload: w, sock: sock,
			msg_size: 128, validated_msgs: 4096,
			validation_failures: 0, ns_per_msg: ns};
		{format: "af_unix_send_perf/2", kernel: $k,
		 machine_id: "0123456789abcdef", cpu_model: "QEMU TCG CPU",
		 clocksource: "tsc", icount: true, batch: 32,
		 msgs_per_round: 32768, rounds: ($d | length), warmup: 3,
		 series: [(["unconfined", "sendmmsg", 0],
			   ["unconfined", "io_uring", 1000],
			   ["new-abi", "sendmmsg", 3000]) as [$v, $w, $a] |
			  ser($v; $w; "dgram"; $d | map(. + $a)),
			  ser($v; $w; "seqpacket"; $s | map(. + $a))]}' >"$1"
}

# edit IN OUT JQ: OUT is IN changed by the jq filter JQ.
edit() {
	jq "$3" "$1" >"$2"
}

readonly SEL='.series[] | select(.variant == "unconfined" and
	.workload == "sendmmsg"'
readonly DGRAM="($SEL and .sock == \"dgram\"))"
readonly SEQ="($SEL and .sock == \"seqpacket\"))"

# expect RC REGEX ARGS...: the report of ARGS exits RC and REGEX (grep -E)
# matches its stdout or stderr; a refusal (2) prints no figures.
expect() {
	local want=$1 re=$2 rc=0

	shift 2
	"${report[@]}" "$@" >out 2>err || rc=$?
	if [[ $rc -ne $want ]]; then
		echo "# exit status $rc, want $want"
	elif ! grep -Eq -- "$re" out err; then
		echo "# no line matches '$re'"
	elif [[ $rc -eq 2 ]] && grep -q verdict out; then
		echo "# a refusal printed a verdict"
	else
		return 0
	fi
	sed 's/^/#   /' out err
	return 1
}

# figure REPORT WORKLOAD N: as .ci/run's aba_figure(), the Nth "(ratio)"
# figure of WORKLOAD's block.
figure() {
	awk -v w="$2" -v n="$3" '
		$1 == w && $3 == "B" { inb = 1; k = 0; next }
		/^$/ { inb = 0 }
		inb && /\(ratio\)$/ && ++k == n { sub(/%/, "", $1); print $1 + 0 }
	' "$1"
}

# clean FILE: nothing a mail client would mangle, no line over 80.
clean() {
	! grep -q -e '[[:cntrl:]]' -e ' $' "$1" && awk 'length > 80 { exit 1 }' "$1"
}

gen a.json 110,100,102,98 50,51,49,50
gen b.json 113,102,104,101,100 51,52,50,51,51 7.2.0-b
gen a2.json 112,101,103,100 51,51,50,50
gen slow.json 130,118,120,116,118 50,51,49,50,50 7.2.0-b
gen one.json 100,100,100 100,100,100
gen half.json 150,150,150 100,100,100 7.2.0-b
gen noisy.json 100,100,100 50,60,40
set -- a.json b.json a2.json

# 1. Figures and verdicts.
check "no change: exit 0" expect 0 '^  verdict: B within the 5.000% threshold \(dgram/seqpacket ratio\)$' "$@"
check "dgram ns/msg of each point" grep -Eq '^  dgram ns/msg +102\.500 +104\.000 +104\.000$' out
check "without round 1" grep -Eq '^  without round 1 +100\.000 +101\.750 +101\.333$' out
check "ratios" grep -Eq '^  dgram/seqpacket ratio +2\.0500 +2\.0392 +2\.0594$' out
check "B against the midpoint, ns/msg" grep -Eq "^  B vs midpoint of A and A' +\+0\.726%  \(dgram ns/msg\)$" out
check "parent drift, ns/msg" grep -Eq "^  parent drift \(A' vs A\) +\+1\.463%  \(dgram ns/msg\)$" out
check "aba_figure(): B against the midpoint on the ratio" test "$(figure out sendmmsg 1)" = -0.754
check "aba_figure(): parent drift on the ratio" test "$(figure out sendmmsg 2)" = 0.459
check "aba_figure(): the io_uring block" test "$(figure out io_uring 2)" = 0.088
check "max CV" grep -Eq '^  max CV of a series +5\.267%$' out
check "messages counted" grep -q '^  validation: 24576 messages ok, 0 failures$' out
check "each round, blank where a run measured fewer" \
	grep -Eq '^      5 +100\.000 +$' out
check "only the unconfined series" test "$(grep -c ' B  *A (parent)' out)" -eq 2
check "B 17.195% slower on the ratio: exit 1" expect 1 \
	'^  verdict: B is 17\.195% slower \(dgram/seqpacket ratio\), above the 5\.000% threshold$' \
	a.json slow.json a2.json
check "B 17% slower, threshold 17.2: exit 0" expect 0 \
	'^  verdict: B within the 17\.200% threshold' -t 17.2 a.json slow.json a2.json
check "slowdown equal to the threshold (50%) is no regression: exit 0" \
	expect 0 'B within the 50\.000% threshold' -t 50 one.json half.json one.json
check "slowdown just above it (49.999%): exit 1" expect 1 \
	'B is 50\.000% slower \(dgram/seqpacket ratio\), above the 49\.999% threshold' \
	-t 49.999 one.json half.json one.json
check "max CV: the largest of both sockets' (A' seqpacket)" \
	expect 0 '^  max CV of a series +20\.000%$' one.json one.json noisy.json
edit b.json failed.json "$SEQ.validation_failures = 3"
check "damaged messages in B: exit 1" expect 1 \
	'^  validation: 24576 messages ok, 3 failures$' a.json failed.json a2.json
check "... and said so" grep -q '^  verdict: messages arrived damaged$' out

# 2. Three numbers, as .ci/run's logic_tests gives them.
check "343.382 395.831 343.259: +15.295%, exit 1" expect 1 \
	"^  B vs midpoint of A and A' +\+15\.295%  \(ns/msg\)$" 343.382 395.831 343.259
check "... drift -0.036%" grep -Eq "^  parent drift \(A' vs A\) +-0\.036%" out
check "100 150 100, threshold 50: exit 0" expect 0 \
	'B within the 50\.000% threshold \(ns/msg\)$' -t 50 100 150 100
check "ns/msg 0: exit 2" expect 2 'is not ns/msg' 343.382 0 343.259

# 3. Inputs to refuse.
sed '0,/"ns_per_msg": \[/s//"ns_per_msg": [NaN, /' a.json >nan.json
check "NaN in ns_per_msg: exit 2" expect 2 . a.json nan.json a2.json
edit a.json huge.json "$DGRAM.ns_per_msg[0] = 1e999"
check "1e999 in ns_per_msg: exit 2" expect 2 'is not ns/msg' huge.json b.json a2.json
edit a.json neg.json "$SEQ.ns_per_msg[2] = -49"
check "a negative ns/msg: exit 2" expect 2 '"-49" is not ns/msg' neg.json b.json a2.json
edit a.json str.json "$DGRAM.ns_per_msg[3] = \"98\""
check "a string in ns_per_msg: exit 2" expect 2 '"\(string\)" is not ns/msg' \
	a.json str.json a2.json
edit a.json short.json "($DGRAM, $SEQ).ns_per_msg |= .[:1]"
check "a single round: exit 2" expect 2 'fewer than 2 rounds' a.json short.json a2.json
edit a.json nolist.json "$DGRAM.ns_per_msg = 110"
check "ns_per_msg not a list: exit 2" expect 2 'nolist\.json: series not as' \
	a.json nolist.json a2.json
edit a.json lengths.json "$SEQ.ns_per_msg |= .[:3]"
check "dgram and seqpacket of different lengths: exit 2" \
	expect 2 'dgram and seqpacket differ in rounds' a.json lengths.json a2.json
edit a.json noseq.json "del($SEQ)"
check "no seqpacket series: exit 2" \
	expect 2 'B holds no unconfined sendmmsg 128 B seqpacket series' \
	a.json noseq.json a2.json
edit a.json twice.json '.series += [.series[0]]'
check "a series twice: exit 2" expect 2 'two unconfined sendmmsg 128 B dgram series' \
	a.json twice.json a2.json
edit a.json fracval.json "$SEQ.validated_msgs = 4096.5"
check "validated_msgs not an integer: exit 2" expect 2 'not integers' \
	fracval.json b.json a2.json
edit a.json v1.json '.format = "af_unix_send_perf/1"'
check "format af_unix_send_perf/1: exit 2" \
	expect 2 'v1\.json is not a result of af_unix_send_perf --json' a.json v1.json a2.json
echo 'ns/msg: 102.5' >text.json
check "not JSON: exit 2" expect 2 'text\.json is not a result' a.json text.json a2.json
check "a missing file: exit 2" expect 2 'nonexistent is not a result' a.json b.json nonexistent
for f in 'machine_id = "fedcba9876543210"' 'cpu_model = "AMD EPYC"' \
	'batch = 64' 'msgs_per_round = 65536' 'warmup = 0' 'icount = false'; do
	k=${f%% =*}
	edit b.json "$k.json" ".$f"
	check "$k differs: exit 2" expect 2 \
		"^run_perf.sh: A/B/A inputs differ in $k: A=.*, B=${f#* = }, A'=" \
		a.json "$k.json" a2.json
done
check "two points: exit 2" expect 2 'run_perf.sh report \[-t PCT\]' a.json b.json
check "-t nan: exit 2" expect 2 'not a number in 0\.\.1000' -t nan "$@"
check "-t -1: exit 2" expect 2 'not a number in 0\.\.1000' -t -1 "$@"

# 4. Three short runs on this host, with build-info as build_kernel.sh
# writes it.
for i in 1 2 3; do
	mkdir -p "$i"
	"$bin/af_unix_send_perf" --msgs 1024 \
		--rounds 3 --warmup 0 --json "$i/r.json" >/dev/null 2>&1
done
printf 'version: 9.9\npatch: 0001-x.patch [PATCH] x\n' >1/build-info
cp 1/build-info 3/
printf 'version: 9.9\npatch: none\n' >2/build-info
set -- 1/r.json 2/r.json 3/r.json
"${report[@]}" -t 1000 -o report "$@" >printed
check "no regression within a 1000% threshold: exit 0" test $? -eq 0
check "report.txt is what was printed" cmp -s printed report/report.txt
check "the parent's patch is named" grep -q '^         + 0001-x.patch$' printed
check "the child has none" grep -q '^         (no patches)$' printed
for w in sendmmsg io_uring; do
	check "a $w block with both ratio figures" \
		test "$(figure printed "$w" 1 | wc -l)$(figure printed "$w" 2 | wc -l)" = 11
done
check "no control characters, no trailing blanks, 80 columns" clean printed

# 5. vm-aba, its guests run here: a vmtest.sh beside run_perf.sh that logs
# its arguments and runs the guest's command with -o DIR for /output.
# CI's A/B/A report is made of the benchmark's boots: vm-aba boots none.
mkdir -p vm k1 k2
cp "$here/run_perf.sh" "$bin/af_unix_send_perf" vm/
cat >vm/vmtest.sh <<'STUB'
#!/bin/bash
cd "$(dirname "$0")" || exit 2
echo "$*" >>boots
while [[ $# -gt 0 && $1 != -- ]]; do
	[[ $1 == -o ]] && out=$2
	shift
done
shift
exec "${@/#\/output/$out}"
STUB
chmod +x vm/vmtest.sh
printf 'version: 9.9\npatch: 0001-x.patch [PATCH] x\n' >k1/build-info
printf 'version: 9.9\npatch: none\n' >k2/build-info
touch k1/bzImage k2/bzImage
vm/run_perf.sh vm-aba -t 1000 -j 2 -b x=1 -o "$PWD/aba" k1/bzImage k2/bzImage -- \
	--msgs 1024 --rounds 3 --warmup 0 >/dev/null 2>vm-aba.err
check "vm-aba: three boots, no regression within 1000%: exit 0" test $? -eq 0
check "vm-aba: A, B with -b's command line, A again, each with --icount" \
	test "$(sed 's/ -o .*//' vm/boots | sort | uniq -c | awk '{ $1 = $1 } 1')" = \
	"$(printf '2 -k k1/bzImage --icount\n1 -k k2/bzImage -a x=1 --icount')"
check "vm-aba: each boot's build-info beside its result" \
	sh -c 'grep -q "^patch: 0001-x" aba/1/build-info &&
		grep -q "^patch: none" aba/2/build-info &&
		grep -q "^cmdline: x=1" aba/2/build-info && cmp -s aba/1/build-info aba/3/build-info'
check "vm-aba: the report, in report.txt" \
	test "$(figure aba/report.txt sendmmsg 1 | wc -l)" = 1

# A stand-in benchmark that prints its arguments, one a line.
mkdir args
cp "$here/run_perf.sh" args/
cat >args/af_unix_send_perf <<'STUB'
#!/bin/sh
for a; do echo "[$a]"; done
STUB
chmod +x args/af_unix_send_perf
check "check without benchmark arguments passes none" \
	test -z "$(args/run_perf.sh check)"
check "check -- ARGS passes ARGS as they are" \
	test "$(args/run_perf.sh check -- --sizes '64,128' '' | tr '\n' ' ')" = \
	"[--sizes] [64,128] [] "

tap_done
