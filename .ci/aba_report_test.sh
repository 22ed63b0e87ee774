#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Checks of aba_report.sh on three short af_unix_send_perf runs on this
# host (unconfined, so no AppArmor needed; the timings mean nothing
# here, only the report's shape and exit status are checked), with and
# without gnuplot.  Usage: .ci/aba_report_test.sh BINDIR, where BINDIR
# holds af_unix_send_perf; the report is the repository's perf_report.py.
# Prints TAP.

set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=$(cd "$1" && pwd) || exit 1
tmp=$(mktemp -d /tmp/aba_report_test.XXXXXX)
trap 'rm -rf -- "$tmp"' EXIT
# shellcheck source=.ci/tap.sh
. "$here/.ci/tap.sh"

# clean FILE: nothing a mail client would mangle.
clean() {
	! grep -q -e '[[:cntrl:]]' -e ' $' "$1"
}

for i in 1 2 3; do
	mkdir -p "$tmp/$i"
	"$bin/af_unix_send_perf" --variants unconfined --msgs 1024 \
		--rounds 3 --warmup 0 --json "$tmp/$i/r.json" >/dev/null 2>&1
done
printf 'version: 9.9\npatch: 0001-x.patch [PATCH] x\n' >"$tmp/1/build-info"
cp "$tmp/1/build-info" "$tmp/3/"
printf 'version: 9.9\npatch: none\n' >"$tmp/2/build-info"
set -- "$tmp/1/r.json" "$tmp/2/r.json" "$tmp/3/r.json"
export PERF_REPORT=$here/perf_report.py

"$here/aba_report.sh" -t 1000 -o "$tmp/out" "$@" >"$tmp/report"
check "no regression within a 1000% threshold: exit 0" test $? -eq 0
check "report.txt is what was printed" cmp -s "$tmp/report" "$tmp/out/report.txt"
check "the parent's patch is named" grep -q '^         + 0001-x.patch$' "$tmp/report"
check "the child has none" grep -q '^         (no patches)$' "$tmp/report"
for w in sendmmsg io_uring; do
	# shellcheck disable=SC2016 # awk's $1
	check "a $w block with its figures" awk -v w="$w" '
		$1 == w && $3 == "B" { b = 1 }
		b && /dgram ns\/msg  / && NF == 5 { ns = 1 }
		b && /B vs midpoint of A and A/ { s = 1 }
		b && /parent drift/ { d = 1 }
		b && /max CV/ { cv = 1 }
		b && /verdict: B within/ { v = 1; b = 0 }
		END { exit !(ns && s && d && cv && v) }' "$tmp/report"
done
if command -v gnuplot >/dev/null; then
	check "a text plot per workload" test "$(grep -c 'dgram ns/msg per measured round' "$tmp/report")" -eq 2
	check "an SVG per workload" test -s "$tmp/out/aba-sendmmsg-128.svg" -a -s "$tmp/out/aba-io_uring-128.svg"
	check "no line longer than 80 columns" awk 'length > 80 { exit 1 }' "$tmp/report"
	check "no control characters, no trailing blanks" clean "$tmp/report"
fi

# Without gnuplot: the same report with a note instead of the plots.
mkdir -p "$tmp/path"
for t in bash dirname mktemp paste seq wc sed awk jq grep cat tee mkdir rm; do
	ln -s "$(command -v "$t")" "$tmp/path/$t"
done
# The interpreter itself: a pyenv shim on PATH would need pyenv too.
ln -s "$(python3 -c 'import sys; print(sys.executable)')" "$tmp/path/python3"
PATH=$tmp/path "$here/aba_report.sh" -t 1000 "$@" >"$tmp/report.nognuplot"
check "without gnuplot: exit 0" test $? -eq 0
check "without gnuplot: a note, no plot" grep -q 'no per-round plot: gnuplot is not installed' "$tmp/report.nognuplot"

"$here/aba_report.sh" -t 0 "$@" >/dev/null
rc=$?
check "a 0% threshold: exit status $rc is 0 or 1 (regression)" test "$rc" -le 1
"$here/aba_report.sh" "$1" "$2" /nonexistent >/dev/null 2>&1
check "a missing file: exit 2" test $? -eq 2

tap_done
