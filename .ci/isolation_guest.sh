#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside a vmtest.sh guest, in the installed apparmor directory, as
# root (.ci/run passes it with "vmtest.sh -- bash -c"):
#   - aa_unix_mediation's conversations (the af_unix fixture; it loads the
#     profiles of every test all the same), as an unprivileged user and as root without apparmor_parser: the
#     unconfined tests pass, what cannot run SKIPs naming why;
#   - a run killed with SIGKILL leaves its profiles and directory behind;
#   - two runs side by side, each PID 1 of its own PID namespace (so any
#     name built from a pid would collide), the second one started once the
#     first has loaded its profiles: both pass, and the second removes the
#     killed run's leftovers and nothing of the live one;
#   - when all is over, no profile or directory of any run is left.

# shellcheck disable=SC2317,SC2329 # functions called through check()

PROG=(./aa_unix_mediation -f af_unix)
PREFIX=aa_unix_mediation
PROFILES=/sys/kernel/security/apparmor/profiles
PARSER=$(command -v apparmor_parser)
LOGS=$(mktemp -d)
failed=0

check()
{
	local what=$1

	shift
	if "$@"; then
		echo "ok - $what"
	else
		echo "not ok - $what"
		failed=1
	fi
}

# passed LOG [PATTERN]: the run's KTAP has no failure, its exit status
# (last line) is 0, and every test its plan announced passed, or, with
# PATTERN, exactly those whose names match it.
passed()
{
	local totals plan want

	totals=$(grep -E '^# Totals: ' "$1")
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$1")
	want=$plan
	[[ -n ${2:-} ]] && want=$(grep -cE "^(not )?ok [0-9]+ $2( |\$)" "$1")
	echo "#   $1: $totals, plan $plan, $want expected to pass, exit status $(tail -n 1 "$1")"
	# An expected failure (an open question of SEMANTICS) is not one.
	! grep -q '^not ok' "$1" && ((want > 0)) &&
		[[ $totals =~ pass:([0-9]+)\ fail:0\ xfail:([0-9]+)\  ]] &&
		((BASH_REMATCH[1] + BASH_REMATCH[2] == want)) &&
		[[ $(tail -n 1 "$1") == 0 ]]
}

# skips_name LOG REASON: every SKIP of the run gives REASON.
skips_name()
{
	local n other

	n=$(grep -c '^ok .* # SKIP ' "$1")
	other=$(grep '^ok .* # SKIP ' "$1" | grep -vc -- "$2")
	echo "#   $1: $n SKIPs, $other not naming '$2'"
	((n > 0 && other == 0))
}

# run LOG CMD...: run CMD, its output and then its exit status into LOG.
run()
{
	local log=$1

	shift
	"$@" >"$log" 2>&1
	echo $? >>"$log"
}

run_dirs()
{
	find /tmp -maxdepth 1 -name "$PREFIX.*" -type d | sort
}

# The run directory that appeared since DIRS was taken: the new run's.
new_run()
{
	local dir

	for _ in $(seq 100); do
		dir=$(comm -13 <(echo "$1") <(run_dirs) | head -n 1)
		[[ -n $dir ]] && echo "${dir#/tmp/}" && return 0
		sleep 0.1
	done
	return 1
}

loaded()
{
	grep -c "^$1\\." "$PROFILES"
}

wait_loaded()
{
	for _ in $(seq 600); do
		(($(loaded "$1") > 0)) && return 0
		sleep 0.1
	done
	return 1
}

chmod 1777 /tmp

run "$LOGS/nonroot" setpriv --reuid=65534 --regid=65534 --clear-groups \
	--inh-caps=-all "${PROG[@]}"
check "unprivileged: no FAIL, the unconfined tests pass" \
	passed "$LOGS/nonroot" 'af_unix\.[a-z_]+\.unconfined'
check "unprivileged: every SKIP says policy needs root" \
	skips_name "$LOGS/nonroot" 'loading AppArmor policy needs root'

mv "$PARSER" "$PARSER.hidden"
run "$LOGS/noparser" "${PROG[@]}"
mv "$PARSER.hidden" "$PARSER"
check "no apparmor_parser: no FAIL, the unconfined tests pass" \
	passed "$LOGS/noparser" 'af_unix\.[a-z_]+\.unconfined'
check "no apparmor_parser: every SKIP names it" \
	skips_name "$LOGS/noparser" 'apparmor_parser not found'

before=$(run_dirs)
unshare -pf --mount-proc --kill-child=SIGKILL "${PROG[@]}" >"$LOGS/killed" 2>&1 &
pid=$!
dead=$(new_run "$before")
check "killed run: loads its profiles ($dead)" wait_loaded "$dead"
kill -9 "$pid"
wait "$pid" 2>/dev/null
sleep 1
echo "#   $dead: $(loaded "$dead") profiles after SIGKILL"
check "killed run: profiles left behind" test "$(loaded "$dead")" -gt 0
check "killed run: directory left behind" test -d "/tmp/$dead"

before=$(run_dirs)
unshare -pf --mount-proc "${PROG[@]}" >"$LOGS/live" 2>&1 &
pid=$!
live=$(new_run "$before")
check "live run: loads its profiles ($live)" wait_loaded "$live"
n=$(loaded "$live")
run "$LOGS/second" unshare -pf --mount-proc "${PROG[@]}"
echo "#   $live: $n profiles before the second run, $(loaded "$live") after"
wait "$pid"
echo $? >>"$LOGS/live"
check "second run (PID namespace): passes" passed "$LOGS/second"
check "live run (PID namespace) beside it: passes" passed "$LOGS/live"
check "second run removed the killed run's profiles" \
	test "$(loaded "$dead")" -eq 0
check "second run removed the killed run's directory" test ! -e "/tmp/$dead"
check "no profile of any run is left" test "$(loaded "$PREFIX")" -eq 0
check "no run directory is left" test -z "$(run_dirs)"

if [[ $failed -ne 0 ]]; then
	grep "^$PREFIX\\." "$PROFILES" | sed 's/^/# left: /'
	for log in "$LOGS"/*; do
		echo "# --- $log"
		grep -E '^(not ok|# .*expected|# .*Expected)' "$log" | head -n 20
		tail -n 3 "$log"
	done
fi
exit $failed
