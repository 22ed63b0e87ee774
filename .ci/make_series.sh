#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Turns the committed state of this repository into a git format-patch
# series against a kernel tree, for posting:
#
#   1. the functional test, with TARGETS += apparmor and a MAINTAINERS
#      F: line under AppArmor;
#   2. the VM runner and the kernel builder;
#   3. the benchmark;
#   4. the README;
#
# plus a cover letter (.ci/series/cover.txt).  .ci/ stays out.  Every
# commit is signed off by the sender's own git identity (user.name and
# user.email), read when the series is made.
#
# Usage: .ci/make_series.sh [-o OUTDIR] KERNEL_TREE
#
# KERNEL_TREE need not be a git tree: the series is made in a scratch
# repository holding only the files it changes, whose blob ids are the
# tree's.  OUTDIR (default ./apparmor-series) gets the patches.

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MSGS=$TOP/.ci/series
OUT=$PWD/apparmor-series
ST=tools/testing/selftests

# Which patch each file of the directory belongs to.
TESTS=(config settings .gitignore Makefile common.c common.h policy.c
	policy.h unix_scenario.c unix_scenario.h unix_handoff.c unix_handoff.h
	audit_log.c audit_log.h aa_unix_mediation.c)
VM=(vmtest.sh build_kernel.sh config.vm)
BENCH=(af_unix_send_perf.c send_workload.c send_workload.h send_scale.c
	send_scale.h perf_env.c perf_env.h perf_json.c perf_json.h perf_stats.c
	perf_stats.h perf_verdict.c perf_verdict.h perf_parse.c perf_parse.h
	perf_baseline.c perf_baseline.h perf_verdict_test.c perf_baseline_test.c
	perf_report.py run_perf.sh aba_report.sh)
DOCS=(README)

die()
{
	echo "make_series.sh: $*" >&2
	exit 1
}

while getopts o:h opt; do
	case $opt in
	o) OUT=$(realpath -m "$OPTARG") ;;
	*) sed -n '3,/^$/s/^# \{0,1\}//p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[[ $# -eq 1 ]] || die "usage: $0 [-o OUTDIR] KERNEL_TREE"
K=$(realpath "$1")
[[ -f $K/MAINTAINERS && -f $K/$ST/Makefile ]] ||
	die "$K is not a kernel tree"
[[ ! -e $K/$ST/apparmor || -f $K/$ST/apparmor/.vmtest-copy ]] ||
	die "$K/$ST/apparmor exists: the series would not apply there"

NAME=$(git -C "$TOP" config user.name) || true
EMAIL=$(git -C "$TOP" config user.email) || true
[[ -n $NAME && -n $EMAIL ]] ||
	die "set git config user.name and user.email: the series is signed off by you"

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
SRC=$WORK/src
REPO=$WORK/repo
D=$REPO/$ST/apparmor
mkdir -p "$SRC" "$REPO/$ST"
git -C "$TOP" archive HEAD | tar -x -C "$SRC"

# Every committed file outside .ci/ must be in one patch.
placed=" ${TESTS[*]} ${VM[*]} ${BENCH[*]} ${DOCS[*]} "
while read -r f; do
	[[ $placed == *" $f "* ]] || die "$f is in no patch: add it to a list"
done < <(git -C "$TOP" ls-files | grep -v '^\.ci/')

g()
{
	git -C "$REPO" -c user.name="$NAME" -c user.email="$EMAIL" "$@"
}

cp "$K/MAINTAINERS" "$REPO/"
cp "$K/$ST/Makefile" "$REPO/$ST/"
g init -q
g add -A
g commit -q -m "base: $(make -s -C "$K" kernelversion 2>/dev/null || echo tree)"
base=$(g rev-parse HEAD)

# put FILES...: copy FILES into the suite.
put()
{
	local f

	mkdir -p "$D"
	for f in "$@"; do
		cp -p "$SRC/$f" "$D/$f"
	done
}

# commit MSGFILE FILES...: copy FILES into the suite and commit it all.
commit()
{
	local msg=$1

	shift
	put "$@"
	g add -A
	g commit -q -s -F "$msg"
}

# 1: the functional test, wired into the selftests and MAINTAINERS.  Its
# Makefile and .gitignore without the benchmark's paragraphs and lines.
put config common.c common.h policy.c policy.h unix_scenario.c \
	unix_scenario.h unix_handoff.c unix_handoff.h audit_log.c audit_log.h \
	aa_unix_mediation.c
awk -v RS= '!/perf/ { printf "%s%s\n", sep, $0; sep = "\n" }' \
	"$SRC/Makefile" >"$D/Makefile"
grep -v perf "$SRC/.gitignore" >"$D/.gitignore"
# The benchmark's default run needs the longer timeout, not the test.
echo "timeout=120" >"$D/settings"
awk '!done && /^TARGETS \+= / && $3 > "apparmor" {
	print "TARGETS += apparmor"; done = 1 } { print }' \
	"$K/$ST/Makefile" >"$REPO/$ST/Makefile"
awk '/^APPARMOR SECURITY MODULE$/ { sec = 1 }
	sec && /^$/ { print "F:\ttools/testing/selftests/apparmor/"; sec = 0 }
	{ print }' "$K/MAINTAINERS" >"$REPO/MAINTAINERS"
commit "$MSGS/1-tests.msg"

commit "$MSGS/2-vm.msg" "${VM[@]}"
commit "$MSGS/3-bench.msg" "${BENCH[@]}" Makefile .gitignore settings
commit "$MSGS/4-readme.msg" "${DOCS[@]}"

rm -rf "$OUT"
g format-patch -q --cover-letter --thread -o "$OUT" "$base"..HEAD
cover=$(ls "$OUT"/0000-*)
awk -v blurb="$MSGS/cover.txt" '
	/\*\*\* SUBJECT HERE \*\*\*/ {
		sub(/\*\*\* SUBJECT HERE \*\*\*/,
		    "selftests/apparmor: AF_UNIX mediation tests and a send benchmark")
	}
	/^\*\*\* BLURB HERE \*\*\*$/ {
		while ((getline line < blurb) > 0)
			print line
		next
	}
	{ print }' "$cover" >"$cover.new"
mv "$cover.new" "$cover"
grep -q '\*\*\*' "$cover" && die "cover letter still has a placeholder"
ls "$OUT"
