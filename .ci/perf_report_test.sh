#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Checks of perf_report.py on hand-made af_unix_send_perf/2 results: the
# figures and verdicts it prints (aba_report.sh parses them), the same
# output for the same JSON however it is laid out, and exit status 2 with
# a message for every input it must refuse.
# Usage: .ci/perf_report_test.sh [PERF_REPORT], by default the
# repository's perf_report.py.  Needs jq and python3.  Prints TAP.

set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
report=$(realpath -- "${1:-$here/perf_report.py}") || exit 1
tmp=$(mktemp -d /tmp/perf_report_test.XXXXXX)
trap 'rm -rf -- "$tmp"' EXIT
# shellcheck source=.ci/tap.sh
. "$here/.ci/tap.sh"
# The source column shows the file names as given: keep them short.
cd "$tmp" || exit 1

# gen FILE DGRAM SEQPACKET [KERNEL]: a result of af_unix_send_perf --json
# whose unconfined sendmmsg 128B series have the comma-separated ns/msg
# DGRAM and SEQPACKET, among decoys of other variants, workloads and sizes,
# one series a line as the benchmark writes them.
cat >gen.py <<'EOF'
import json
import sys

out, dgram, seq = sys.argv[1:4]
kernel = sys.argv[4] if len(sys.argv) > 4 else '7.2.0-a'


def series(variant, workload, sock, size, ns, base):
    n = len(ns)
    mean = sum(ns) / n
    return {'variant': variant, 'workload': workload, 'sock': sock,
            'msg_size': size, 'rounds': n, 'mean': mean,
            'median': sorted(ns)[n // 2], 'min': min(ns), 'stdev': 1.5,
            'cv': 0.01, 'mean_drop_first': sum(ns[1:]) / (n - 1),
            'ratio': mean / (sum(base) / len(base)), 'ratio_lo': 1.9,
            'ratio_hi': 2.1, 'validated_msgs': 4096,
            'validation_failures': 0, 'ns_per_msg': ns}


d = json.loads('[' + dgram + ']')
s = json.loads('[' + seq + ']')
rows = []
for v, w, size, add in (('unconfined', 'sendmmsg', 128, 0),
                        ('unconfined', 'io_uring', 128, 1000),
                        ('unconfined', 'sendmmsg', 1024, 2000),
                        ('new-abi', 'sendmmsg', 128, 3000)):
    dv = [x + add for x in d]
    sv = [x + add for x in s]
    rows += [series(v, w, 'dgram', size, dv, sv),
             series(v, w, 'seqpacket', size, sv, sv)]
head = {'format': 'af_unix_send_perf/2', 'time': '2025-06-01T12:00:00Z',
        'kernel': kernel, 'kernel_version': '#1 SMP PREEMPT_DYNAMIC',
        'cmdline': 'console=ttyS0', 'lsm': 'capability,apparmor',
        'apparmor': True, 'preempt': 'none', 'label': 'unconfined',
        'cpu_model': 'QEMU TCG CPU version 2.5+',
        'machine_id': '0123456789abcdef0123456789abcdef',
        'clocksource': 'tsc', 'icount': True, 'machine_slow': False,
        'cpu': 0, 'batch': 32, 'msgs_per_round': 32768, 'rounds': len(d),
        'max_rounds': 30, 'warmup': 3, 'budget_s': 60, 'tolerance': 0.05,
        'clock_gettime_ns': 25.5}
tail = {'not_run': [{'variant': 'old-abi', 'workload': 'send',
                     'msg_size': 128, 'status': 'skip',
                     'reason': 'kernel lacks network_v9/af_unix'}],
        'verdicts': [{'workload': 'sendmmsg', 'msg_size': 128,
                      'verdict': 'pass', 'reason': 'within tolerance'}]}
with open(out, 'w', encoding='utf-8') as f:
    f.write('{\n')
    for k, val in head.items():
        f.write(f'  {json.dumps(k)}: {json.dumps(val)},\n')
    f.write('  "series": [\n    ')
    f.write(',\n    '.join(json.dumps(r) for r in rows))
    f.write('\n  ],\n')
    f.write(',\n'.join(f'  {json.dumps(k)}: {json.dumps(val)}'
                       for k, val in tail.items()))
    f.write('\n}\n')
EOF
gen() {
	python3 gen.py "$@"
}

# edit IN OUT JQ: OUT is IN changed by the jq filter JQ.
edit() {
	jq "$3" "$1" >"$2"
}

# sub IN OUT SED: OUT is IN changed by the sed script SED, for what jq
# cannot write (NaN, Infinity, 1e999).
sub() {
	sed "$3" "$1" >"$2"
	cmp -s "$1" "$2" && echo "# sed '$3' changed nothing in $1"
}

# The series perf_report reads by default, for jq filters.
readonly SEL='.series[] | select(.variant == "unconfined" and
	.workload == "sendmmsg" and .msg_size == 128'
readonly DGRAM="($SEL and .sock == \"dgram\"))"
readonly SEQ="($SEL and .sock == \"seqpacket\"))"

# expect RC REGEX ARGS...: perf_report ARGS exits RC, REGEX (grep -E)
# matches its stdout or stderr, and a refusal (2) prints nothing on stdout.
expect() {
	local want=$1 re=$2 rc=0

	shift 2
	"$report" "$@" >out 2>err || rc=$?
	if [[ $rc -ne $want ]]; then
		echo "# exit status $rc, want $want"
	elif ! grep -Eq -- "$re" out err; then
		echo "# no line matches '$re'"
	elif [[ $rc -eq 2 && -s out ]]; then
		echo "# a refusal printed a report"
	else
		return 0
	fi
	sed 's/^/#   /' out err
	return 1
}

# same WANT RC ARGS...: perf_report ARGS exits RC and prints exactly the
# file WANT.
same() {
	local want=$1 st=$2 rc=0

	shift 2
	"$report" "$@" >out 2>err || rc=$?
	if diff -u "$want" out >out.diff && [[ $rc -eq $st ]]; then
		return 0
	fi
	echo "# exit status $rc, want $st"
	sed "s/^/#   /" out.diff err
	return 1
}

# in_dir DIR CMD...: CMD in DIR, so that the file names are the same.
in_dir() {
	(cd "$1" && shift && "$@")
}

gen a.json 110,100,102,98 50,51,49,50
gen b.json 113,102,104,101,100 51,52,50,51,51 7.2.0-b
gen a2.json 112,101,103,100 51,51,50,50
gen slow.json 130,118,120,116,118 50,51,49,50,50 7.2.0-b
gen one.json 100,100,100 100,100,100
gen half.json 150,150,150 100,100,100 7.2.0-b
gen above.json 151,150,150 100,100,100 7.2.0-b
gen noisy.json 100,100,100 50,60,40
set -- a.json b.json a2.json

# 1. Figures and verdicts.
cat >ok.want <<'EOF'
unconfined sendmmsg 128B, dgram (mean ns/msg per point)
pt      ns/msg  w/o round 1      cv%  seqpacket    ratio   validated failures  source
A      102.500      100.000    5.132     50.000   2.0500        8192        0  a.json
B      104.000      101.750    5.042     51.000   2.0392        8192        0  b.json
A'     104.000      101.333    5.267     50.500   2.0594        8192        0  a2.json
B slowdown vs midpoint of A runs (103.250): +0.726%
B slowdown, first round dropped: +1.076%
parent drift (A' vs A): +1.463%
B ratio slowdown vs midpoint of A runs (2.0547): -0.754%
parent ratio drift (A' vs A): +0.459%
max CV: 5.267%
validation: 24576 messages ok, 0 failures
verdict: B within the 5.000% threshold (dgram/seqpacket ratio)
EOF
check "no change: every figure, exit 0" same ok.want 0 "$@"
cat >slow.want <<'EOF'
unconfined sendmmsg 128B, dgram (mean ns/msg per point)
pt      ns/msg  w/o round 1      cv%  seqpacket    ratio   validated failures  source
A      102.500      100.000    5.132     50.000   2.0500        8192        0  a.json
B      120.400      118.000    4.609     50.000   2.4080        8192        0  slow.json
A'     104.000      101.333    5.267     50.500   2.0594        8192        0  a2.json
B slowdown vs midpoint of A runs (103.250): +16.610%
B slowdown, first round dropped: +17.219%
parent drift (A' vs A): +1.463%
B ratio slowdown vs midpoint of A runs (2.0547): +17.195%
parent ratio drift (A' vs A): +0.459%
max CV: 5.267%
validation: 24576 messages ok, 0 failures
verdict: B is 17.195% slower (dgram/seqpacket ratio), above the 5.000% threshold
EOF
check "B 17.195% slower on the ratio: every figure, exit 1" \
	same slow.want 1 a.json slow.json a2.json
check "B 17% slower, threshold 17.2: exit 0" \
	expect 0 '^verdict: B within the 17.200% threshold \(dgram/seqpacket ratio\)$' \
	--threshold 17.2 a.json slow.json a2.json
check "slowdown equal to the threshold (50%) is no regression: exit 0" \
	expect 0 '^verdict: B within the 50.000% threshold' \
	--threshold 50 one.json half.json one.json
check "slowdown just above the threshold (49.999%): exit 1" \
	expect 1 '^verdict: B is 50.000% slower \(dgram/seqpacket ratio\), above the 49.999% threshold$' \
	--threshold 49.999 one.json half.json one.json
check "B ratio 1.50333 against 1 with a 50% threshold: exit 1" \
	expect 1 '^B ratio slowdown vs midpoint of A runs \(1.0000\): \+50.333%$' \
	--threshold 50 one.json above.json one.json
check "max CV: the largest of both sockets' CVs (A' seqpacket)" \
	expect 0 '^max CV: 20.000%$' one.json one.json noisy.json
check "--workload io_uring reads the io_uring series" \
	expect 0 '^A +1102.500 +1100.000 .* 1050.000 +1.0500 ' \
	--workload io_uring "$@"
check "--size 1024 reads the 1024B series" \
	expect 0 '^unconfined sendmmsg 1024B, dgram' --size 1024 "$@"
check "--variant new-abi reads the new-abi series" \
	expect 0 '^A +3102.500 ' --variant new-abi "$@"

# 2. The same JSON laid out otherwise prints the same report.
for f in pretty:-M compact:-c sorted:-S; do
	mkdir "${f%:*}"
	for p in "$@"; do
		jq "${f#*:}" . "$p" >"${f%:*}/$p"
	done
	check "the three results after jq ${f#*:} .: the same report" \
		in_dir "${f%:*}" same ../ok.want 0 "$@"
done
check "jq -c . wrote one line" test "$(wc -l <compact/a.json)" -eq 1
check "jq -S reordered the keys" test "$(jq -r 'keys_unsorted[0]' a.json \
	sorted/a.json)" = "format
apparmor"

# 3. Inputs to refuse.
sub a.json nan.json '0,/"ns_per_msg": \[110/s//"ns_per_msg": [NaN/'
check "a NaN literal in ns_per_msg: exit 2" \
	expect 2 'a2?\.json|nan\.json is not JSON: NaN is not a JSON number' \
	a.json nan.json a.json
sub a.json nanbudget.json 's/"budget_s": 60/"budget_s": NaN/'
check "a NaN literal in a field perf_report does not read: exit 2" \
	expect 2 'nanbudget\.json is not JSON: NaN is not a JSON number' \
	a.json nanbudget.json a2.json
sub a.json inf.json '0,/"ns_per_msg": \[110/s//"ns_per_msg": [Infinity/'
check "Infinity in ns_per_msg: exit 2" \
	expect 2 'inf\.json is not JSON: Infinity is not a JSON number' \
	inf.json b.json a2.json
sub a.json minf.json '0,/"ns_per_msg": \[110/s//"ns_per_msg": [-Infinity/'
check "-Infinity in ns_per_msg: exit 2" \
	expect 2 'minf\.json is not JSON: -Infinity is not a JSON number' \
	a.json b.json minf.json
sub a.json huge.json '0,/"ns_per_msg": \[110/s//"ns_per_msg": [1e999/'
check "1e999 (infinite) in ns_per_msg: exit 2" \
	expect 2 'huge\.json: unconfined sendmmsg dgram 128B: "ns_per_msg"\[0\] is Infinity, not a finite number > 0' \
	huge.json b.json a2.json
sub a.json hugeseq.json '0,/"ns_per_msg": \[50/s//"ns_per_msg": [1e999/'
check "1e999 in seqpacket's ns_per_msg (A'): exit 2" \
	expect 2 'hugeseq\.json: unconfined sendmmsg seqpacket 128B: "ns_per_msg"\[0\] is Infinity' \
	a.json b.json hugeseq.json
edit a.json zero.json "$DGRAM.ns_per_msg[1] = 0"
check "a 0 in ns_per_msg: exit 2" \
	expect 2 'zero\.json: .*"ns_per_msg"\[1\] is 0, not a finite number > 0' \
	a.json zero.json a2.json
edit a.json neg.json "$SEQ.ns_per_msg[2] = -49"
check "a negative value in ns_per_msg: exit 2" \
	expect 2 'neg\.json: .*seqpacket 128B: "ns_per_msg"\[2\] is -49, not a finite number > 0' \
	neg.json b.json a2.json
edit a.json str.json "$DGRAM.ns_per_msg[3] = \"98\""
check "a string in ns_per_msg: exit 2" \
	expect 2 'str\.json: .*"ns_per_msg"\[3\] is "98", not a finite number' \
	a.json str.json a2.json
edit a.json bool.json "$DGRAM.ns_per_msg[0] = true"
check "a boolean in ns_per_msg: exit 2" \
	expect 2 'bool\.json: .*"ns_per_msg"\[0\] is true, not a finite number' \
	a.json bool.json a2.json
edit a.json short.json "($DGRAM, $SEQ).ns_per_msg |= .[:1]"
check "a single round: exit 2" \
	expect 2 'short\.json: .*dgram 128B: "ns_per_msg" is \[110\], not a list of at least 2 numbers' \
	a.json short.json a2.json
edit a.json nolist.json "$DGRAM.ns_per_msg = 110"
check "ns_per_msg not a list: exit 2" \
	expect 2 'nolist\.json: .*"ns_per_msg" is 110, not a list' \
	a.json nolist.json a2.json
edit a.json lengths.json "$SEQ.ns_per_msg |= .[:3]"
check "dgram and seqpacket of different lengths: exit 2" \
	expect 2 'lengths\.json: .*"ns_per_msg" of dgram has 4 rounds, of seqpacket 3' \
	a.json lengths.json a2.json
edit a.json noseq.json "del($SEQ)"
check "no seqpacket series: exit 2" \
	expect 2 'noseq\.json: 0 "series" entries unconfined sendmmsg seqpacket 128B, want 1' \
	a.json noseq.json a2.json
edit a.json twice.json '.series += [.series[0]]'
check "the dgram series twice: exit 2" \
	expect 2 'twice\.json: 2 "series" entries unconfined sendmmsg dgram 128B' \
	a.json twice.json a2.json
edit a.json v1.json '.format = "af_unix_send_perf/1"'
check "format af_unix_send_perf/1: exit 2" \
	expect 2 'v1\.json is not a result of af_unix_send_perf --json \(format "af_unix_send_perf/1", want "af_unix_send_perf/2"\)' \
	a.json v1.json a2.json
edit a.json noformat.json 'del(.format)'
check "no format: exit 2" \
	expect 2 'noformat\.json is not a result of af_unix_send_perf --json \(format null' \
	a.json b.json noformat.json
echo 'ns/msg: 102.5' >text.json
check "not JSON: exit 2" expect 2 'text\.json is not JSON: ' \
	a.json text.json a2.json
echo '[1, 2, 3]' >array.json
check "a JSON array: exit 2" \
	expect 2 'array\.json is not a result of af_unix_send_perf --json \(format: a JSON array, not an object' \
	a.json array.json a2.json
: >empty.json
check "an empty file: exit 2" expect 2 'empty\.json is not JSON: ' \
	empty.json b.json a2.json
mkdir dir.json
check "a directory: exit 2" \
	expect 2 'dir\.json: Is a directory \(neither a number nor a readable file\)' \
	a.json dir.json a2.json
for f in 'machine_id = "fedcba9876543210fedcba9876543210"' \
	'cpu_model = "AMD EPYC 7763 64-Core Processor"' 'batch = 64' 'msgs_per_round = 65536' \
	'warmup = 0' 'icount = false'; do
	k=${f%% =*}
	edit b.json "$k.json" ".$f"
	check "$k differs: exit 2" \
		expect 2 "^perf_report: A/B/A inputs differ in $k: A=.*, B=${f#* = }, A'=" \
		a.json "$k.json" a2.json
	check "$k differs in A': exit 2" \
		expect 2 "differ in $k: A=.*, B=.*, A'=${f#* = }\$" \
		a.json b.json "$k.json"
done
edit b.json nomachine.json 'del(.machine_id)'
check "no machine_id: exit 2" expect 2 'nomachine\.json: no "machine_id"' \
	a.json nomachine.json a2.json
check "fixtures: B has another kernel and 5 rounds, A 4" \
	test "$(jq -r '[.kernel, .rounds] | join(" ")' b.json)" = "7.2.0-b 5" -a \
	"$(jq -r .kernel a.json)" = 7.2.0-a
edit a.json negfail.json "$DGRAM.validation_failures = -1"
check "validation_failures negative: exit 2" \
	expect 2 'negfail\.json: .*"validation_failures" is -1, not an integer >= 0' \
	a.json b.json negfail.json
edit a.json fracval.json "$SEQ.validated_msgs = 4096.5"
check "validated_msgs not an integer: exit 2" \
	expect 2 'fracval\.json: .*"validated_msgs" is 4096.5, not an integer >= 0' \
	fracval.json b.json a2.json
edit a.json boolfail.json "$DGRAM.validation_failures = false"
check "validation_failures a boolean: exit 2" \
	expect 2 'boolfail\.json: .*"validation_failures" is false, not an integer >= 0' \
	a.json boolfail.json a2.json
edit a.json noval.json "$SEQ |= del(.validated_msgs)"
check "no validated_msgs: exit 2" \
	expect 2 'noval\.json: .*"validated_msgs" is null' \
	a.json noval.json a2.json

# 4. Plain numbers.
for v in nan inf 0 -5 1e999; do
	check "ns/msg '$v': exit 2" \
		expect 2 "^perf_report: $v: ns/msg must be a finite number > 0\$" \
		343.382 "$v" 343.259
done
check "ns/msg '-inf' after --: exit 2" \
	expect 2 '^perf_report: -inf: ns/msg must be a finite number > 0$' \
	-- 343.382 343.259 -inf
check "neither a number nor a file: exit 2" \
	expect 2 'abc-not-a-file: No such file or directory \(neither a number nor a readable file\)' \
	343.382 abc-not-a-file 343.259
cat >num.want <<'EOF'
unconfined sendmmsg 128B, dgram (mean ns/msg per point)
pt      ns/msg  w/o round 1      cv%  seqpacket    ratio   validated failures  source
A      343.382          n/a      n/a        n/a      n/a         n/a      n/a  343.382
B      395.831          n/a      n/a        n/a      n/a         n/a      n/a  395.831
A'     343.259          n/a      n/a        n/a      n/a         n/a      n/a  343.259
B slowdown vs midpoint of A runs (343.321): +15.295%
B slowdown, first round dropped: n/a (needs JSON inputs)
parent drift (A' vs A): -0.036%
max CV: n/a (needs JSON inputs)
validation: 0 messages ok, 0 failures
verdict: B is 15.295% slower (dgram ns/msg), above the 5.000% threshold
EOF
check "343.382 395.831 343.259: +15.295%, exit 1" \
	same num.want 1 343.382 395.831 343.259
check "100 150 100, threshold 50: exit 0" \
	expect 0 '^verdict: B within the 50.000% threshold \(dgram ns/msg\)$' \
	--threshold 50 100 150 100

# 5. Validation failures.
edit b.json failed.json "$SEQ.validation_failures = 3"
check "validation failures in B: exit 1" \
	expect 1 '^validation: 24576 messages ok, 3 failures$' \
	a.json failed.json a2.json
check "validation failures in B: its verdict, and B within the threshold" \
	test "$(grep '^verdict' out)" = "verdict: validation failures
verdict: B within the 5.000% threshold (dgram/seqpacket ratio)"
edit a.json failed1.json "$DGRAM.validation_failures = 1"
check "a validation failure in A, 1000% threshold: exit 1" \
	expect 1 '^verdict: validation failures$' \
	--threshold 1000 failed1.json b.json a2.json

# 6. Two results and a number: the verdict is on dgram ns/msg.
cat >mixed.want <<'EOF'
unconfined sendmmsg 128B, dgram (mean ns/msg per point)
pt      ns/msg  w/o round 1      cv%  seqpacket    ratio   validated failures  source
A      102.500      100.000    5.132     50.000   2.0500        8192        0  a.json
B      154.875          n/a      n/a        n/a      n/a         n/a      n/a  154.875
A'     104.000      101.333    5.267     50.500   2.0594        8192        0  a2.json
B slowdown vs midpoint of A runs (103.250): +50.000%
B slowdown, first round dropped: n/a (needs JSON inputs)
parent drift (A' vs A): +1.463%
max CV: n/a (needs JSON inputs)
validation: 16384 messages ok, 0 failures
verdict: B within the 50.000% threshold (dgram ns/msg)
EOF
check "two results and a number, 50% on dgram, threshold 50: exit 0" \
	same mixed.want 0 --threshold 50 a.json 154.875 a2.json
check "the same, threshold 49.999: exit 1" \
	expect 1 '^verdict: B is 50.000% slower \(dgram ns/msg\), above the 49.999% threshold$' \
	--threshold 49.999 a.json 154.875 a2.json
check "a number and two results that differ in batch: no comparison, exit 0" \
	expect 0 '^verdict: B within' 103.25 batch.json a2.json

# Usage.
check "two points: exit 2" expect 2 '^usage: perf_report.py ' "$@" 100
check "--threshold nan: exit 2" expect 2 "argument --threshold: 'nan' is not a number in 0..1000" \
	--threshold nan "$@"
check "--threshold -1: exit 2" expect 2 "argument --threshold: '-1' is not a number in 0..1000" \
	--threshold=-1 "$@"
check "--size 0: exit 2" expect 2 "argument --size: '0' is not an integer in 1..1048576" --size 0 "$@"
check "--size +128: exit 2" expect 2 "argument --size: '\+128' is not an integer" --size +128 "$@"
check "--help: the usage on stdout, exit 0" expect 0 '^exit: 0 no regression' --help

tap_done
