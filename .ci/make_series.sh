#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Turns the committed state of this repository into a git format-patch
# series against a kernel tree, for posting:
#
#   1. the AppArmor helpers (with TARGETS += apparmor and a MAINTAINERS
#      F: line under AppArmor), the AF_UNIX machinery, the rule tests;
#   2. the tests of sockets that change hands;
#   3. the stacked-label, replacement, audit and shipped-profile tests,
#      then the tests of sockets carried onto a stack, the random lane,
#      and the tests of files a socket or an exec hands over;
#   4. the regression tests of fixes whose absence oopses;
#   5. the VM runner and the kernel builder;
#   6. the benchmark: the statistics and the verdict, the baseline file,
#      the program, the maintainer's scripts;
#   7. the README;
#
# each kernel fix of .ci/fixes (git am, signed off by the sender too)
# just before the first test that FAILs without it: 0003 before the label
# tests, 0001 before the stack tests, 0004 and 0005 before the random
# lane (and the tests of files handed over, which FAIL without 0004
# too), 0002
# before the regression tests; no tree holds a test without its fix.  A
# cover letter (.ci/series/cover.txt) says which tree takes what.  .ci/
# stays out.  Every commit is signed off by the sender's own git identity
# (user.name and user.email), read when the series is made.
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

# Which patch each file of the directory belongs to.  The Makefile,
# .gitignore and aa_unix_mediation.c, which includes the test areas, go
# into every patch, without what names a file or program the series does
# not hold yet (trim()).
HELPERS=(config settings common.c common.h policy.c policy.h profile.c
	profile.h)
MACHINERY=(unix_core.c unix_core.h unix_scenario.c unix_scenario.h
	unix_test.h unix_variants.h kernel_reports.c kernel_reports.h)
RULES=(SEMANTICS unix_perms.c unix_perms.h unix_rules_tests.c
	aa_unix_mediation.c)
HANDOFF=(unix_handoff.c unix_handoff.h unix_handoff_ops.c unix_handoff_ops.h
	unix_handoff_tests.c)
LABELS=(unix_labels_tests.c audit_log.c audit_log.h unix_audit_tests.c
	unix_profiles_tests.c)
STACK=(unix_stack_tests.c)
PEER=(unix_peer_tests.c)
HISTORY=(unix_history_tests.c unix_history_policies.c
	unix_history_profiles.c unix_history_replaced.c unix_history.c
	unix_history.h)
CARRIED=(unix_carried_tests.c unix_carried.c unix_carried.h
	unix_history_files.c)
FIXES=(unix_fixes_test.c unix_fixes_refs.c unix_fixes_race.c)
VM=(vmtest.sh build_kernel.sh config.vm config.debug)
# The benchmark as a reviewer reads it, each patch building on its own:
# the statistics, the verdict and the check of a series against a
# baseline entry (whose type perf_baseline.h declares); the baseline file;
# the program; the maintainer's scripts.
BENCH_VERDICT=(perf_verdict.c perf_verdict.h perf_baseline.h
	perf_verdict_test.c)
BENCH_BASELINE=(perf_baseline.c perf_baseline_test.c)
BENCH_PROGRAM=(af_unix_send_perf.c send_workload.c send_workload.h)
BENCH_SCRIPTS=(run_perf.sh)
BENCH=("${BENCH_VERDICT[@]}" "${BENCH_BASELINE[@]}" "${BENCH_PROGRAM[@]}"
	"${BENCH_SCRIPTS[@]}")
DOCS=(README)
BUILD=(Makefile .gitignore)
# Trimmed in every patch once the series holds them.
GROWN=("${BUILD[@]}" aa_unix_mediation.c)

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
placed=" ${HELPERS[*]} ${MACHINERY[*]} ${RULES[*]} ${HANDOFF[*]} ${LABELS[*]} ${STACK[*]} ${PEER[*]} ${HISTORY[*]} ${CARRIED[*]} ${FIXES[*]} ${VM[*]} ${BENCH[*]} ${DOCS[*]} ${BUILD[*]} "
while read -r f; do
	[[ $placed == *" $f "* ]] || die "$f is in no patch: add it to a list"
done < <(git -C "$TOP" ls-files | grep -v '^\.ci/')

g()
{
	git -C "$REPO" -c user.name="$NAME" -c user.email="$EMAIL" "$@"
}

cp "$K/MAINTAINERS" "$REPO/"
cp "$K/$ST/Makefile" "$REPO/$ST/"
# The kernel files the fixes change, as the tree has them.
FIXES_DIR=$TOP/.ci/fixes
while read -r f; do
	mkdir -p "$REPO/$(dirname "$f")"
	cp "$K/$f" "$REPO/$f"
done < <(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$FIXES_DIR"/*.patch | sort -u)
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

# trim FILE: FILE without the lines (a line continued with "\" counting
# as one, and a "# " comment going with the line after it) that name a
# source file or a program whose source the suite does not hold yet.
trim()
{
	awk -v dir="$D" -v srcs="$(cd "$SRC" && echo *.c)" '
	BEGIN { n = split(srcs, s, " "); for (i = 1; i <= n; i++) c[s[i]] = 1 }
	function has(f) { return system("test -e \"" dir "/" f "\"") == 0 }
	function ours(f) { return f in c }
	{ line = line $0 "\n" }
	/\\$/ { next }
	/^#( |$)/ { next }
	{
		keep = 1
		n = split(line, w, /[^a-z_.0-9%]+/)
		for (i = 1; i <= n; i++)
			if ((w[i] ~ /^[a-z_]+\.(c|sh|py)$/ && !has(w[i])) ||
			    (w[i] ~ /^[a-z_]+$/ && ours(w[i] ".c") &&
			     !has(w[i] ".c")))
				keep = 0
		if (keep)
			printf "%s", line
		line = ""
	}' "$SRC/$1" | cat -s | sed '${/^$/d}'
}

# commit MSGFILE FILES...: copy FILES into the suite, the build files as
# they then are, and commit it all.
commit()
{
	local msg=$1 f

	shift
	put "$@"
	for f in "${GROWN[@]}"; do
		[[ -e $D/$f ]] || [[ " ${BUILD[*]} " == *" $f "* ]] || continue
		trim "$f" >"$D/$f"
	done
	g add -A
	g commit -q -s -F "$msg"
}

# fix N: the kernel fix .ci/fixes/N-*.patch, as its author wrote it.
fix()
{
	g am -q -s "$FIXES_DIR/$1"-*.patch ||
		die "$(basename "$FIXES_DIR/$1"-*.patch) does not apply to $K"
}

# 1: the helpers, wired into the selftests and MAINTAINERS.
awk '!done && /^TARGETS \+= / && $3 > "apparmor" {
	print "TARGETS += apparmor"; done = 1 } { print }' \
	"$K/$ST/Makefile" >"$REPO/$ST/Makefile"
awk '/^APPARMOR SECURITY MODULE$/ { sec = 1 }
	sec && /^$/ { print "F:\ttools/testing/selftests/apparmor/"; sec = 0 }
	{ print }' "$K/MAINTAINERS" >"$REPO/MAINTAINERS"
commit "$MSGS/1a-helpers.msg" "${HELPERS[@]}"
commit "$MSGS/1b-machinery.msg" "${MACHINERY[@]}"
commit "$MSGS/1c-rules.msg" "${RULES[@]}"
commit "$MSGS/2-handoff.msg" "${HANDOFF[@]}"
fix 0003
commit "$MSGS/3a-labels.msg" "${LABELS[@]}"
fix 0001
commit "$MSGS/3b-stack.msg" "${STACK[@]}"
commit "$MSGS/3c-peer.msg" "${PEER[@]}"
fix 0004
fix 0005
commit "$MSGS/3d-history.msg" "${HISTORY[@]}"
commit "$MSGS/3e-carried.msg" "${CARRIED[@]}"
fix 0002
commit "$MSGS/4-fixes.msg" "${FIXES[@]}"
commit "$MSGS/5-vm.msg" "${VM[@]}"
commit "$MSGS/6a-verdict.msg" "${BENCH_VERDICT[@]}"
commit "$MSGS/6b-baseline.msg" "${BENCH_BASELINE[@]}"
commit "$MSGS/6c-bench.msg" "${BENCH_PROGRAM[@]}"
commit "$MSGS/6d-scripts.msg" "${BENCH_SCRIPTS[@]}"
# The README without the paragraphs about this repository's .ci/, which
# stays out.
put "${DOCS[@]}"
awk -v RS= '!/\.ci\// { printf "%s%s\n", sep, $0; sep = "\n" }' \
	"$SRC/README" >"$D/README"
commit "$MSGS/7-readme.msg"
for f in "${GROWN[@]}"; do
	cmp -s "$SRC/$f" "$D/$f" || die "$f in the last patch differs from ours"
done
grep -q '\.ci/' "$D/README" && die "the README still names .ci/"

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
