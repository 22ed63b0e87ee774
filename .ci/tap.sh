# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# TAP for the CI's logic tests, sourced: "check WHAT CMD..." prints "ok N
# WHAT" when CMD succeeds, else "not ok N WHAT"; "tap_done" prints the plan
# and fails when any check did.

n=0
failed=0

check() {
	local what=$1

	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n $what"
	else
		echo "not ok $n $what"
		failed=$((failed + 1))
	fi
}

tap_done() {
	echo "1..$n"
	[[ $failed -eq 0 ]]
}
