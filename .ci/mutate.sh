#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Mutation testing of the AF_UNIX test programs against AppArmor's
# security/apparmor/af_unix.c, or another file of it
# (CI only, not in .ci/run: about a minute per mutant).
#
#   .ci/mutate.sh [-n N | -s LIST] [-f FILE] [-F REGEX] [-l] [-p PATCH]...
#                 [-o OUT] [-b BUILD_DIR] [-K DIR] [-t SECONDS] KSRC
#
# Generates the single-point mutants of KSRC/security/apparmor/af_unix.c
# (.ci/mutants/af_unix_mutants.py: a return forced to 0, a condition
# negated, && and || swapped, a permission constant swapped for its
# partner, a second check dropped), builds the tinyconfig kernel of
# build_kernel.sh unmutated and then with each mutant (-p MUTANT.patch),
# runs aa_unix_mediation (not unix_fixes_test: 7.2 lacks those fixes) with
# "./vmtest.sh -k IMAGE" on each in qemu and
# prints a table: id, line, operator, change, KILLED, SURVIVED,
# BUILD-FAILED or BOOT-FAILED, and the tests that failed (KTAP "not ok")
# or how the kernel died (splat, crash, guest timeout: all killed).  The
# suite must pass on the unmutated kernel, else nothing is measured.
# Ends with "score: K killed of M (S survived, B not built)".
#
#   -n N          only the first N mutants
#   -s LIST       only these ids, comma separated (e.g. 3,17,42)
#   -f FILE       mutate security/apparmor/FILE instead (file.c, lsm.c,
#                 label.c: the same operators, in its functions that
#                 return an int or a DFA state)
#   -F REGEX      only the mutants in functions whose name matches REGEX
#                 (grep -E), before -n or -s
#   -l            the random lane alone (aa_unix_mediation -f history, its
#                 default budget): what it kills without a row written
#                 for the bug
#   -p PATCH      apply PATCH to the unmutated kernel and to every mutant
#                 (repeatable; build_kernel.sh -p), e.g. .ci/stable,
#                 .ci/fixes and .ci/patches, where the suite needs them to
#                 pass (the lane does on 7.2)
#   -o OUT        keep logs, mutants, index.tsv and table.txt in OUT
#                 (default: a new /tmp/mutate.XXXXXX, kept)
#   -b BUILD_DIR  build_kernel.sh work directory (default:
#                 $VMTEST_CACHE/mutate, apart from CI's kbuild)
#   -K DIR        kernel tree vmtest.sh builds the suite in (vmtest.sh -K;
#                 default: KSRC).  Its tools/testing/selftests/apparmor
#                 must not exist or be a copy vmtest.sh made.  CI builds
#                 in the cached linux-source; for a campaign next to it
#                 use a hard-linked copy, e.g.
#                   cp -al ~/.cache/apparmor-selftests/linux-source-7.2 \
#                       /tmp/mut-ksrc
#                   rm -rf /tmp/mut-ksrc/tools/testing/selftests/apparmor
#                   .ci/mutate.sh -K /tmp/mut-ksrc -o /tmp/mut /tmp/mut-ksrc
#   -t SECONDS    give up on a guest after this long (default: 300)
#
# The suite is built once, for the unmutated kernel, and that build is
# run on every mutant (vmtest.sh -T): the same binary everywhere, and no
# rebuild per mutant.  The next mutant's kernel is built while the
# current one runs in qemu.  Builds run under nice -n 10.

set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
TOP=$(pwd)
export VMTEST_CACHE="${VMTEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/apparmor-selftests}"

usage()
{
	sed -n '4,/^$/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" | sed '$d'
	exit "${1:-0}"
}

FIRST=0
SELECT=""
OUT=""
BUILD=$VMTEST_CACHE/mutate
TESTKSRC=""
TIMEOUT=300
FILE=af_unix.c
FUNCS=""
LANE=()
BASE=()
while getopts "hn:s:f:F:lp:o:b:K:t:" opt; do
	case $opt in
	n) FIRST=$OPTARG ;;
	s) SELECT=$OPTARG ;;
	f) FILE=$OPTARG ;;
	F) FUNCS=$OPTARG ;;
	l) LANE=(-f history) ;;
	p) BASE+=(-p "$(realpath -e -- "$OPTARG")") || exit 2 ;;
	o) OUT=$OPTARG ;;
	b) BUILD=$OPTARG ;;
	K) TESTKSRC=$OPTARG ;;
	t) TIMEOUT=$OPTARG ;;
	h) usage 0 ;;
	*) usage 2 >&2 ;;
	esac
done
shift $((OPTIND - 1))
[[ $# -eq 1 ]] || usage 2 >&2
[[ $FIRST =~ ^[0-9]+$ && $TIMEOUT =~ ^[1-9][0-9]*$ ]] || usage 2 >&2
[[ -z $SELECT || $SELECT =~ ^[0-9]+(,[0-9]+)*$ ]] || usage 2 >&2
[[ -n $SELECT && $FIRST -ne 0 ]] && usage 2 >&2
[[ $FILE =~ ^[a-z_]+\.c$ ]] || usage 2 >&2

KSRC=$(realpath -e -- "$1") || exit 2
SRCFILE=$KSRC/security/apparmor/$FILE
[[ -f $SRCFILE ]] || { echo "mutate: no $SRCFILE" >&2; exit 2; }
TESTKSRC=$(realpath -e -- "${TESTKSRC:-$KSRC}") || exit 2
[[ -n $OUT ]] || OUT=$(mktemp -d /tmp/mutate.XXXXXX)
mkdir -p -- "$OUT/logs" "$OUT/mutants" || exit 1
OUT=$(realpath -e -- "$OUT")
LOGS=$OUT/logs
TABLE=$OUT/table.txt
BUILD_PID=""
start=$SECONDS

log()
{
	echo "mutate: $*" >&2
}

# shellcheck disable=SC2317 # called from the traps
cleanup()
{
	[[ -n $BUILD_PID ]] && kill -- "-$BUILD_PID" 2>/dev/null
	return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# build ID [PATCH]: build_kernel.sh in the background, in a process group
# of its own (cleanup stops all of it); ID.build.log holds its output
# (the image on its last line), ID.build.rc its exit status.
build()
{
	local id=$1 args=("${BASE[@]}")

	[[ $# -gt 1 ]] && args+=(-p "$2")
	# shellcheck disable=SC2016 # expanded by that bash
	LOG=$LOGS/$id setsid -w bash -c 't0=$(date +%s)
		nice -n 10 ./build_kernel.sh "$@" >"$LOG.build.log" 2>&1
		echo $? >"$LOG.build.rc"
		echo $(($(date +%s) - t0)) >"$LOG.build.s"' \
		build_kernel "${args[@]}" "$KSRC" "$BUILD" &
	BUILD_PID=$!
}

# built ID: wait for its build; 0 and IMG set to the image if it built.
built()
{
	wait "$BUILD_PID"
	BUILD_PID=""
	IMG=""
	[[ $(cat "$LOGS/$1.build.rc" 2>/dev/null) == 0 ]] || return 1
	IMG=$(tail -n 1 "$LOGS/$1.build.log")
}

# guest ID IMAGE [vmtest.sh options]: the suite on IMAGE; ID.tap is its
# output, ID.vmtest.log vmtest.sh's messages; returns vmtest.sh's status.
guest()
{
	local id=$1 img=$2 rc t0

	shift 2
	t0=$(date +%s)
	./vmtest.sh --timeout "$TIMEOUT" -k "$img" "$@" -- ./aa_unix_mediation \
		"${LANE[@]}" >"$LOGS/$id.tap" 2>"$LOGS/$id.vmtest.log"
	rc=$?
	echo $(($(date +%s) - t0)) >"$LOGS/$id.run.s"
	return "$rc"
}

# failed ID: the names of the top-level tests that failed (KTAP "not ok"),
# all in ID.failed; on stdout the first four, comma separated.
failed()
{
	local n

	sed -n 's/^not ok [0-9]* \([^ #]*\).*/\1/p' "$LOGS/$1.tap" \
		>"$LOGS/$1.failed"
	n=$(grep -c . "$LOGS/$1.failed")
	head -n 4 "$LOGS/$1.failed" | paste -sd, - | tr -d '\n'
	[[ $n -le 4 ]] || printf ' (+%d more)' $((n - 4))
	echo
}

# verdict ID RC: "STATUS<TAB>what failed" from vmtest.sh's exit status.
verdict()
{
	local id=$1 rc=$2 names splat

	names=$(failed "$id")
	case $rc in
	0)
		printf 'SURVIVED\t-\n' ;;
	124)
		printf 'KILLED\tguest timed out (hang)%s\n' "${names:+; $names}" ;;
	125)
		printf 'BOOT-FAILED\t%s\n' \
			"$(grep -m1 'FAIL\|error' "$LOGS/$id.vmtest.log")" ;;
	*)
		if grep -q 'kernel splat during the run' "$LOGS/$id.vmtest.log"; then
			splat=$(grep -m1 -oE '(BUG|WARNING|Oops|UBSAN|KASAN):.*' \
				"$LOGS/$id.vmtest.log" | cut -c1-60)
			printf 'KILLED\tsplat: %s%s\n' "$splat" "${names:+; $names}"
		elif grep -q 'died before reporting' "$LOGS/$id.vmtest.log"; then
			printf 'KILLED\tkernel crash: %s%s\n' \
				"$(grep -m1 -aoE '(BUG|Oops|Kernel panic)[^\r]*' \
					"$LOGS/$id.vmtest.log" | cut -c1-60)" \
				"${names:+; $names}"
		elif [[ -n $names ]]; then
			printf 'KILLED\t%s\n' "$names"
		else
			printf 'KILLED\tsuite exit status %s, no "not ok"\n' "$rc"
		fi ;;
	esac
}

# Mutants, of the file as the -p patches leave it.
if [[ ${#BASE[@]} -gt 0 ]]; then
	rm -rf -- "$OUT/src" && mkdir -p -- "$OUT/src/security" &&
		cp -r -- "$KSRC/security/apparmor" "$OUT/src/security/" || exit 1
	for ((i = 1; i < ${#BASE[@]}; i += 2)); do
		patch -d "$OUT/src" -p1 --batch --forward --quiet \
			<"${BASE[i]}" ||
			{ log "${BASE[i]} does not apply to security/apparmor"; exit 1; }
	done
	SRCFILE=$OUT/src/security/apparmor/$FILE
fi
/usr/bin/python3 "$TOP/.ci/mutants/af_unix_mutants.py" -o "$OUT/mutants" \
	--name "security/apparmor/$FILE" "$SRCFILE" ||
	{ log "generating the mutants failed"; exit 1; }
cp -- "$OUT/mutants/index.tsv" "$OUT/index.tsv"
declare -A row=()
ids=()
while IFS=$'\t' read -r id line op orig mut func change; do
	[[ $id == id ]] && continue
	[[ -z $FUNCS ]] || grep -Eq -- "$FUNCS" <<<"$func" || continue
	row[$id]="$line"$'\t'"$op"$'\t'"$func: $change"
	: "$orig" "$mut"
	ids+=("$id")
done <"$OUT/index.tsv"
total=${#ids[@]}
if [[ -n $SELECT ]]; then
	sel=()
	IFS=, read -r -a want <<<"$SELECT"
	for w in "${want[@]}"; do
		w=$(printf '%03d' "$((10#$w))")
		[[ -n ${row[$w]+x} ]] || { log "no mutant $w of $FILE ${FUNCS:+in $FUNCS}"; exit 2; }
		sel+=("$w")
	done
	ids=("${sel[@]}")
elif [[ $FIRST -gt 0 && $FIRST -lt $total ]]; then
	ids=("${ids[@]:0:$FIRST}")
fi
log "$total mutants of $SRCFILE; running ${#ids[@]} (logs in $OUT)"

# The unmutated kernel: the suite must pass there.  Its build of the
# suite is kept as a kselftest tarball for the mutants.
build base
built base || {
	tail -n 20 "$LOGS/base.build.log" >&2
	log "the unmutated kernel does not build"
	exit 1
}
[[ ${#ids[@]} -gt 0 ]] && build "${ids[0]}" "$(ls "$OUT/mutants/${ids[0]}"-*.patch)"
img=$IMG
guest base "$img" -K "$TESTKSRC"
rc=$?
if [[ $rc -ne 0 ]] || ! grep -Eq '^# Totals: pass:[1-9][0-9]* fail:0 ' \
	"$LOGS/base.tap" || grep -q '^not ok' "$LOGS/base.tap"; then
	tail -n 30 "$LOGS/base.vmtest.log" >&2
	grep '^not ok' "$LOGS/base.tap" >&2
	log "the suite fails on the unmutated kernel (vmtest.sh exit $rc):" \
		"nothing to measure"
	exit 1
fi
log "unmutated kernel: $(grep '^# Totals' "$LOGS/base.tap")"
run=$(sed -n 's/.*(logs in \(.*\))$/\1/p' "$LOGS/base.vmtest.log" | tail -n 1)
suite=()
if [[ -x $run/overlay/kselftest/apparmor/aa_unix_mediation &&
	-x $run/overlay/kselftest/run_kselftest.sh ]] &&
	tar -C "$run/overlay/kselftest" -czf "$OUT/suite.tar.gz" .; then
	suite=(-T "$OUT/suite.tar.gz")
else
	log "no installed suite in '$run': building it for every mutant"
	suite=(-K "$TESTKSRC")
fi

fmt='%-4s %5s  %-10s  %-64.64s  %-11s  %s\n'
{
	echo "# $FILE mutants, aa_unix_mediation ${LANE[*]}; kernel $(grep '^version' \
		"$(dirname "$img")/build-info")"
	# shellcheck disable=SC2059 # the format is ours
	printf "$fmt" id line operator change status "failed tests / how"
} | tee "$TABLE"
killed=0 survived=0 nobuild=0 noboot=0
for ((i = 0; i < ${#ids[@]}; i++)); do
	id=${ids[i]}
	IFS=$'\t' read -r line op change <<<"${row[$id]}"
	built "$id"
	brc=$?
	next=${ids[i + 1]:-}
	[[ -n $next ]] && build "$next" "$(ls "$OUT/mutants/$next"-*.patch)"
	if [[ $brc -ne 0 ]]; then
		status="BUILD-FAILED"
		what=$(grep -m1 -E 'error:|does not apply' "$LOGS/$id.build.log" |
			cut -c1-100)
	else
		guest "$id" "$IMG" "${suite[@]}"
		rc=$?
		IFS=$'\t' read -r status what < <(verdict "$id" "$rc")
	fi
	case $status in
	KILLED) killed=$((killed + 1)) ;;
	SURVIVED) survived=$((survived + 1)) ;;
	BUILD-FAILED) nobuild=$((nobuild + 1)) ;;
	BOOT-FAILED) noboot=$((noboot + 1)) ;;
	esac
	# shellcheck disable=SC2059 # the format is ours
	printf "$fmt" "$id" "$line" "$op" "$change" "$status" "$what" |
		tee -a "$TABLE"
	printf '%s\t%s\t%s\t%s\n' "$id" "$status" \
		"$(cat "$LOGS/$id.build.s" 2>/dev/null)" \
		"$(cat "$LOGS/$id.run.s" 2>/dev/null)" >>"$OUT/times.tsv"
done

m=$((killed + survived))
{
	echo "# ${#ids[@]} of $total mutants in $((SECONDS - start)) s" \
		"(unmutated kernel and suite included)"
	[[ $noboot -eq 0 ]] || echo "# $noboot did not boot (not counted)"
	echo "score: $killed killed of $m ($survived survived, $nobuild not built)"
} | tee -a "$TABLE"
